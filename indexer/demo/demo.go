// Package demo embeds the demo snapshot that `stationdex serve` answers from
// when no index file is given, and that the tests use as a small fixture.
// It holds the data only; indexer.BuildDemo builds its index, so that the
// demo, a leaf, never imports the indexer above it.
//
// stations.ndjson is written for this project in the upstream directory's
// /json/stations format. Its stations are fictional; each exercises one quirk
// of real dumps: untrimmed and control-character names, zero-width and
// styled letters, HTML entities, many scripts, leading symbols, shared
// names, placeholder locations, mixed language separators, lower-case
// country codes, absurd bitrates, broken and javascript: URLs, markup and
// Markdown in text, bidi controls, a 990-character tag, and four records the
// indexer must skip (duplicate uuid, invalid uuid, empty name, not an object).
package demo

import (
	_ "embed"
	"time"

	"stationdex/internal/format"
)

//go:embed stations.ndjson
var NDJSON []byte

// SnapshotAt is the fixed snapshot time of the demo, so that demo responses
// (and the golden files made from them) never change with the clock.
var SnapshotAt = time.Date(2025, 2, 27, 12, 0, 0, 0, time.UTC)

// Source names the demo data set in every response.
const Source = format.DemoSource

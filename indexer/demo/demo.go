// Package demo embeds the demo snapshot that `stationdex serve` answers from
// when no index file is given, and that the tests use as a small fixture.
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
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"stationdex/indexer"
	"stationdex/internal/format"
)

//go:embed stations.ndjson
var NDJSON []byte

// SnapshotAt is the fixed snapshot time of the demo, so that demo responses
// (and the golden files made from them) never change with the clock.
var SnapshotAt = time.Date(2025, 2, 27, 12, 0, 0, 0, time.UTC)

// Source names the demo data set in every response.
const Source = format.DemoSource

// Build writes the demo index to dir/demo.db and returns its path.
func Build(ctx context.Context, dir string) (string, error) {
	path := filepath.Join(dir, "demo.db")
	// The demo serves the Radio Browser API under /json/ too.
	opts := indexer.Options{SnapshotAt: SnapshotAt, Source: Source, Sections: format.SectionRBAPI}
	in := indexer.Input{Name: "demo/stations.ndjson", R: bytes.NewReader(NDJSON)}
	if _, err := indexer.Build(ctx, path, opts, in); err != nil {
		return "", fmt.Errorf("build demo index: %w", err)
	}
	return path, nil
}

// BuildTemp builds the demo index in a new temporary directory. The caller
// removes the directory (the returned cleanup does) when done serving.
func BuildTemp(ctx context.Context) (path string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "stationdex-demo-")
	if err != nil {
		return "", nil, fmt.Errorf("demo index: %w", err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	if path, err = Build(ctx, dir); err != nil {
		cleanup()
		return "", nil, err
	}
	return path, cleanup, nil
}

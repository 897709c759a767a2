// Package indexer builds stationdex index files from Radio Browser dumps.
//
// CONTRACT STUB: signatures agreed between packages; bodies are being written.
package indexer

import (
	"context"
	"io"
	"time"

	"stationdex/indexer/format"
)

// Input is one Radio Browser dump: a JSON array or NDJSON, plain or gzip.
type Input struct {
	Name string // for messages: file name, "-" or URL
	R    io.Reader
}

// Options control a build.
type Options struct {
	SnapshotAt time.Time // zero: the newest check or change time in the records
	Source     string    // "": DefaultSource
	Progress   io.Writer // nil: silent
}

// DefaultSource names the upstream directory.
const DefaultSource = "Radio Browser (radio-browser.info)"

// Summary reports a finished build.
type Summary struct {
	Stations   int
	Skipped    format.Skipped
	SnapshotAt time.Time
}

// Build reads inputs and writes the index to path (temp file + rename).
func Build(ctx context.Context, path string, opts Options, inputs ...Input) (Summary, error) {
	panic("unimplemented")
}

// ReadRecords streams the cleaned, de-duplicated records of inputs to fn in
// input order (first occurrence of a UUID wins).
func ReadRecords(ctx context.Context, fn func(*format.Record) error, inputs ...Input) (format.Skipped, error) {
	panic("unimplemented")
}

// Package indexer builds stationdex index files from Radio Browser dumps.
//
// A build runs in three passes. Read: every input is streamed (JSON array or
// NDJSON, plain or gzip), each record cleaned into a compact format.Record
// and de-duplicated by UUID; only the cleaned records are kept. Order: the
// records are sorted into presentation order, which assigns the record
// numbers (see package format). Write: posting lists are collected per
// bucket and written, keys ascending, into a temporary bbolt file that is
// renamed into place only when complete.
//
// The cleaning rules, field by field, are in clean.go; every limit they
// apply is an exported constant.
package indexer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
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
	// Warnings receives one line per malformed input record, at most
	// MaxWarnings of them. nil: silent (the summary still counts them).
	Warnings io.Writer
	// BaseURL is the public base URL the stations' URLs in the stored data
	// dumps are built on; "": DefaultBaseURL. Give the address the index
	// will be served at, and the server serves the stored dumps as they
	// are instead of rewriting them once for its own base URL.
	BaseURL string
}

// DefaultSource names the upstream directory.
const DefaultSource = "Radio Browser (radio-browser.info)"

// Summary reports a finished build.
type Summary struct {
	Stations   int
	Skipped    format.Skipped
	SnapshotAt time.Time
	Read       int // input records seen, indexed or skipped
}

// Sentinel errors of a build.
var (
	// ErrNoStations: the inputs hold no indexable station; an empty index
	// is never what was meant.
	ErrNoStations = errors.New("no stations in the input")
	// ErrNoSnapshotTime: Options.SnapshotAt is zero and no record has a
	// check or change time to take it from.
	ErrNoSnapshotTime = errors.New("no check or change time in the records; give the snapshot time explicitly")
)

// Build reads inputs and writes the index to path (temp file + rename).
// Same inputs and options give an index with the same contents. On error
// nothing is left at path that was not there before.
func Build(ctx context.Context, path string, opts Options, inputs ...Input) (Summary, error) {
	ix, sum, err := readIndex(ctx, opts, inputs)
	if err != nil {
		return sum, err
	}
	ix.finish()
	ix.baseURL = strings.TrimSuffix(opts.BaseURL, "/")
	if ix.baseURL == "" {
		ix.baseURL = DefaultBaseURL
	}
	meta := ix.meta(sum, sourceName(opts))
	progressf(opts.Progress, "writing %s: %d stations, %d tokens\n", path, sum.Stations, meta.Tokens)
	if err := ix.write(ctx, path, meta); err != nil {
		return sum, err
	}
	progressf(opts.Progress, "done\n")
	return sum, nil
}

// readIndex reads every input into a new index and settles the snapshot
// time.
func readIndex(ctx context.Context, opts Options, inputs []Input) (*index, Summary, error) {
	rr := newRecordReader()
	rr.warn = opts.Warnings
	rr.progress = func(n int) { progressf(opts.Progress, "read %d records\n", n) }
	ix := newIndex()
	err := rr.readAll(ctx, func(r *format.Record) error {
		ix.add(r)
		return nil
	}, inputs...)
	sum := Summary{Stations: len(ix.recs), Skipped: rr.skipped, Read: rr.read}
	switch {
	case err != nil:
		return nil, sum, err
	case sum.Stations == 0:
		return nil, sum, ErrNoStations
	}
	progressf(opts.Progress, "read %d records, %d stations\n", rr.read, sum.Stations)
	sum.SnapshotAt = opts.SnapshotAt.UTC()
	if opts.SnapshotAt.IsZero() {
		if rr.newest.IsZero() {
			return nil, sum, ErrNoSnapshotTime
		}
		sum.SnapshotAt = rr.newest
	}
	return ix, sum, nil
}

func sourceName(opts Options) string {
	if opts.Source == "" {
		return DefaultSource
	}
	return opts.Source
}

// ReadRecords streams the cleaned, de-duplicated records of inputs to fn in
// input order (first occurrence of a UUID wins; an occurrence skipped for
// another reason, such as an empty name, does not claim the UUID). These are
// exactly the records Build indexes. fn owns each record it is given and may
// keep it. An error from fn stops reading and is returned.
func ReadRecords(ctx context.Context, fn func(*format.Record) error, inputs ...Input) (format.Skipped, error) {
	rr := newRecordReader()
	err := rr.readAll(ctx, fn, inputs...)
	return rr.skipped, err
}

func progressf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}

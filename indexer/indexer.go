// Package indexer builds stationdex index files from Radio Browser dumps.
//
// A build runs in passes. Its memory is Options.MemoryBudget, plus 4 bytes
// per record, plus a fixed few megabytes (one bbolt transaction of at most
// batchBytesFor, the compressors, the read-ahead of records), however large the
// input:
//
//   - Read: every input is streamed (JSON array or NDJSON, plain or gzip)
//     and each record cleaned into a compact format.Record, which goes into
//     external sorters (package extsort) by name order and by UUID, and
//     its posting lists into a third. Sorters spill sorted runs to a
//     temporary directory when their share of the budget is full.
//   - De-duplicate: the merged UUID order shows every repeated UUID next to
//     its first occurrence, which is the one kept.
//   - Write, into a temporary bbolt file renamed into place only when
//     complete: the merged name order is the stations bucket, and assigns
//     the record numbers (see package format) that the ids and posting
//     buckets are renumbered to as they are merged. The data dumps are
//     written to temporary files on the way and copied in chunks.
//
// The cleaning rules, field by field, are in clean.go; every limit they
// apply is an exported constant.
//
// File map:
//   - indexer.go: this comment; the door: Build, Input, Options, Summary
//     and ReadRecords
//   - input.go: opening an input (a file, standard input or the upstream
//     endpoint) and cutting it into records: JSON array or NDJSON, plain
//     or gzip
//   - decode.go: the fast decoder of one record's JSON into the fields the
//     index uses; what it cannot read is left to encoding/json
//   - clean.go: the cleaning rules, field by field, and the limits they
//     apply
//   - reader.go: recordReader: skipped records counted and warned about,
//     and the UUID de-duplication of ReadRecords
//   - pipeline.go: Build's read pipeline: batches of raw records decoded,
//     cleaned and filed on several goroutines, handed on in input order
//   - index.go: the builder: the external sorters every record is filed
//     in, de-duplication by sorting, the order the buckets are written in,
//     and the stations, ids and meta buckets
//   - postings.go: the posting lists: the keys a record is filed under,
//     buffered, sorted and merged into roaring bitmaps of record numbers
//   - prefix.go: the prefix buckets: a union of a token bucket's lists for
//     every prefix that more than format.PrefixFanout tokens start with
//   - write.go: the index file being written: sorted buckets in
//     transactions of bounded size, pairs made ahead on a goroutine, the
//     rename that puts the file in place, and how a posting list is
//     stored (encode: run containers only where they pay)
//   - dumps.go: the data dumps of the files bucket and the station_json
//     bucket, encoded from the record blocks on goroutines of their own
//   - groups.go: the groups (entries that are one stream or one station):
//     relation keys joined by union-find, members ranked (on the time and
//     rank the ids sorter carries); the groups and group_of buckets
//   - listed_groups.go: the listed_groups and word_groups buckets: the
//     groups among the stations of a directory value or a broad word
//   - genre_labels.go: the genre_labels bucket: each genre's commonest
//     spelling
//   - geo_dictionary.go: the geo bucket (stations by cell of one degree),
//     the nearby bucket (each station's nearest stations, found by
//     package nearby) and the dictionary bucket (the FST of every token,
//     each word's reach), made once the records are numbered
//   - facetmemo.go: the facet_memo bucket: which lists and pairs of lists
//     are memoised, counted on every core
//   - facetvalues.go: what the facet memo counts with: the counted
//     facets' values numbered, and each record's values
//   - upstream.go: the Radio Browser API's station objects: made from the
//     raw records, their posting keys, and spilled to a temporary file
//     while the stations bucket is written
//   - upstream_orders.go: the upstream_orders bucket: the spilled objects
//     sorted into the Radio Browser API's orders, stored as permutations;
//     and the search_orders bucket, the search's popular and bitrate
//     orders, from each record's votes, clicks and bitrate
//   - demo_build.go: BuildDemo, the index of the embedded demo snapshot
package indexer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"stationdex/internal/format"
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
	// MemoryBudget bounds, in bytes, what the build buffers before it
	// spills sorted runs to TempDir; 0: DefaultMemoryBudget. The build
	// also holds 4 bytes per record and the Go runtime's own overhead.
	MemoryBudget int
	// TempDir is where runs and the dumps are spilled during the build;
	// "": the output file's directory, which also holds the temporary
	// index file. Spilled data is about the size of the index.
	TempDir string
	// Sections are the optional parts of the file to write, declared in
	// its meta document (format.Sections). format.SectionRBAPI, what
	// the Radio Browser API under /json/ reads (each station's upstream
	// object and the postings of its filters), about doubles the file
	// and adds about a third to the build time (real snapshot: 75 ->
	// 146 MB, 1.6 -> 2.2 s), so none is written by default.
	Sections format.Sections
}

// DefaultMemoryBudget is the default of Options.MemoryBudget, and
// MinMemoryBudget the least a build uses whatever it is given.
//
// The default is what a build of millions of stations needs to spill few
// runs. At 5M stations a 16 MiB budget spilled hundreds: the posting
// buffers flushed every couple of megabytes, so each key was filed,
// written and merged again many times. From an empty page cache that cost
// nothing measurable (the phases up to the postings took 114-118 s under
// either budget, make build-time), but on a machine whose page cache is
// full, as it is after other builds, writing new run files costs the
// kernel's reclaim: there the 16 MiB build took 203 s (profiled), 85 of
// its 342 CPU-seconds system time, and the 128 MiB build 170 s, 43 s
// system time. The peak resident size grew from 1.02 to 1.06 GB. 256 MiB
// gained nothing more, and 1 GiB lost time: the sorts of one buffer, on
// the reading goroutine, then held up the read.
const (
	DefaultMemoryBudget = defaultBudget
	MinMemoryBudget     = minimumBudget
)

// DefaultSource names the upstream directory.
const DefaultSource = "Radio Browser (radio-browser.info)"

// Summary reports a finished build.
type Summary struct {
	Stations   int
	Skipped    format.Skipped
	SnapshotAt time.Time
	Read       int // input records seen, indexed or skipped
	// Phases are the build's steps in the order it waited on them, each
	// with its wall time and the CPU time the process spent meanwhile.
	Phases []Phase
}

// Phase is one step of a build: reading, sorting, or writing some buckets.
// Work a step starts in the background (merging sorted runs, the grouping's
// joins, the data dumps) runs on beside the next steps, and its CPU time
// counts in the steps it overlaps, so the CPU times add up to the build's.
type Phase struct {
	Name string
	Wall time.Duration
	// CPU is the user and system time of the whole process during the
	// phase, every core's: above Wall when more than one core was busy.
	CPU time.Duration
}

// phaseClock times the phases of a build (Summary.Phases).
type phaseClock struct {
	phases []Phase
	name   string // the phase running; "" before the first
	start  time.Time
	cpu    time.Duration
}

// begin ends the phase running, if any, and starts the phase name.
func (c *phaseClock) begin(name string) {
	c.end()
	c.name, c.start, c.cpu = name, time.Now(), processCPU()
}

// end ends the phase running, if any.
func (c *phaseClock) end() {
	if c.name == "" {
		return
	}
	c.phases = append(c.phases, Phase{Name: c.name, Wall: time.Since(c.start), CPU: processCPU() - c.cpu})
	c.name = ""
}

// processCPU is the user and system time the process has used; 0 where it
// cannot be read.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
	tmp, err := os.MkdirTemp(tempDir(opts, path), ".stationdex-build-*")
	if err != nil {
		return Summary{}, fmt.Errorf("temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	b := newBuilder(tmp, opts.MemoryBudget)
	defer b.close()
	b.sections = opts.Sections
	sum, err := read(ctx, b, opts, inputs)
	if err != nil {
		return sum, err
	}
	base := strings.TrimSuffix(opts.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	progressf(opts.Progress, "writing %s: %d stations\n", path, sum.Stations)
	if err := b.write(ctx, path, tmp, meta(sum, sourceName(opts)).WithSections(opts.Sections), base, opts.Progress); err != nil {
		return sum, err
	}
	b.clock.end()
	sum.Phases = b.clock.phases
	progressf(opts.Progress, "done: %d stations, %d tokens\n", sum.Stations, b.keys[bAllTokens])
	return sum, nil
}

func tempDir(opts Options, path string) string {
	if opts.TempDir != "" {
		return opts.TempDir
	}
	if dir := filepath.Dir(path); dir != "" {
		return dir
	}
	return "."
}

// read reads every input into b, de-duplicates, and settles the snapshot
// time.
func read(ctx context.Context, b *builder, opts Options, inputs []Input) (Summary, error) {
	rr := newRecordReader(false)
	rr.warn = opts.Warnings
	rr.sections = opts.Sections
	rr.progress = func(n int) { progressf(opts.Progress, "read %d records\n", n) }
	b.clock.begin("read")
	err := readParallel(ctx, rr, inputs, b.add, b.ps)
	sum := Summary{Skipped: rr.skipped, Read: rr.read}
	b.clock.begin("sort")
	if err == nil {
		err = b.ps.drain()
	}
	if err == nil {
		b.spilled = b.runs()
		b.compactAhead()
	}
	if err == nil {
		err = b.dedup()
	}
	if err == nil {
		b.joinAhead()
	}
	if err != nil {
		return sum, err
	}
	sum.Stations, sum.Skipped.DuplicateUUID = b.kept, b.dups
	if sum.Stations == 0 {
		return sum, ErrNoStations
	}
	progressf(opts.Progress, "read %d records, %d stations\n", rr.read, sum.Stations)
	if b.spilled > 0 {
		progressf(opts.Progress, "spilled %d sorted runs to disk to stay within %d MiB\n", b.spilled, b.budget>>20)
	}
	sum.SnapshotAt = opts.SnapshotAt.UTC()
	if opts.SnapshotAt.IsZero() {
		if b.newest.IsZero() {
			return sum, ErrNoSnapshotTime
		}
		sum.SnapshotAt = b.newest
	}
	return sum, nil
}

// meta describes the index for the meta bucket; the counts of distinct
// keys are filled in once the posting buckets are written.
func meta(sum Summary, source string) format.Meta {
	return format.Meta{
		SchemaVersion: format.SchemaVersion,
		SnapshotAt:    sum.SnapshotAt,
		Source:        source,
		Stations:      sum.Stations,
		Skipped:       sum.Skipped,
		BuiltBy:       builtBy(),
	}
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
	rr := newRecordReader(true)
	err := rr.readAll(ctx, func(r *format.Record, _ time.Time) error { return fn(r) }, inputs...)
	return rr.skipped, err
}

func progressf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}

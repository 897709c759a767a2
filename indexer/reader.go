package indexer

import (
	"context"
	"fmt"
	"io"
	"time"

	"stationdex/internal/format"
)

// MaxWarnings bounds the per-record warnings written during a build: a
// broken dump would otherwise print one line per record. The counts in the
// summary are always complete.
const MaxWarnings = 20

// recordReader cleans the records of several inputs and, when asked to,
// de-duplicates them: the first indexable occurrence of a UUID wins; an
// occurrence skipped for another reason (say, an empty name) does not claim
// the UUID. Build de-duplicates later, by sorting (see builder.dedup), so
// that it needs no set of every UUID in memory.
type recordReader struct {
	seen     map[format.UUID]struct{} // nil: no de-duplication
	skipped  format.Skipped
	read     int       // records seen, kept or not
	warn     io.Writer // nil: silent
	warnings int
	progress func(read int) // called every progressEvery records; may be nil
	// sections: the optional parts of the file whose fields and postings
	// the records are read for (Options.Sections); only readParallel, for
	// Build, reads it.
	sections format.Sections
}

const progressEvery = 10000

func newRecordReader(dedup bool) *recordReader {
	rr := &recordReader{}
	if dedup {
		rr.seen = make(map[format.UUID]struct{})
	}
	return rr
}

// recordFunc receives a cleaned record, which it owns, and the newest of
// its check and change times (zero if it has neither).
type recordFunc func(rec *format.Record, at time.Time) error

// readAll streams every input through the cleaner to fn.
func (rr *recordReader) readAll(ctx context.Context, fn recordFunc, inputs ...Input) error {
	for _, in := range inputs {
		if err := rr.readOne(ctx, in, fn); err != nil {
			return err
		}
	}
	return nil
}

func (rr *recordReader) readOne(ctx context.Context, in Input, fn recordFunc) error {
	var st rawInput
	return readInput(ctx, in, func(pos position, raw []byte) error {
		rr.read++
		if rr.progress != nil && rr.read%progressEvery == 0 {
			rr.progress(rr.read)
		}
		if err := decodeStation(raw, &st, 0); err != nil {
			rr.skip(skipMalformed, in.Name, pos, err.Error())
			return nil
		}
		rec, reason := rr.clean(&st.rawStation)
		if reason != kept {
			rr.skip(reason, in.Name, pos, "")
			return nil
		}
		return fn(&rec, newestTime(&st.rawStation))
	})
}

// clean applies cleanStation and, if the reader de-duplicates, the
// duplicate rule.
func (rr *recordReader) clean(st *rawStation) (format.Record, skipReason) {
	rec, reason := cleanStation(st)
	if reason != kept || rr.seen == nil {
		return rec, reason
	}
	if _, dup := rr.seen[rec.ID]; dup {
		return rec, skipDuplicateUUID
	}
	rr.seen[rec.ID] = struct{}{}
	return rec, kept
}

// skip counts a skipped record and warns about malformed ones, which point
// at a broken input rather than at a quirk of the directory.
func (rr *recordReader) skip(reason skipReason, input string, pos position, detail string) {
	reason.count(&rr.skipped)
	if reason != skipMalformed || rr.warn == nil {
		return
	}
	rr.warnings++
	switch {
	case rr.warnings <= MaxWarnings:
		fmt.Fprintf(rr.warn, "warning: input %s %s: skipped, %s: %s\n", input, pos, reason, detail)
	case rr.warnings == MaxWarnings+1:
		fmt.Fprintf(rr.warn, "warning: more malformed records; see the summary for the count\n")
	}
}

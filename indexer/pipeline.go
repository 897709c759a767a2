package indexer

import (
	"context"
	"runtime"
	"time"

	"stationdex/indexer/format"
)

// The read pipeline of Build. Decoding the JSON of a record and cleaning it
// cost more than anything else in a build (about half of its CPU time on
// the real snapshot) and do not depend on other records, so they run on
// several goroutines; reading the input (inflating it, cutting records)
// runs on one, and filing records in the sorters on the caller's. Records
// reach add, and skips are counted and warned about, in input order, so
// the result is the same whatever the scheduling.
//
//	reader --batches--> decoders (decodeWorkers) --\
//	      \--same batches, in order--------------- consumer: account, add
const (
	pipeBatch   = 128 // records per batch
	pipeQueued  = 8   // batches in flight: bounds the memory of the pipeline
	maxDecoders = 4
)

// rawBatch is a run of raw records of one input, in input order, and,
// once done is closed, what decoding made of them.
type rawBatch struct {
	input string
	pos   []position
	raw   [][]byte // nil: a record over maxLineBytes, handed on as malformed
	data  []byte   // raw's backing bytes
	out   []decoded
	done  chan struct{}
}

// decoded is one record after decoding and cleaning: kept (rec, at) or
// skipped for reason.
type decoded struct {
	rec    format.Record
	at     time.Time
	reason skipReason
	detail string
}

func newRawBatch(input string) *rawBatch {
	return &rawBatch{input: input, done: make(chan struct{})}
}

func (b *rawBatch) add(pos position, raw []byte) {
	b.pos = append(b.pos, pos)
	if raw == nil {
		b.raw = append(b.raw, nil)
		return
	}
	start := len(b.data)
	b.data = append(b.data, raw...)
	b.raw = append(b.raw, b.data[start:len(b.data):len(b.data)])
}

// decode decodes and cleans every record of b. Slices of data are re-cut
// here because data may have moved while it grew.
func (b *rawBatch) decode() {
	defer close(b.done)
	b.recut()
	b.out = make([]decoded, len(b.raw))
	var st rawStation
	for i, raw := range b.raw {
		d := &b.out[i]
		if err := decodeStation(raw, &st); err != nil {
			d.reason, d.detail = skipMalformed, err.Error()
			continue
		}
		d.rec, d.reason = cleanStation(&st)
		if d.reason == kept {
			d.at = newestTime(&st)
		}
	}
}

// recut points raw into the final data: add kept offsets in the capacity
// of the slices it made, which may be of an older backing array.
func (b *rawBatch) recut() {
	off := 0
	for i, r := range b.raw {
		if r != nil {
			b.raw[i] = b.data[off : off+len(r) : off+len(r)]
			off += len(r)
		}
	}
}

// readParallel reads inputs through the pipeline and hands every kept
// record to add, in input order; rr counts and warns about the skipped.
func readParallel(ctx context.Context, rr *recordReader, inputs []Input, add recordFunc) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan *rawBatch, pipeQueued)
	ordered := make(chan *rawBatch, pipeQueued)
	for range min(max(runtime.GOMAXPROCS(0), 1), maxDecoders) {
		go func() {
			for b := range work {
				b.decode()
			}
		}()
	}
	var readErr error
	go func() {
		defer close(ordered)
		defer close(work)
		readErr = readBatches(ctx, inputs, func(b *rawBatch) bool {
			select {
			case ordered <- b: // first: the consumer waits on b in order
			case <-ctx.Done():
				return false
			}
			select {
			case work <- b:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()
	addErr := consume(ctx, rr, ordered, add, cancel)
	for range ordered { // after an error: let the reader finish
	}
	if addErr != nil {
		return addErr
	}
	if readErr == nil {
		readErr = ctx.Err()
	}
	return readErr
}

// readBatches cuts every input into batches and sends them; send reports
// false when the pipeline stopped.
func readBatches(ctx context.Context, inputs []Input, send func(*rawBatch) bool) error {
	for _, in := range inputs {
		b := newRawBatch(in.Name)
		err := readInput(ctx, in, func(pos position, raw []byte) error {
			b.add(pos, raw)
			if len(b.raw) < pipeBatch {
				return nil
			}
			if !send(b) {
				return ctx.Err()
			}
			b = newRawBatch(in.Name)
			return nil
		})
		if err != nil {
			return err
		}
		if len(b.raw) > 0 && !send(b) {
			return ctx.Err()
		}
	}
	return nil
}

// consume takes the batches in input order, waits for each to be decoded,
// and accounts for and adds its records.
func consume(ctx context.Context, rr *recordReader, ordered <-chan *rawBatch, add recordFunc, cancel func()) error {
	for b := range ordered {
		select {
		case <-b.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		for i := range b.out {
			d := &b.out[i]
			rr.read++
			if rr.progress != nil && rr.read%progressEvery == 0 {
				rr.progress(rr.read)
			}
			if d.reason != kept {
				rr.skip(d.reason, b.input, b.pos[i], d.detail)
				continue
			}
			rec := d.rec
			if err := add(&rec, d.at); err != nil {
				cancel()
				return err
			}
		}
	}
	return nil
}

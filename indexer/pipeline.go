package indexer

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
)

// The read pipeline of Build. Decoding the JSON of a record, cleaning it
// and working out its keys (folding, tokenising, encoding) cost more than
// anything else in a build (about half of its CPU time on the real
// snapshot) and do not depend on other records, so they run on several
// goroutines; reading the input (inflating it, cutting records) runs on
// one, and filing records in the sorters on the caller's. The decoders
// also file the postings, each in posting maps of its own (postingFilers):
// a record's temporary number is its place in the input, known before
// the consumer gets to it. Records reach add, and skips are counted and
// warned about, in input order, so the result is the same whatever the
// scheduling.
//
//	reader --batches--> decoders: decode, file postings --\
//	      \--same batches, in order---------------------- consumer: account, add
//
// pipeQueued bounds the batches in flight, and so the memory of the
// pipeline (about 300 KB a batch). It is a few times what keeps the
// decoders busy on average: now and then the consumer stops to write a
// sorted run (sorting and writing megabytes, tens of milliseconds), and
// with 8 batches queued the decoders caught up within about 10 ms and then
// idled, leaving a fifth of the two cores unused during the read. With 32,
// the read of 1M stations took 8.0-8.6 s instead of 9.6-9.7 s, the cores
// idle 12% of it instead of 22%.
const (
	pipeBatch   = 128 // records per batch
	pipeQueued  = 32  // batches in flight
	maxDecoders = 4
)

// rawBatch is a run of raw records of one input, in input order, and,
// once done is closed, what decoding made of them.
type rawBatch struct {
	input string
	first int64 // the records of the inputs before this batch's first
	pos   []position
	raw   [][]byte // nil: a record over maxLineBytes, handed on as malformed
	data  []byte   // raw's backing bytes
	out   []decoded
	done  chan struct{}
	err   error // filing the postings failed (decode)

	// The filings' buffers (see file), kept for the batch's next use.
	filed    []byte
	postings []postingKey
}

// decoded is one record after decoding and cleaning: kept (rec, at, f) or
// skipped for reason.
type decoded struct {
	rec    format.Record
	pop    format.Popularity // the upstream's votes and clicks (search_orders)
	up     stationjson.Upstream
	at     time.Time
	f      filing
	reason skipReason
	detail string
}

// filing is what builder.add needs of a record besides the record: its
// name-order key (format.NameOrder.AppendKey), its encoding (format.
// AppendRecord) and its posting keys. They depend on the record alone, so
// they are made here, on the decoding goroutines, leaving the builder's
// goroutine, which the whole read waits on, only the filing itself.
type filing struct {
	order    []byte
	record   []byte
	postings []postingKey
	// stream and station are the relation keys (relationKeys), empty
	// for a relation the record is not in.
	stream, station []byte
	// upstream is the station's upstream object, stored form
	// (stationjson.Upstream.AppendStored); empty without format.SectionRBAPI.
	upstream []byte
	// pop is what the popular order sorts by (search_orders.go).
	pop format.Popularity
}

// filingsAdder is how readParallel hands on a kept record, with its
// temporary number (rawBatch.temporary).
type filingsAdder func(t uint32, rec *format.Record, f *filing, at time.Time) error

// newRawBatch makes an empty batch with room for pipeBatch records of
// dataHint bytes in all: the size of the batch before it, so that a batch
// is copied into its buffer once instead of growing through it.
func newRawBatch(input string, dataHint int) *rawBatch {
	return &rawBatch{
		input: input, done: make(chan struct{}),
		pos:  make([]position, 0, pipeBatch),
		raw:  make([][]byte, 0, pipeBatch),
		data: make([]byte, 0, min(dataHint+dataHint/8, maxBatchHint)),
	}
}

// maxBatchHint bounds the room a batch reserves from its predecessor's
// size, so that one batch of huge records does not make every later one
// reserve as much; a batch that grew past it is not recycled either.
const maxBatchHint = 4 << 20

// batchPool recycles batches once their records are added. A batch's
// buffers (raw records, decoded records, filings) were most of what
// reading allocates, and allocating them afresh for every batch made
// garbage collection a large part of the read. Its room covers every
// batch in flight: queued, decoding, being read and being consumed.
type batchPool chan *rawBatch

func newBatchPool() batchPool { return make(batchPool, pipeQueued+maxDecoders+2) }

// get returns an empty batch of input: a recycled one, or a new one with
// room for dataHint bytes of records.
func (p batchPool) get(input string, dataHint int) *rawBatch {
	select {
	case b := <-p:
		b.input, b.done, b.err = input, make(chan struct{}), nil
		b.pos, b.raw, b.data = b.pos[:0], b.raw[:0], b.data[:0]
		return b
	default:
		return newRawBatch(input, dataHint)
	}
}

// put recycles b, whose records must all have been added.
func (p batchPool) put(b *rawBatch) {
	if cap(b.data) > maxBatchHint {
		return
	}
	select {
	case p <- b:
	default:
	}
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

// decode decodes, cleans and files every record of b, its postings in pb
// (nil: not filed). Slices of data are re-cut here because data may have
// moved while it grew.
func (b *rawBatch) decode(k *postingKeyer, pb *postingBuffer) {
	defer close(b.done)
	b.recut()
	if cap(b.out) < len(b.raw) {
		b.out = make([]decoded, len(b.raw))
	} else {
		b.out = b.out[:len(b.raw)]
		clear(b.out) // a recycled batch's
	}
	var st rawInput
	for i, raw := range b.raw {
		d := &b.out[i]
		if err := decodeStation(raw, &st, k.sections); err != nil {
			d.reason, d.detail = skipMalformed, err.Error()
			continue
		}
		d.rec, d.reason = cleanStation(&st.rawStation)
		if d.reason == kept {
			d.at = newestTime(&st.rawStation)
			d.pop = format.Popularity{Votes: st.Votes, Clicks: st.ClickCount}
			if k.sections.Has(format.SectionRBAPI) {
				d.up = upstreamOf(d.rec.ID, &st)
			}
		}
	}
	b.file(k)
	if pb != nil {
		b.err = b.filePostings(pb)
	}
}

// filePostings files the postings of b's kept records in pb. A decoding
// goroutine gets batches in input order, so its numbers increase, as pb
// requires.
func (b *rawBatch) filePostings(pb *postingBuffer) error {
	for i := range b.out {
		if b.out[i].reason != kept {
			continue
		}
		t, err := b.temporary(i)
		if err != nil {
			return err
		}
		if err := pb.addStation(t, b.out[i].f.postings); err != nil {
			return err
		}
	}
	return nil
}

// temporary is the temporary number of b's i-th record: its place among
// every input's records, so that the decoding goroutines number records
// as the consumer does, without waiting for it.
func (b *rawBatch) temporary(i int) (uint32, error) {
	if t := b.first + int64(i); t < maxTemporaryCount {
		return uint32(t), nil
	}
	return 0, fmt.Errorf("more than %d records: split the input", int64(maxTemporaryCount))
}

// file makes the filings of the kept records of b, in two buffers for the
// whole batch rather than three allocations a record. The slices are cut
// once both buffers are complete, since they may move while they grow.
func (b *rawBatch) file(k *postingKeyer) {
	type ends struct{ order, record, postings, stream, station, upstream int }
	end := make([]ends, len(b.out))
	data, postings := b.filed[:0], b.postings[:0]
	for i := range b.out {
		d := &b.out[i]
		if d.reason != kept {
			continue
		}
		o := k.nameOrder(&d.rec)
		data = o.AppendKey(data)
		end[i].order = len(data)
		data = format.AppendRecord(data, &d.rec)
		end[i].record = len(data)
		data, end[i].stream, end[i].station = relationKeys(data, &d.rec, o)
		rbapi := k.sections.Has(format.SectionRBAPI)
		if rbapi {
			data = d.up.AppendStored(data)
		}
		end[i].upstream = len(data)
		postings = k.postingKeys(postings, &d.rec, o)
		if rbapi {
			postings = upstreamKeys(postings, &d.up)
			postings = k.nameGramKeys(postings, o.Folded)
			d.up = stationjson.Upstream{} // its strings are garbage once encoded
		}
		end[i].postings = len(postings)
	}
	start := ends{}
	for i := range b.out {
		if b.out[i].reason != kept {
			continue
		}
		e := end[i]
		b.out[i].f = filing{
			order:    data[start.upstream:e.order:e.order],
			record:   data[e.order:e.record:e.record],
			postings: postings[start.postings:e.postings:e.postings],
			stream:   data[e.record:e.stream:e.stream],
			station:  data[e.stream:e.station:e.station],
			upstream: data[e.station:e.upstream:e.upstream],
			pop:      b.out[i].pop,
		}
		start = e
	}
	b.filed, b.postings = data, postings
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
// record to add, in input order, its postings filed in ps; rr counts and
// warns about the skipped.
func readParallel(ctx context.Context, rr *recordReader, inputs []Input, add filingsAdder, ps *postingFilers) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan *rawBatch, pipeQueued)
	ordered := make(chan *rawBatch, pipeQueued)
	for _, pb := range ps.split(min(max(runtime.GOMAXPROCS(0), 1), maxDecoders)) {
		go func() {
			k := newPostingKeyer()
			k.sections = rr.sections
			for b := range work {
				b.decode(k, pb)
			}
		}()
	}
	pool := newBatchPool()
	var readErr error
	go func() {
		defer close(ordered)
		defer close(work)
		readErr = readBatches(ctx, inputs, pool, func(b *rawBatch) bool {
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
	addErr := consume(ctx, rr, ordered, pool, add, cancel)
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
func readBatches(ctx context.Context, inputs []Input, pool batchPool, send func(*rawBatch) bool) error {
	var records int64
	for _, in := range inputs {
		b := pool.get(in.Name, 0)
		b.first = records
		err := readInput(ctx, in, func(pos position, raw []byte) error {
			b.add(pos, raw)
			records++
			if len(b.raw) < pipeBatch {
				return nil
			}
			if !send(b) {
				return ctx.Err()
			}
			b = pool.get(in.Name, len(b.data))
			b.first = records
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
// accounts for and adds its records, and recycles it into pool.
func consume(ctx context.Context, rr *recordReader, ordered <-chan *rawBatch, pool batchPool, add filingsAdder, cancel func()) error {
	for b := range ordered {
		select {
		case <-b.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if b.err != nil {
			cancel()
			return b.err
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
			t, err := b.temporary(i)
			if err == nil {
				err = add(t, &d.rec, &d.f, d.at)
			}
			if err != nil {
				cancel()
				return err
			}
		}
		pool.put(b)
	}
	return nil
}

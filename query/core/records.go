package core

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
)

// recordReader finds encoded records by number in the stations bucket. It
// keeps the block it looked up last, so a page of neighbouring records costs
// one bbolt lookup. What it returns points into the memory map and is valid
// only inside the read transaction.
type RecordReader struct {
	Stations ValueGetter
	Blocks   [][]byte // the bucket's blocks by number, when located (see blockLocator)
	block    uint32
	data     []byte // value of block; nil before the first lookup
	key      []byte // scratch for the block's key: a search lends its own
}

// valueGetter is a bucket read by key: a bbolt Bucket, or a search's
// openBucket.
type ValueGetter interface {
	Get(key []byte) []byte
}

func NewRecordReader(tx *bolt.Tx) RecordReader {
	return RecordReader{Stations: tx.Bucket(format.BucketStations)}
}

// blockLocator is where the blocks of a record bucket (stations,
// station_json, group_of) lie in the mapping, by block number: a page of a filtered
// search touches a different block per station, and each cost a descent of
// the bucket's tree, through pages that are rarely in cache. It is read
// once, in key order, and used only when the keys are exactly the block
// numbers 0, 1, 2, ...; otherwise searches keep descending the tree.
type blockLocator struct {
	once   sync.Once
	blocks [][]byte
}

// blockBuckets are the buckets located, in Index.blocks' order.
var blockBuckets = [len(Index{}.blocks)][]byte{format.BucketStations, format.BucketStationJSON, format.BucketGroupOf, format.BucketRBAPIJSON}

// blocksOf returns the blocks of bucket by number, or nil (not a record
// bucket, or keys not as expected). The values point into the mapping,
// which lives as long as the index.
func (s *Search) blocksOf(bucket []byte) [][]byte {
	return s.Index.blocksOf(bucket, func() func() (k, v []byte) { return pairs(s.Bucket(bucket)) })
}

// blocksOf is the blocks of bucket, located on first use by reading the
// pairs that open gives.
func (ix *Index) blocksOf(bucket []byte, open func() func() (k, v []byte)) [][]byte {
	for i, name := range blockBuckets {
		if string(name) == string(bucket) {
			l := &ix.blocks[i]
			l.once.Do(func() { l.blocks = ReadBlocks(open()) })
			return l.blocks
		}
	}
	return nil
}

// locateFromTree fills the block locators of the buckets whose blocks the
// verification found and found all large (pagetree.Tree.Large), from the
// positions it noted: the first search then reads no leaf page for a
// block's key, which at 5M stations was 4,883 page faults a bucket, a
// quarter of a second of the first answer. Other buckets are located on
// first use, as before.
func (ix *Index) locateFromTree() {
	for i, name := range blockBuckets {
		spans, all := ix.Tree.Large(string(name))
		if !all {
			continue
		}
		blocks := make([][]byte, len(spans))
		for j, sp := range spans {
			if len(sp.Key) != 4 || binary.BigEndian.Uint32(sp.Key) != uint32(j) {
				blocks = nil // not numbered as ReadBlocks wants: searches descend the tree
				break
			}
			blocks[j] = ix.Tree.At(sp.Off, sp.Len)
		}
		if blocks != nil {
			l := &ix.blocks[i]
			l.once.Do(func() { l.blocks = blocks })
		}
	}
}

// located is a reader of record bucket bucket (one of blockBuckets) in
// tx through the index's block locator, for code that reads records
// outside a search.
func (ix *Index) Located(tx *bolt.Tx, bucket []byte) RecordReader {
	b := tx.Bucket(bucket)
	if b == nil {
		return RecordReader{Stations: missingBucket{}}
	}
	return RecordReader{Stations: b, Blocks: ix.blocksOf(bucket, func() func() (k, v []byte) {
		c, first := b.Cursor(), true
		return func() ([]byte, []byte) {
			if first {
				first = false
				return c.First()
			}
			return c.Next()
		}
	})}
}

// missingBucket is a bucket the file lacks: every block is missing, which
// recordReader reports as damage.
type missingBucket struct{}

func (missingBucket) Get([]byte) []byte { return nil }

// readBlocks reads a record bucket's pairs, first to last, from next
// (nil key: no more); nil unless its keys are the block numbers from 0
// without a gap. A damaged mapping panics, which the search's guard turns
// into an error; the locator then stays empty and lookups descend the tree.
func ReadBlocks(next func() (k, v []byte)) [][]byte {
	var blocks [][]byte
	for k, v := next(); k != nil; k, v = next() {
		if len(k) != 4 || binary.BigEndian.Uint32(k) != uint32(len(blocks)) {
			return nil
		}
		blocks = append(blocks, v)
	}
	return blocks
}

// pairs steps through an open bucket from its first pair.
func pairs(b *openBucket) func() (k, v []byte) {
	first := true
	return func() (k, v []byte) {
		switch {
		case !b.OK:
			return nil, nil
		case first:
			first = false
			return b.Cur.Seek(nil)
		}
		return b.Cur.Next()
	}
}

func (rr *RecordReader) Get(n uint32) ([]byte, error) {
	b, slot := format.BlockOf(n)
	if rr.data == nil || b != rr.block {
		if rr.Blocks != nil {
			rr.data = nil
			if int64(b) < int64(len(rr.Blocks)) {
				rr.data = rr.Blocks[b]
			}
		} else {
			rr.key = binary.BigEndian.AppendUint32(rr.key[:0], b) // format.BlockKey, in place
			rr.data = rr.Stations.Get(rr.key)
		}
		rr.block = b
		if rr.data == nil {
			return nil, fmt.Errorf("%w: record %d: block %d missing", format.ErrCorrupt, n, b)
		}
	}
	rec, err := format.BlockRecord(rr.data, slot)
	if err != nil {
		return nil, fmt.Errorf("record %d: %w", n, err)
	}
	return rec, nil
}

// decodeRecord decodes record n into r, which owns its memory afterwards.
func DecodeRecord(stations ValueGetter, n uint32, r *format.Record) error {
	rr := RecordReader{Stations: stations}
	return rr.decode(n, r)
}

// decode decodes record n into r, which owns its memory afterwards.
func (rr *RecordReader) decode(n uint32, r *format.Record) error {
	v, err := rr.Get(n)
	if err != nil {
		return err
	}
	if err := format.DecodeRecord(v, r); err != nil {
		return fmt.Errorf("record %d: %w", n, err)
	}
	return nil
}

// decodeRecords decodes the records numbered in recs. All their bytes are
// copied into one buffer and their lists share one backing, so a page
// costs a handful of allocations whatever its stations hold.
func DecodeRecords(rr RecordReader, recs []uint32, scratch [][]byte) ([]format.Record, [][]byte, error) {
	raw := scratch[:0]
	size := 0
	for _, n := range recs {
		v, err := rr.Get(n)
		if err != nil {
			return nil, raw, err
		}
		raw = append(raw, v)
		size += len(v)
	}
	owned := make([]byte, size)
	out := make([]format.Record, len(recs))
	var spare []string
	for i, v := range raw {
		buf := owned[:len(v):len(v)]
		owned = owned[len(v):]
		copy(buf, v)
		var err error
		if spare, err = format.DecodeOwned(buf, &out[i], spare); err != nil {
			return nil, raw, fmt.Errorf("record %d: %w", recs[i], err)
		}
	}
	clear(raw) // no pointers into the map may outlive the transaction
	return out, raw, nil
}

// The JSON API's read path. The index stores every station's API JSON
// (format.BucketStationJSON, the base URL left as format.BaseURLMark), so
// the API copies a page's stations out of the memory map instead of
// decoding records (DecodeOwned: strings, lists, a Record each) and
// encoding them again per request. The caller splices its base URL in
// (stationjson.Splice) while copying the bytes into its response.

// copyPageJSON appends the stored JSON of the collected records to dst.
// Consecutive records share a block, so a page costs a lookup per block
// and a copy per station.
func (s *Search) copyPageJSON(dst []byte, km []float64) ([]byte, error) {
	rr := s.Records(format.BucketStationJSON)
	for i, n := range s.Work.recs {
		js, err := rr.Get(n)
		if err != nil {
			return dst, fmt.Errorf("station JSON: %w", err)
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		if i < len(km) && len(js) > 0 && js[len(js)-1] == '}' {
			dst = appendDistance(append(dst, js[:len(js)-1]...), km[i])
			continue
		}
		dst = append(dst, js...)
	}
	return dst, nil
}

// StationJSON appends the stored JSON of the station id to dst (see
// SearchJSON); ErrNotFound when absent.
func (ix *Index) StationJSON(id format.UUID, dst []byte) ([]byte, error) {
	err := ix.View(func(tx *bolt.Tx) error {
		n, err := RecordOf(tx.Bucket(format.BucketIDs), id)
		if err != nil {
			return err
		}
		rr := jsonReader(tx)
		js, err := rr.Get(n)
		if err != nil {
			return fmt.Errorf("station %s: JSON: %w", id, err)
		}
		// As Station checks the record's id: the ids bucket and the
		// JSON must name the same station.
		if want := `{"id":"` + id.String() + `"`; !bytes.HasPrefix(js, []byte(want)) {
			return fmt.Errorf("station %s: %w: ids bucket points at record %d, whose JSON is of another station", id, format.ErrCorrupt, n)
		}
		dst = append(dst, js...)
		return nil
	})
	return dst, err
}

// jsonReader reads station_json blocks as recordReader reads record
// blocks: the layout is the same, slot for slot.
func jsonReader(tx *bolt.Tx) RecordReader {
	return RecordReader{Stations: tx.Bucket(format.BucketStationJSON)}
}

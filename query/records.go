package query

import (
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/format"
)

// recordReader finds encoded records by number in the stations bucket. It
// keeps the block it looked up last, so a page of neighbouring records costs
// one bbolt lookup. What it returns points into the memory map and is valid
// only inside the read transaction.
type recordReader struct {
	stations valueGetter
	block    uint32
	data     []byte // value of block; nil before the first lookup
	key      []byte // scratch for the block's key: a search lends its own
}

// valueGetter is a bucket read by key: a bbolt Bucket, or a search's
// openBucket.
type valueGetter interface {
	Get(key []byte) []byte
}

func newRecordReader(tx *bolt.Tx) recordReader {
	return recordReader{stations: tx.Bucket(format.BucketStations)}
}

func (rr *recordReader) get(n uint32) ([]byte, error) {
	b, slot := format.BlockOf(n)
	if rr.data == nil || b != rr.block {
		rr.key = binary.BigEndian.AppendUint32(rr.key[:0], b) // format.BlockKey, in place
		rr.data = rr.stations.Get(rr.key)
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
func decodeRecord(stations valueGetter, n uint32, r *format.Record) error {
	rr := recordReader{stations: stations}
	v, err := rr.get(n)
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
func decodeRecords(rr recordReader, recs []uint32, scratch [][]byte) ([]format.Record, [][]byte, error) {
	raw := scratch[:0]
	size := 0
	for _, n := range recs {
		v, err := rr.get(n)
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

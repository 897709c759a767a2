package check

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/query/core"
	"stationdex/query/rbapi"
)

// checkRBAPIOrders: every stored order of the Radio Browser API
// (format.BucketRBAPIOrders) is in chunks numbered from 0, all full
// but the last, and lists every record exactly once, sorted by its
// stored object's sort key and then by record number: what the reader
// walks (package rbapi) without looking again.
func (c *checker) checkRBAPIOrders() error {
	if !c.ix.Has(format.SectionRBAPI) {
		return nil
	}
	if want := len(format.RBAPISorts) * int((c.stations+format.OrderChunkLen-1)/format.OrderChunkLen); c.keys(format.BucketRBAPIOrders) != want {
		return fmt.Errorf("%w: %d upstream order chunks, want %d", format.ErrCorrupt, c.keys(format.BucketRBAPIOrders), want)
	}
	rr := rbapi.Reader(c.tx)
	cur, first := c.tx.Bucket(format.BucketRBAPIJSON).Cursor(), true
	rr.Blocks = core.ReadBlocks(func() ([]byte, []byte) { // located: the walk jumps from block to block
		if first {
			first = false
			return cur.First()
		}
		return cur.Next()
	})
	for s := range format.RBAPISorts {
		if err := c.checkRBAPIOrder(&rr, s); err != nil {
			return fmt.Errorf("upstream order %s: %w", format.RBAPISorts[s].Name, err)
		}
	}
	return nil
}

// checkRBAPIOrder checks the permutation of format.RBAPISorts[s].
func (c *checker) checkRBAPIOrder(rr *core.RecordReader, s int) error {
	b := c.tx.Bucket(format.BucketRBAPIOrders)
	var seen roaring.Bitmap
	var prev, key []byte
	prevN := uint32(0)
	for pos := uint32(0); pos < c.stations; {
		chunk := b.Get(format.RBAPIOrderKey(s, pos/format.OrderChunkLen))
		if want := 4 * min(format.OrderChunkLen, c.stations-pos); len(chunk) != int(want) {
			return fmt.Errorf("%w: chunk of %d bytes at %d, want %d", format.ErrCorrupt, len(chunk), pos, want)
		}
		for i := 0; i < len(chunk); i, pos = i+4, pos+1 {
			n := binary.LittleEndian.Uint32(chunk[i:])
			if n >= c.stations || !seen.CheckedAdd(n) {
				return fmt.Errorf("%w: record %d at %d: out of range or listed twice", format.ErrCorrupt, n, pos)
			}
			js, err := rr.Get(n)
			if err != nil {
				return fmt.Errorf("record %d: %w", n, err)
			}
			if key, err = format.AppendRBAPISortKey(key[:0], js, s); err != nil {
				return fmt.Errorf("%w: record %d: %v", format.ErrCorrupt, n, err)
			}
			if pos > 0 && cmpKeyed(prev, prevN, key, n) >= 0 {
				return fmt.Errorf("%w: record %d at %d sorts before record %d", format.ErrCorrupt, n, pos, prevN)
			}
			prev, key, prevN = key, prev, n
		}
	}
	return nil
}

// cmpKeyed compares two records of an order by sort key, then number.
func cmpKeyed(a []byte, an uint32, b []byte, bn uint32) int {
	return cmp.Or(bytes.Compare(a, b), cmp.Compare(an, bn))
}

// checkRBAPIObjects: the upstream_json bucket has a block for every
// record block, of the same length, and every object is valid JSON of
// its record's station.
func (c *checker) checkRBAPIObjects() error {
	if !c.ix.Has(format.SectionRBAPI) {
		return nil // none to check (Open saw that none is there)
	}
	if j, r := c.keys(format.BucketRBAPIJSON), c.keys(format.BucketStations); j != r {
		return fmt.Errorf("%w: %d upstream blocks for %d record blocks", format.ErrCorrupt, j, r)
	}
	records := core.NewRecordReader(c.tx)
	ups := rbapi.Reader(c.tx)
	var r format.Record
	for n := range c.stations {
		if err := core.DecodeRecord(records.Stations, n, &r); err != nil {
			return fmt.Errorf("record %d: %w", n, err)
		}
		js, err := ups.Get(n)
		if err != nil {
			return fmt.Errorf("upstream object %d: %w", n, err)
		}
		if !rbapi.ObjectOf(js, r.ID) || !json.Valid(stationjson.Splice(nil, js, "")) {
			return fmt.Errorf("%w: station %d (%s): upstream object not valid JSON of its station", format.ErrCorrupt, n, r.ID)
		}
	}
	return nil
}

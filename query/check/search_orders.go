package check

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/RoaringBitmap/roaring/v2"

	"stationdex/internal/format"
	"stationdex/query/rbapi"
)

// checkSearchOrders: every stored order of the search
// (format.BucketSearchOrders) is in chunks numbered from 0, all full but
// the last, and lists every record exactly once, sorted by its key
// (format.SearchSortKey) and then by record number: what the engine
// walks and ranks (query/core's sortedPage) without looking again. The
// bitrate order's key is the record's bitrate; the popular order's, the
// upstream's votes and clicks, which the file keeps only in the Radio
// Browser API's objects: without that section the popular order is
// checked as a permutation only (its keys are not in the file).
func (c *checker) checkSearchOrders() error {
	chunks := int((c.stations + format.OrderChunkLen - 1) / format.OrderChunkLen)
	if want := len(format.SearchSorts) * chunks; c.keys(format.BucketSearchOrders) != want {
		return fmt.Errorf("%w: %d search order chunks, want %d", format.ErrCorrupt, c.keys(format.BucketSearchOrders), want)
	}
	for o := range format.SearchSorts {
		keys, err := c.searchSortKeys(o)
		if err != nil {
			return err
		}
		if err := c.checkSearchOrder(o, keys); err != nil {
			return fmt.Errorf("%w: search order %s: %v", format.ErrCorrupt, format.SearchSorts[o], err)
		}
	}
	return nil
}

// searchSortKeys is each record's key in order o, by record number, or
// nil where the file does not keep it.
func (c *checker) searchSortKeys(o int) ([]uint64, error) {
	keys := make([]uint64, 0, c.stations)
	switch {
	case o == format.SortBitrate:
		for _, kbps := range c.bitrates {
			keys = append(keys, format.SearchSortKey(o, format.Popularity{}, kbps))
		}
	case o == format.SortPopular && c.ix.Has(format.SectionRBAPI):
		ups := rbapi.Reader(c.tx)
		for n := range c.stations {
			js, err := ups.Get(n)
			if err != nil {
				return nil, fmt.Errorf("upstream object %d: %w", n, err)
			}
			votes, err1 := storedCount(js, "votes")
			clicks, err2 := storedCount(js, "clickcount")
			if err := cmp.Or(err1, err2); err != nil {
				return nil, fmt.Errorf("%w: upstream object %d: %v", format.ErrCorrupt, n, err)
			}
			keys = append(keys, format.SearchSortKey(o, format.Popularity{Votes: votes, Clicks: clicks}, 0))
		}
	default:
		return nil, nil
	}
	if len(keys) != int(c.stations) {
		return nil, fmt.Errorf("%w: %d records decoded, meta announces %d", format.ErrCorrupt, len(keys), c.stations)
	}
	return keys, nil
}

// storedCount is the whole number of field name in a stored upstream
// object.
func storedCount(js []byte, name string) (int64, error) {
	raw, ok := format.StoredField(js, name)
	if !ok {
		return 0, fmt.Errorf("no field %s", name)
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("field %s: %q is not a whole number", name, raw)
	}
	return n, nil
}

// checkSearchOrder checks the permutation of format.SearchSorts[o]:
// chunks of the right length, each record once, and, with keys, sorted
// by key and then record number. Its errors say what is wrong, and
// checkSearchOrders which order and that the index is corrupt.
func (c *checker) checkSearchOrder(o int, keys []uint64) error {
	b := c.tx.Bucket(format.BucketSearchOrders)
	var seen roaring.Bitmap
	var prev uint32
	for pos := uint32(0); pos < c.stations; {
		chunk := b.Get(format.SearchOrderKey(nil, o, pos/format.OrderChunkLen))
		if want := 4 * min(format.OrderChunkLen, c.stations-pos); len(chunk) != int(want) {
			return fmt.Errorf("chunk of %d bytes at place %d, want %d", len(chunk), pos, want)
		}
		for i := 0; i < len(chunk); i, pos = i+4, pos+1 {
			n := binary.LittleEndian.Uint32(chunk[i:])
			switch {
			case n >= c.stations:
				return fmt.Errorf("record %d at place %d: only %d stations", n, pos, c.stations)
			case !seen.CheckedAdd(n):
				return fmt.Errorf("record %d at place %d is listed twice", n, pos)
			case keys != nil && pos > 0 && cmp.Or(cmp.Compare(keys[prev], keys[n]), cmp.Compare(prev, n)) >= 0:
				return fmt.Errorf("record %d at place %d sorts before record %d at place %d", n, pos, prev, pos-1)
			}
			prev = n
		}
	}
	return nil
}

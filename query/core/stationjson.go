package core

import (
	"bytes"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
)

// The JSON API's read path. The index stores every station's API JSON
// (format.BucketStationJSON, the base URL left as format.BaseURLMark), so
// the API copies a page's stations out of the memory map instead of
// decoding records (DecodeOwned: strings, lists, a Record each) and
// encoding them again per request. The caller splices its base URL in
// (stationjson.Splice) while copying the bytes into its response.

// SearchJSON is Search for the JSON API: instead of decoding the page's
// records, it appends their stored JSON to dst, in rank order and
// separated by commas (the inside of a JSON array), and returns the
// result, whose Stations is nil, with the extended dst. The bytes are
// copied out of the file: they stay valid after the call.
func (ix *Index) SearchJSON(q Query, dst []byte) (Result, []byte, error) {
	return ix.search(q, &dst)
}

// copyPageJSON appends the stored JSON of the collected records to dst.
// Consecutive records share a block, so a page costs a lookup per block
// and a copy per station.
func (s *search) copyPageJSON(dst []byte) ([]byte, error) {
	rr := s.records(format.BucketStationJSON)
	for i, n := range s.w.recs {
		js, err := rr.get(n)
		if err != nil {
			return dst, fmt.Errorf("station JSON: %w", err)
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, js...)
	}
	return dst, nil
}

// StationJSON appends the stored JSON of the station id to dst (see
// SearchJSON); ErrNotFound when absent.
func (ix *Index) StationJSON(id format.UUID, dst []byte) ([]byte, error) {
	err := ix.view(func(tx *bolt.Tx) error {
		n, err := recordOf(tx.Bucket(format.BucketIDs), id)
		if err != nil {
			return err
		}
		rr := jsonReader(tx)
		js, err := rr.get(n)
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
func jsonReader(tx *bolt.Tx) recordReader {
	return recordReader{stations: tx.Bucket(format.BucketStationJSON)}
}

// checkStationJSON: the station_json bucket has a block for every record
// block, of the same length, and every stored station is exactly
// stationjson.AppendStored of its record. So it is valid JSON of the
// right station (the record was checked against its id), and an index
// whose stored JSON a newer encoder would write differently (a stale
// index) fails here rather than serving the old shape.
func (c *checker) checkStationJSON() error {
	if j, r := c.keys(format.BucketStationJSON), c.keys(format.BucketStations); j != r {
		return fmt.Errorf("%w: %d station JSON blocks for %d record blocks", format.ErrCorrupt, j, r)
	}
	records := c.tx.Bucket(format.BucketStations)
	cur := c.tx.Bucket(format.BucketStationJSON).Cursor()
	var r format.Record
	var want []byte
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		b, err := format.ParseRecordKey(k)
		if err != nil {
			return err
		}
		recs := records.Get(k)
		if recs == nil {
			return fmt.Errorf("%w: station JSON block %d has no record block", format.ErrCorrupt, b)
		}
		n, err := format.BlockLen(v)
		if err != nil {
			return fmt.Errorf("station JSON block %d: %w", b, err)
		}
		if m, err := format.BlockLen(recs); err != nil || m != n {
			return fmt.Errorf("%w: station JSON block %d holds %d stations, its record block %d", format.ErrCorrupt, b, n, m)
		}
		for slot := range n {
			num := b*format.RecordsPerBlock + uint32(slot)
			js, err := format.BlockRecord(v, slot)
			if err != nil {
				return fmt.Errorf("station JSON %d: %w", num, err)
			}
			rec, err := format.BlockRecord(recs, slot)
			if err != nil {
				return fmt.Errorf("record %d: %w", num, err)
			}
			if err := format.DecodeRecord(rec, &r); err != nil {
				return fmt.Errorf("record %d: %w", num, err)
			}
			want = stationjson.AppendStored(want[:0], &r)
			if !bytes.Equal(js, want) {
				return fmt.Errorf("%w: station %d (%s): stored JSON is not its record's", format.ErrCorrupt, num, r.ID)
			}
		}
	}
	return nil
}

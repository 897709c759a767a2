package core

import (
	"bytes"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
)

// The JSON API's read path. The index stores every station's API JSON
// (format.BucketStationJSON, the base URL left as format.BaseURLMark), so
// the API copies a page's stations out of the memory map instead of
// decoding records (DecodeOwned: strings, lists, a Record each) and
// encoding them again per request. The caller splices its base URL in
// (stationjson.Splice) while copying the bytes into its response.

// copyPageJSON appends the stored JSON of the collected records to dst.
// Consecutive records share a block, so a page costs a lookup per block
// and a copy per station.
func (s *Search) copyPageJSON(dst []byte) ([]byte, error) {
	rr := s.records(format.BucketStationJSON)
	for i, n := range s.Work.recs {
		js, err := rr.Get(n)
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

// Package pageparts reads what a station page shows of other stations
// from the parts the indexer stored for it, instead of searching at
// request time: the nearest stations (format.BucketNearby, found by
// package internal/nearby as query/core's Nearby search finds them).
//
// File map:
//   - pageparts.go: Nearby, a station's stored nearest stations
package pageparts

import (
	"encoding/binary"
	"fmt"

	"stationdex/internal/format"
	"stationdex/query/core"
)

// Nearby returns up to k (at most format.NearbyPerStation) stations
// nearest to station self, nearest first, with their distances: the
// stations and order core.Index.Nearby finds, read from the nearby
// bucket. None when self has no coordinates; core.ErrNotFound when it is
// not in the index.
func Nearby(ix *core.Index, self *format.Record, k int) ([]core.NearStation, error) {
	if !self.Geo.Known || k <= 0 {
		return nil, nil
	}
	var out []core.NearStation
	err := ix.WithSearch(func(s *core.Search) error {
		// The search's buckets are read by their concrete type, so that
		// the keys stay on the stack (through core.ValueGetter they would
		// escape).
		v := s.Bucket(format.BucketIDs).Get(self.ID[:])
		if v == nil {
			return core.ErrNotFound
		}
		n, err := format.ParseRecordKey(v)
		if err != nil {
			return err
		}
		block, slot := format.BlockOf(n)
		var key [4]byte
		binary.BigEndian.PutUint32(key[:], block) // format.BlockKey, on the stack
		if v = s.Bucket(format.BucketNearby).Get(key[:]); v == nil {
			return fmt.Errorf("%w: record %d: nearby block %d missing", format.ErrCorrupt, n, block)
		}
		entry, err := format.NearbyEntry(v, slot)
		if err != nil {
			return err
		}
		var recs [format.NearbyPerStation]uint32
		c := min(format.NearbyCount(entry), k)
		for i := range c {
			recs[i] = format.NearbyRecord(entry, i)
		}
		if c == 0 {
			return nil
		}
		stations, _, err := core.DecodeRecords(s.Records(format.BucketStations), recs[:c], nil)
		if err != nil {
			return err
		}
		out = make([]core.NearStation, len(stations))
		lat, lon := self.Geo.LatDeg(), self.Geo.LonDeg()
		for i := range stations {
			g := stations[i].Geo
			out[i] = core.NearStation{Station: stations[i], DistanceKm: format.DistanceKm(lat, lon, g.LatDeg(), g.LonDeg())}
		}
		return nil
	})
	return out, err
}

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
		n, err := core.RecordOf(s.Bucket(format.BucketIDs), self.ID)
		if err != nil {
			return err
		}
		var recs [format.NearbyPerStation]uint32
		c, err := nearbyOf(s.Bucket(format.BucketNearby), n, &recs)
		if err != nil || c == 0 {
			return err
		}
		stations, _, err := core.DecodeRecords(s.Records(format.BucketStations), recs[:min(c, k)], nil)
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

// nearbyOf reads record n's nearest stations into recs and returns how
// many there are.
func nearbyOf(b core.ValueGetter, n uint32, recs *[format.NearbyPerStation]uint32) (int, error) {
	block, slot := format.BlockOf(n)
	var key [4]byte
	binary.BigEndian.PutUint32(key[:], block) // format.BlockKey, on the stack
	v := b.Get(key[:])
	if v == nil {
		return 0, fmt.Errorf("%w: record %d: nearby block %d missing", format.ErrCorrupt, n, block)
	}
	entry, err := format.NearbyEntry(v, slot)
	if err != nil {
		return 0, err
	}
	c := format.NearbyCount(entry)
	for i := range c {
		recs[i] = format.NearbyRecord(entry, i)
	}
	return c, nil
}

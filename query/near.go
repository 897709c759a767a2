package query

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/format"
)

// kmPerDegree is the length of a degree of latitude on format's sphere.
const kmPerDegree = format.EarthRadiusKm * math.Pi / 180

// walkNear calls fn for every station within n.RadiusKm of n's position,
// with its distance. It reads only the cells of the latitude band the
// circle spans and, in each band row, the longitudes it can reach, by one
// cursor seek per row; the exact distance decides.
func walkNear(tx *bolt.Tx, n Near, fn func(p format.GeoPoint, km float64)) error {
	rowLo, rowHi, lonLo, lonHi, all := nearCells(n)
	c := tx.Bucket(format.BucketGeo).Cursor()
	spans := [][2]int{{0, format.GeoLonCells - 1}}
	if !all {
		spans = lonSpans(lonLo, lonHi)
	}
	visit := func(p format.GeoPoint) error {
		if d := format.DistanceKm(n.Lat, n.Lon, p.Geo.LatDeg(), p.Geo.LonDeg()); d <= n.RadiusKm {
			fn(p, d)
		}
		return nil
	}
	for row := rowLo; row <= rowHi; row++ {
		for _, sp := range spans {
			from := format.GeoCellKey(format.GeoCell{Lat: row, Lon: sp[0]})
			to := format.GeoCellKey(format.GeoCell{Lat: row, Lon: sp[1]})
			for k, v := c.Seek(from); k != nil && bytes.Compare(k, to) <= 0; k, v = c.Next() {
				if _, err := format.ParseGeoCellKey(k); err != nil {
					return err
				}
				if err := format.GeoPoints(v, visit); err != nil {
					return fmt.Errorf("geo cell %x: %w", k, err)
				}
			}
		}
	}
	return nil
}

// nearCells is the rows and longitude cells (unwrapped: lonLo may be
// negative, lonHi past 359) that a circle can touch; all says every
// longitude, when the circle reaches a pole or spans the globe.
func nearCells(n Near) (rowLo, rowHi, lonLo, lonHi int, all bool) {
	dLat := n.RadiusKm / kmPerDegree
	latLo, latHi := n.Lat-dLat, n.Lat+dLat
	rowLo = max(int(math.Floor(latLo))+90, 0)
	rowHi = min(int(math.Floor(latHi))+90, format.GeoLatCells-1)
	if latLo <= -90 || latHi >= 90 {
		return rowLo, rowHi, 0, 0, true
	}
	// Along a parallel, a degree of longitude is cos(latitude) degrees of
	// arc: at the band's edge nearest a pole it is shortest, so that edge
	// bounds the longitudes reachable anywhere in the band.
	edge := max(math.Abs(latLo), math.Abs(latHi))
	dLon := dLat / math.Cos(edge*math.Pi/180)
	if dLon >= 180 {
		return rowLo, rowHi, 0, 0, true
	}
	return rowLo, rowHi, int(math.Floor(n.Lon-dLon)) + 180, int(math.Floor(n.Lon+dLon)) + 180, false
}

// lonSpans turns an unwrapped longitude cell range into at most two
// ranges within 0..359.
func lonSpans(lo, hi int) [][2]int {
	const w = format.GeoLonCells
	if hi-lo >= w-1 {
		return [][2]int{{0, w - 1}}
	}
	switch {
	case lo < 0:
		return [][2]int{{0, hi}, {lo + w, w - 1}}
	case hi >= w:
		return [][2]int{{0, hi - w}, {lo, w - 1}}
	}
	return [][2]int{{lo, hi}}
}

// NearStation is a station near another, with its distance.
type NearStation struct {
	Station    format.Record
	DistanceKm float64
}

// nearRadii are the circles Nearby tries in turn, until one holds enough
// stations; the last covers the globe.
var nearRadii = [...]float64{10, 50, 250, 1000, 5000, 20100}

// Nearby returns up to k stations nearest to the station id, nearest
// first (ties in record order), without the station itself; none when it
// has no coordinates.
func (ix *Index) Nearby(id format.UUID, k int) ([]NearStation, error) {
	var out []NearStation
	err := ix.view(func(tx *bolt.Tx) error {
		var self format.Record
		if err := readStation(tx, id, &self); err != nil || !self.Geo.Known || k <= 0 {
			return err
		}
		type hit struct {
			rec uint32
			km  float64
		}
		var hits []hit
		for _, r := range nearRadii {
			hits = hits[:0]
			n := Near{Lat: self.Geo.LatDeg(), Lon: self.Geo.LonDeg(), RadiusKm: r}
			err := walkNear(tx, n, func(p format.GeoPoint, km float64) {
				hits = append(hits, hit{p.Record, km})
			})
			if err != nil {
				return err
			}
			if len(hits) > k { // the station itself is among them
				break
			}
		}
		slices.SortFunc(hits, func(a, b hit) int { return cmp.Or(cmp.Compare(a.km, b.km), cmp.Compare(a.rec, b.rec)) })
		recs := make([]uint32, 0, k+1)
		kms := make([]float64, 0, k+1)
		for _, h := range hits {
			if len(recs) == k+1 {
				break
			}
			recs, kms = append(recs, h.rec), append(kms, h.km)
		}
		stations, _, err := decodeRecords(newRecordReader(tx), recs, nil)
		if err != nil {
			return err
		}
		for i := range stations {
			if stations[i].ID != id && len(out) < k {
				out = append(out, NearStation{Station: stations[i], DistanceKm: kms[i]})
			}
		}
		return nil
	})
	return out, err
}

package core

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"

	"stationdex/internal/format"
	"stationdex/query/pagetree"
)

// kmPerDegree is the length of a degree of latitude on format's sphere.
const kmPerDegree = format.EarthRadiusKm * math.Pi / 180

// walkNear calls fn for every station within n.RadiusKm of n's position,
// with its distance. It reads only the cells of the latitude band the
// circle spans and, in each band row, the longitudes it can reach, by one
// cursor seek per row (c: the geo bucket's, in the page tree); the exact
// distance decides.
func walkNear(c *pagetree.Cursor, n Near, fn func(p format.GeoPoint, km float64)) error {
	rowLo, rowHi, lonLo, lonHi, all := nearCells(n)
	spans := [][2]int{{0, format.GeoLonCells - 1}}
	if !all {
		spans = lonSpans(lonLo, lonHi)
	}
	reach := nearReach(n)
	visit := func(p format.GeoPoint) error {
		if !reach.out(p.Geo) {
			if d := format.DistanceKm(n.Lat, n.Lon, p.Geo.LatDeg(), p.Geo.LonDeg()); d <= n.RadiusKm {
				fn(p, d)
			}
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

// reachBox is the latitudes and longitudes a circle can reach, by the
// bounds nearCells selects cells by: a point outside them is farther than
// the radius, found without the trigonometry of the exact distance (a
// cell of a city holds thousands of stations, and a small circle reaches
// few of them).
type reachBox struct {
	lat, lon, dLat, dLon float64 // dLon < 0: every longitude
}

func nearReach(n Near) reachBox {
	dLat := n.RadiusKm / kmPerDegree
	b := reachBox{lat: n.Lat, lon: n.Lon, dLat: dLat, dLon: -1}
	if latLo, latHi := n.Lat-dLat, n.Lat+dLat; latLo > -90 && latHi < 90 {
		if dLon := dLat / math.Cos(max(math.Abs(latLo), math.Abs(latHi))*math.Pi/180); dLon < 180 {
			b.dLon = dLon
		}
	}
	return b
}

// out reports whether g is surely beyond the circle.
func (b reachBox) out(g format.Geo) bool {
	if math.Abs(g.LatDeg()-b.lat) > b.dLat {
		return true
	}
	d := math.Abs(g.LonDeg() - b.lon)
	return b.dLon >= 0 && min(d, 360-d) > b.dLon
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

// nearest keeps the k nearest points offered, nearest first, ties in
// record order, and counts all: a circle over a city offers thousands.
type nearest struct {
	k    int
	seen int
	hits []nearHit
}

type nearHit struct {
	rec uint32
	km  float64
}

func (n *nearest) reset(k int) { n.k, n.seen, n.hits = k, 0, n.hits[:0] }

func (n *nearest) offer(p format.GeoPoint, km float64) {
	n.seen++
	h := nearHit{p.Record, km}
	less := func(a, b nearHit) int { return cmp.Or(cmp.Compare(a.km, b.km), cmp.Compare(a.rec, b.rec)) }
	if len(n.hits) == n.k && less(h, n.hits[n.k-1]) >= 0 {
		return
	}
	i, _ := slices.BinarySearchFunc(n.hits, h, less)
	if len(n.hits) == n.k {
		n.hits = n.hits[:n.k-1]
	}
	n.hits = slices.Insert(n.hits, i, h)
}

// NearStation is a station near another, with its distance.
type NearStation struct {
	Station    format.Record
	DistanceKm float64
}

// nearRadii are the circles Nearby tries in turn, until one holds enough
// stations; the last covers the globe.
var nearRadii = [...]float64{10, 50, 250, 1000, 5000, 20100}

// Nearby returns up to k stations nearest to station self (as Station
// read it: its page has it already), nearest first (ties in record
// order), without self; none when it has no coordinates.
func (ix *Index) Nearby(self *format.Record, k int) ([]NearStation, error) {
	var out []NearStation
	id := self.ID
	if !self.Geo.Known || k <= 0 {
		return nil, nil
	}
	err := ix.WithSearch(func(s *Search) error {
		var near nearest
		geo := s.Bucket(format.BucketGeo).cursor()
		for _, r := range nearRadii {
			near.reset(k + 1) // the station itself is among them
			n := Near{Lat: self.Geo.LatDeg(), Lon: self.Geo.LonDeg(), RadiusKm: r}
			if err := walkNear(geo, n, near.offer); err != nil {
				return err
			}
			if near.seen > k {
				break
			}
		}
		recs := make([]uint32, len(near.hits))
		kms := make([]float64, len(near.hits))
		for i, h := range near.hits {
			recs[i], kms[i] = h.rec, h.km
		}
		stations, _, err := DecodeRecords(s.Records(format.BucketStations), recs, nil)
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

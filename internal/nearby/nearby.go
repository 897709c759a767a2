// Package nearby finds every station's nearest stations at once: what
// the indexer stores in the nearby bucket (format.BucketNearby) and what
// `stationdex check` finds again to compare. The answer is the one a
// search around each station gives (query/core's Nearby): the k stations
// nearest by format.DistanceKm, ties in record order, the station itself
// left out.
//
// Stations that share a position (many: a city's stations often carry
// the city's coordinates) are one location, with its records in record
// order. A k-d tree over the locations' points on the unit sphere finds,
// for each location, the nearest locations that hold k+1 records between
// them; every location within that chord (and a margin for rounding) is
// then measured by DistanceKm itself, which decides the order, so the
// lists are exact whatever the tree's arithmetic.
//
// File map:
//   - nearby.go: Find, the locations and their lists
//   - tree.go: the k-d tree over the locations, its k-nearest and range
//     queries
package nearby

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"stationdex/internal/format"
)

// Lists are the nearest stations of every station with coordinates.
type Lists struct {
	// Records are the stations with coordinates, ascending.
	Records []uint32
	k       int
	near    []uint32 // k per station, by its index in Records
	count   []uint8
}

// Of is the nearest stations of Records[i], nearest first.
func (l *Lists) Of(i int) []uint32 { return l.near[i*l.k : i*l.k+int(l.count[i])] }

// Find finds the k nearest stations of each of points (each a station's
// record number and position; any order, each record once), on every
// core.
func Find(points []format.GeoPoint, k int) *Lists {
	pts := slices.Clone(points)
	slices.SortFunc(pts, func(a, b format.GeoPoint) int { return cmp.Compare(a.Record, b.Record) })
	l := &Lists{Records: make([]uint32, len(pts)), k: k, near: make([]uint32, len(pts)*k), count: make([]uint8, len(pts))}
	for i, p := range pts {
		l.Records[i] = p.Record
	}
	if k <= 0 || len(pts) == 0 {
		return l
	}
	locs := locate(pts)
	t := newTree(locs)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			f := finder{t: t, locs: locs, pts: pts, l: l}
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= len(locs.lat) {
					return
				}
				for i := lo; i < min(lo+chunk, len(locs.lat)); i++ {
					f.location(i)
				}
			}
		})
	}
	wg.Wait()
	return l
}

// chunk is how many locations a worker takes at a time.
const chunk = 256

// locations are the distinct positions, each with its points (indexes
// into the points sorted by record) in record order.
type locations struct {
	lat, lon []int32
	first    []int32 // into members
	members  []int32 // point indexes, by location then record
	xyz      []float64
}

func locate(pts []format.GeoPoint) *locations {
	order := make([]int32, len(pts))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		pa, pb := pts[a].Geo, pts[b].Geo
		return cmp.Or(cmp.Compare(pa.Lat, pb.Lat), cmp.Compare(pa.Lon, pb.Lon), cmp.Compare(a, b))
	})
	ls := &locations{members: order}
	for i, pi := range order {
		g := pts[pi].Geo
		if i > 0 && pts[order[i-1]].Geo == g {
			continue
		}
		ls.lat, ls.lon = append(ls.lat, g.Lat), append(ls.lon, g.Lon)
		ls.first = append(ls.first, int32(i))
		lat, lon := g.LatDeg()*math.Pi/180, g.LonDeg()*math.Pi/180
		ls.xyz = append(ls.xyz, math.Cos(lat)*math.Cos(lon), math.Cos(lat)*math.Sin(lon), math.Sin(lat))
	}
	ls.first = append(ls.first, int32(len(order)))
	return ls
}

// of is location i's point indexes, in record order.
func (ls *locations) of(i int) []int32 { return ls.members[ls.first[i]:ls.first[i+1]] }

// finder finds the lists of one location at a time, with scratch of its
// own.
type finder struct {
	t     *tree
	locs  *locations
	pts   []format.GeoPoint
	l     *Lists
	knn   []hit
	inR   []int32
	cands []cand
}

type cand struct {
	km  float64
	rec uint32
}

// location fills the lists of every point at location i.
func (f *finder) location(i int) {
	k, ls := f.l.k, f.locs
	// The nearest locations holding k+1 records (the station itself is
	// among them) bound the chord that reaches every candidate.
	f.knn = f.t.nearest(ls.xyz[3*i:3*i+3], k+1, f.knn[:0])
	reach, held := math.Inf(1), 0
	for _, h := range f.knn {
		if held += min(len(ls.of(int(h.loc))), k+1); held >= k+1 {
			reach = math.Sqrt(h.d2)*(1+1e-6) + 1e-9
			break
		}
	}
	f.inR = f.t.within(ls.xyz[3*i:3*i+3], reach*reach, f.inR[:0])
	lat, lon := format.Geo{Lat: ls.lat[i]}.LatDeg(), format.Geo{Lon: ls.lon[i]}.LonDeg()
	f.cands = f.cands[:0]
	for _, j := range f.inR {
		km := format.DistanceKm(lat, lon, format.Geo{Lat: ls.lat[j]}.LatDeg(), format.Geo{Lon: ls.lon[j]}.LonDeg())
		members := ls.of(int(j))
		for _, pi := range members[:min(len(members), k+1)] {
			f.cands = append(f.cands, cand{km, f.pts[pi].Record})
		}
	}
	slices.SortFunc(f.cands, func(a, b cand) int { return cmp.Or(cmp.Compare(a.km, b.km), cmp.Compare(a.rec, b.rec)) })
	best := f.cands[:min(len(f.cands), k+1)]
	for _, pi := range ls.of(i) {
		self := f.pts[pi].Record
		out := f.l.near[int(pi)*k : int(pi)*k+k]
		c := 0
		for _, b := range best {
			if b.rec != self && c < k {
				out[c] = b.rec
				c++
			}
		}
		f.l.count[pi] = uint8(c)
	}
}

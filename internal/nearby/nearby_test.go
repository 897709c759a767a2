package nearby

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"stationdex/internal/format"
)

// bruteForce is the nearest stations of p among points as the search
// finds them: every other point by DistanceKm, ties in record order.
func bruteForce(points []format.GeoPoint, p format.GeoPoint, k int) []uint32 {
	type c struct {
		km  float64
		rec uint32
	}
	var cs []c
	for _, o := range points {
		if o.Record != p.Record {
			cs = append(cs, c{format.DistanceKm(p.Geo.LatDeg(), p.Geo.LonDeg(), o.Geo.LatDeg(), o.Geo.LonDeg()), o.Record})
		}
	}
	slices.SortFunc(cs, func(a, b c) int { return cmp.Or(cmp.Compare(a.km, b.km), cmp.Compare(a.rec, b.rec)) })
	out := []uint32{}
	for _, x := range cs[:min(k, len(cs))] {
		out = append(out, x.rec)
	}
	return out
}

// TestFindIsBruteForce: Find's lists are a linear scan's, over points
// that cluster, share positions (many at one), sit on the poles and the
// antimeridian, and are too few for k.
func TestFindIsBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var sets [][]format.GeoPoint
	for _, n := range []int{0, 1, 2, 4, 6, 50, 800} {
		var pts []format.GeoPoint
		for i := range n {
			var g format.Geo
			switch i % 7 {
			case 0, 1: // a city: many at one position
				g, _ = format.GeoFromDegrees(52.52, 13.405)
			case 2: // around it
				g, _ = format.GeoFromDegrees(52.52+r.NormFloat64()*0.01, 13.405+r.NormFloat64()*0.01)
			case 3: // the antimeridian
				g, _ = format.GeoFromDegrees(r.Float64()*2-1, []float64{180, -180, 179.9999, -179.9999}[r.IntN(4)])
			case 4: // the poles
				g, _ = format.GeoFromDegrees([]float64{90, -90, 89.99999}[r.IntN(3)], r.Float64()*360-180)
			default:
				g, _ = format.GeoFromDegrees(r.Float64()*180-90, r.Float64()*360-180)
			}
			pts = append(pts, format.GeoPoint{Record: uint32(i*3 + 7), Geo: g})
		}
		r.Shuffle(len(pts), func(i, j int) { pts[i], pts[j] = pts[j], pts[i] })
		sets = append(sets, pts)
	}
	for _, pts := range sets {
		for _, k := range []int{1, 5} {
			l := Find(pts, k)
			if len(l.Records) != len(pts) {
				t.Fatalf("%d points: %d records", len(pts), len(l.Records))
			}
			byRec := map[uint32]format.GeoPoint{}
			for _, p := range pts {
				byRec[p.Record] = p
			}
			for i, rec := range l.Records {
				if i > 0 && l.Records[i-1] >= rec {
					t.Fatalf("records not ascending at %d", i)
				}
				want := bruteForce(pts, byRec[rec], k)
				if got := l.Of(i); !slices.Equal(got, want) {
					t.Fatalf("%d points, k %d, record %d: %v, a scan finds %v", len(pts), k, rec, got, want)
				}
			}
		}
	}
}

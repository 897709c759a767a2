package core

import (
	"cmp"
	"slices"
	"testing"

	"stationdex/indexer/realdata"
	"stationdex/internal/format"
	qoracle "stationdex/oracle"
)

// nearbySample is every 37th station of the real snapshot that has
// coordinates, with every station that has them in name order.
func nearbySample(tb testing.TB) (ix *Index, sample []format.Record, byName []format.UUID, geo map[format.UUID]format.Geo) {
	ix, o := realIndex(tb)
	geo = map[format.UUID]format.Geo{}
	for i, r := range real.recs {
		if r.Geo.Known {
			geo[r.ID] = r.Geo
			if i%37 == 0 {
				sample = append(sample, r)
			}
		}
	}
	byName = o.Search(qoracle.Request{Near: &qoracle.Near{Lat: 0, Lon: 0, RadiusKm: 20100}})
	return ix, sample, byName, geo
}

// Nearby agrees with a scan of every station with coordinates: the k
// nearest, nearest first, ties in name order, without the station itself.
func TestNearbyMatchesScanOnRealSnapshot(t *testing.T) {
	ix, sample, byName, geo := nearbySample(t)
	// 200 on the full snapshot; the sample's share of it on the sample
	if len(sample) < 200*realdata.Stations()/realdata.FullStations || len(byName) != len(geo) {
		t.Fatalf("%d sampled, %d stations with coordinates by name, %d in all", len(sample), len(byName), len(geo))
	}
	type hit struct {
		id format.UUID
		at int
		km float64
	}
	for _, self := range sample {
		var hits []hit
		for at, id := range byName {
			if id != self.ID {
				g := geo[id]
				hits = append(hits, hit{id, at, format.DistanceKm(self.Geo.LatDeg(), self.Geo.LonDeg(), g.LatDeg(), g.LonDeg())})
			}
		}
		slices.SortFunc(hits, func(a, b hit) int { return cmp.Or(cmp.Compare(a.km, b.km), cmp.Compare(a.at, b.at)) })
		got, err := ix.Nearby(&self, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != min(5, len(hits)) {
			t.Fatalf("%s: %d nearby, want %d", self.Name, len(got), min(5, len(hits)))
		}
		for i, g := range got {
			if g.Station.ID != hits[i].id || g.DistanceKm != hits[i].km {
				t.Fatalf("%s: nearby %d is %s at %.3f km, want %s at %.3f km", self.Name, i, g.Station.Name, g.DistanceKm, hits[i].id, hits[i].km)
			}
		}
	}
}

// BenchmarkNearby is the nearby block of a station page, over a sample of
// the real snapshot's stations with coordinates (dense cities and empty
// oceans alike).
func BenchmarkNearby(b *testing.B) {
	ix, sample, _, _ := nearbySample(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := ix.Nearby(&sample[i%len(sample)], 5); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

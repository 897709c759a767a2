package core

import (
	"bytes"
	"errors"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"stationdex/internal/format"
	qoracle "stationdex/oracle"
)

// demoSorted is the demo index, its oracle and the demo's votes and
// clicks, for the orders' tests.
func demoSorted(t *testing.T) (*Index, *oracle, map[format.UUID]qoracle.Popularity) {
	t.Helper()
	ix, err := demoBenchIndex()
	if err != nil {
		t.Fatal(err)
	}
	_, here, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(here), "..", "..", "indexer", "demo", "stations.ndjson")
	recs, err := qoracle.ReadRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	pop, err := qoracle.ReadPopularity(path)
	if err != nil {
		t.Fatal(err)
	}
	return ix, newOracle(recs), pop
}

// TestSortsOnDemo: every order of a few searches on the demo, one
// station a page, is the oracle's order; the pages put together hold
// every match once; facets and totals do not depend on the order.
func TestSortsOnDemo(t *testing.T) {
	ix, o, pop := demoSorted(t)
	vienna := &Near{Lat: 48.2082, Lon: 16.3738, RadiusKm: 2000}
	for _, base := range []Query{{}, {Q: "radio"}, {Filter: filters("", "", "pop")}, {Near: vienna}, {Q: "radio", Near: vienna}, {Distinct: true}} {
		base.Facets, base.FacetLimit, base.Limit = DimsOf(DimCountry, DimGenre), 5, 1
		relevance, err := search(ix, base)
		if err != nil {
			t.Fatal(err)
		}
		for s := SortName; s < NumSorts; s++ {
			if s == SortDistance && base.Near == nil {
				continue
			}
			q := base
			q.Sort = s
			want := sortedWant(o, q, pop)
			var got []format.UUID
			for off := 0; off < len(want)+2; off++ {
				q.Offset, q.Limit = off, 1
				res, err := search(ix, q)
				if err != nil {
					t.Fatalf("%s: %v", q.String(), err)
				}
				if res.Total != relevance.Total || !equalFacets(res.Facets, relevance.Facets) {
					t.Fatalf("%s: total %d and facets %v, by relevance %d and %v", q.String(), res.Total, res.Facets, relevance.Total, relevance.Facets)
				}
				got = append(got, ids(res.Stations)...)
			}
			if q.Sort == SortDistance {
				// the oracle measures by another formula: compare as sets, the
				// order by the engine's own distances (TestSortedDistances)
				slices.SortFunc(got, func(a, b format.UUID) int { return bytes.Compare(a[:], b[:]) })
				want = slices.Clone(want)
				slices.SortFunc(want, func(a, b format.UUID) int { return bytes.Compare(a[:], b[:]) })
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: pages hold %v\nthe oracle %v", q.String(), got, want)
			}
		}
	}
}

func equalFacets(a, b Facets) bool {
	for d := range a {
		if !slices.Equal(a[d], b[d]) {
			return false
		}
	}
	return true
}

// TestSortedDistances: by distance, each result comes with its distance,
// nearest first, in Search and in SearchJSON's distance_km, which no
// other order writes.
func TestSortedDistances(t *testing.T) {
	ix, _, _ := demoSorted(t)
	q := Query{Near: &Near{Lat: 48.2082, Lon: 16.3738, RadiusKm: 3000}, Sort: SortDistance, Limit: 50}
	res, err := search(ix, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stations) < 5 || len(res.Distances) != len(res.Stations) || !slices.IsSorted(res.Distances) {
		t.Fatalf("%d stations, distances %v", len(res.Stations), res.Distances)
	}
	for i := range res.Stations {
		g := res.Stations[i].Geo
		if d := format.DistanceKm(q.Near.Lat, q.Near.Lon, g.LatDeg(), g.LonDeg()); d != res.Distances[i] {
			t.Errorf("%s: distance %v, its position says %v", res.Stations[i].Name, res.Distances[i], d)
		}
	}
	_, js, err := searchJSON(ix, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(js, []byte(`,"distance_km":`)); n != len(res.Stations) || !bytes.HasSuffix(js, []byte("}")) {
		t.Errorf("%d distance_km in %d stations: %.300s", n, len(res.Stations), js)
	}
	q.Sort = SortName
	if _, js, err = searchJSON(ix, q, nil); err != nil || bytes.Contains(js, []byte("distance_km")) {
		t.Errorf("by name: distance_km written (%v)", err)
	}
}

// TestSortNeedsNear: a distance order without a position is refused, as
// is an order that does not exist; the names read back.
func TestSortNeedsNear(t *testing.T) {
	ix, _, _ := demoSorted(t)
	for _, q := range []Query{{Sort: SortDistance, Limit: 1}, {Sort: NumSorts, Limit: 1}} {
		if _, err := search(ix, q); !errors.Is(err, ErrInvalidQuery) {
			t.Errorf("%s: %v, want ErrInvalidQuery", q.String(), err)
		}
	}
	for s := range NumSorts {
		if got, ok := SortOf(s.String()); !ok || got != s {
			t.Errorf("SortOf(%q) = %v %v", s.String(), got, ok)
		}
	}
	if _, ok := SortOf("random"); ok || !strings.Contains(NumSorts.String(), "sort(") {
		t.Error("an unknown sort reads as one")
	}
}

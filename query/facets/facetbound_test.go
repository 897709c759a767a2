package facets

import (
	"fmt"
	"testing"

	"stationdex/query/core"
)

// TestMemoBoundsMatchOracle counts the facets of searches that intersect
// lists the memo holds (a word and a filter, two words, three, a word
// within a distance), which the memo does not answer itself, and so are
// counted under its bounds: plain and
// distinct, at three limits, by posting lists alone and by the way each
// size takes. Each count must equal the oracle's and the count without
// the bounds, and the bounds must have ended some counts early.
func TestMemoBoundsMatchOracle(t *testing.T) {
	ix, o := realIndex(t)
	var every core.DimSet
	for d := range core.NumDims {
		if d.Facetable() {
			every = every.With(d)
		}
	}
	queries := []core.Query{{Q: "radio", Filter: filters("", "en", "")}, {Q: "radio rock"}, {Q: "fm", Filter: filters("us", "", "")},
		{Q: "music radio"}, {Q: "radio", Filter: filters("", "", "pop")}, {Q: "fm", Filter: filters("", "es", "")},
		{Q: "online radio"}, {Q: "radio", Filter: filters("de", "", "")},
		// sets within their lists' intersection, which the memo bounds
		// but does not answer: three words, a distance
		{Q: "radio fm a"}, {Q: "radio", Near: &core.Near{Lat: 50, Lon: 10, RadiusKm: 1500}}}
	defer func() { CountByRecords, BoundByMemo = true, true }()
	bounded := 0
	boundedOf := map[string]int{} // by query, every way and limit
	for _, byRecords := range []bool{false, true} {
		for _, q := range queries {
			for _, distinct := range []bool{false, true} {
				for _, k := range []int{1, 8, 50} {
					q.Facets, q.FacetLimit, q.Limit, q.Distinct = every, k, 5, distinct
					what := fmt.Sprintf("%s k=%d by records %v", q.String(), k, byRecords)
					CountByRecords, BoundByMemo = byRecords, false
					without, err := search(ix, q)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					BoundByMemo = true
					with, err := search(ix, q)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					bounded += with.MemoBounded
					boundedOf[q.Q+fmt.Sprint(q.Near)] += with.MemoBounded
					if without.MemoBounded != 0 {
						t.Errorf("%s: %d counts bounded with the bounds off", what, without.MemoBounded)
					}
					for d := range core.NumDims {
						if !every.Has(d) {
							continue
						}
						name := d.Name()
						all := o.Facets(request(q), name)
						if distinct {
							all = o.DistinctFacets(request(q), name)
						}
						want := oracleTop(all, name, k)
						if !sameCounts(with.Facets[d], want) {
							t.Fatalf("%s: facet %s with the memo's bounds\n got %v\nwant %v", what, name, with.Facets[d], want)
						}
						if !sameCounts(without.Facets[d], want) {
							t.Fatalf("%s: facet %s without the memo's bounds\n got %v\nwant %v", what, name, without.Facets[d], want)
						}
					}
				}
			}
		}
	}
	if bounded == 0 {
		t.Error("no count was ended by the memo's bounds: they went untested")
	}
	for _, q := range queries[len(queries)-2:] {
		if boundedOf[q.Q+fmt.Sprint(q.Near)] == 0 {
			t.Errorf("%s: no count ended by the memo's bounds", q.String())
		}
	}
}

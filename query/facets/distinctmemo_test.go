package facets

import (
	"testing"

	"stationdex/indexer/realdata"
	"stationdex/query/core"
)

// The facets of broad distinct searches, which the memo answers in
// groups, against the oracle's distinct counts, for every facet a search
// can count, at the search page's limit and the largest: one stored list
// (a word, a prefix, a filter), and two (a word and a filter), whose
// facets left out of the filter read the list's entry.
func TestDistinctFacetMemoMatchesOracleOnRealSnapshot(t *testing.T) {
	ix, o := realIndex(t)
	var every core.DimSet
	facets := 0
	for d := range core.NumDims {
		if d.Facetable() {
			every, facets = every.With(d), facets+1
		}
	}
	if every != DistinctFacetSet {
		t.Fatalf("the memo counts facets %v in groups, a search can count %v", DistinctFacetSet, every)
	}
	queries := []core.Query{{Q: "radio"}, {Q: "fm"}, {Filter: filters("de", "", "")}, {Filter: filters("", "", "pop")},
		{Q: "radio", Filter: filters("US", "", "")}, {Q: "radio fm"}}
	hits := 0
	for _, q := range queries {
		for _, k := range []int{8, 50} {
			q.Facets, q.FacetLimit, q.Limit, q.Distinct = every, k, 10, true
			res, err := search(ix, q)
			if err != nil {
				t.Fatalf("%s: %v", q.String(), err)
			}
			hits += res.MemoFacets
			for d := range core.NumDims {
				if !every.Has(d) {
					continue
				}
				name := d.Name()
				if want := oracleTop(o.DistinctFacets(request(q), name), name, k); !sameCounts(res.Facets[d], want) {
					t.Fatalf("%s: distinct facet %s k=%d\n got %v\nwant %v", q.String(), name, k, res.Facets[d], want)
				}
			}
		}
	}
	// On the full snapshot the memo holds every one of these sets; the
	// committed sample's 6,000 stations make fewer of them large enough to
	// be kept, and there at least one search's facets must come from it.
	want := facets * len(queries)
	if !realdata.Full() {
		want = facets
	}
	if hits < want {
		t.Fatalf("%d distinct facets answered from the memo over %d broad searches, want at least %d", hits, len(queries), want)
	}
}

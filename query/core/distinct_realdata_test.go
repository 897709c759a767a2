package core

import (
	"slices"
	"testing"

	"stationdex/internal/format"
	qoracle "stationdex/oracle"
)

// distinctQueries are the oracle's queries, a distance filter and the
// other dimensions' queries, each asking for one result per group.
func distinctQueries(t *testing.T, ix *Index) []Query {
	qs := slices.Concat(oracleQueries(real.recs), dimQueries(t, ix)[:40],
		[]Query{{Near: &Near{Lat: 48.85, Lon: 2.35, RadiusKm: 300}}, {Q: "radio", Near: &Near{Lat: 52.52, Lon: 13.405, RadiusKm: 100}}})
	for i := range qs {
		qs[i].Distinct = true
	}
	return qs
}

// TestDistinctSearchMatchesOracleOnRealSnapshot walks every page of
// hundreds of distinct searches: totals count groups, each group appears
// once, at its best-ranked entry's place, and the pages follow on.
func TestDistinctSearchMatchesOracleOnRealSnapshot(t *testing.T) {
	ix, o := realIndex(t)
	qs := distinctQueries(t, ix)
	fewer := 0
	for _, q := range qs {
		if len(o.search(q)) < o.Count(request(q)) {
			fewer++
		}
	}
	walkAll(t, ix, o, qs, 300)
	t.Logf("%d of %d searches have fewer groups than entries", fewer, len(qs))
	if fewer < len(qs)/4 {
		t.Errorf("only %d of %d searches find duplicates: distinct is not exercised", fewer, len(qs))
	}
}

// TestDistinctOddPagesOnRealSnapshot starts pages off the grid, near
// tier boundaries and at the end, where a group's later entries in one
// tier and its first in another must not shift the pages.
func TestDistinctOddPagesOnRealSnapshot(t *testing.T) {
	ix, o := realIndex(t)
	for _, text := range []string{"", "radio", "a", "lor fm", "fm", "rtl"} {
		q := Query{Q: text, Distinct: true}
		want := o.search(q)
		for _, p := range [][2]int{{1, 0}, {7, 3}, {13, 4990}, {50, 4999}, {3, len(want) - 2}, {50, len(want)}} {
			q.Limit, q.Offset = p[0], min(max(0, p[1]), maxOffset)
			samePage(t, ix, q, want)
		}
	}
}

// TestDistinctResultCountsEntries: Entries is the search's record count
// and each result's Variants the other entries of its group; a group of
// dozens of entries is one result.
func TestDistinctResultCountsEntries(t *testing.T) {
	ix, o := realIndex(t)
	sizes := map[format.UUID]int{}
	largest := []format.UUID{}
	for _, g := range o.Groups() {
		for _, id := range g {
			sizes[id] = len(g)
		}
		if len(g) > len(largest) {
			largest = g
		}
	}
	if len(largest) <= MaxLimit {
		t.Fatalf("the largest group has %d entries; the test wants one larger than a page", len(largest))
	}
	name, err := ix.Station(largest[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []Query{{Q: name.Name}, {Q: "radio"}, {}, {Filter: filters("FR", "", "")}} {
		q.Distinct, q.CountVariants, q.Limit = true, true, MaxLimit
		res, err := search(ix, q)
		if err != nil {
			t.Fatalf("%s: %v", q.String(), err)
		}
		if want := o.Count(request(q)); res.Entries != want {
			t.Errorf("%s: %d entries, oracle %d", q.String(), res.Entries, want)
		}
		if len(res.Variants) != len(res.Stations) {
			t.Fatalf("%s: %d variant counts for %d stations", q.String(), len(res.Variants), len(res.Stations))
		}
		for i, s := range res.Stations {
			if want := max(sizes[s.ID]-1, 0); res.Variants[i] != want {
				t.Errorf("%s: %s has %d variants, oracle %d", q.String(), s.ID, res.Variants[i], want)
			}
		}
	}
	res, err := search(ix, Query{Q: name.Name, Distinct: true, CountVariants: true, Limit: MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range res.Stations {
		if slices.Contains(largest, s.ID) && res.Variants[i] != len(largest)-1 {
			t.Errorf("%q: its group of %d shows %d variants", name.Name, len(largest), res.Variants[i])
		}
	}
}

// TestDistinctFacetsMatchOracleOnRealSnapshot: with distinct, a facet
// value counts the groups with a matching entry that has it, and that is
// the total of the distinct search with the value's filter.
func TestDistinctFacetsMatchOracleOnRealSnapshot(t *testing.T) {
	for _, way := range distinctWays(*PairedMax, *PairedMax) {
		t.Run(way.name, func(t *testing.T) {
			defer way.set()()
			distinctFacetsMatchOracle(t, way.stride)
		})
	}
}

// distinctWay is one way of counting a distinct search's facets: from
// its firsts (by records or by posting lists), by records, by value-group
// pairs (at most paired shared entries) or value by value; stride thins
// the queries of the slower ways.
type distinctWay struct {
	name                string
	byFirsts, byRecords bool
	paired, stride      int
}

// distinctWays is every way, pairing at most paired shared entries.
func distinctWays(paired, defaultPaired int) []distinctWay {
	return []distinctWay{{"by firsts", true, true, defaultPaired, 1}, {"by firsts and posting lists", true, false, defaultPaired, 3},
		{"by records", false, true, defaultPaired, 4}, {"value-group pairs", false, false, paired, 2}, {"value by value", false, false, 0, 2}}
}

// set takes the way, and returns what puts the last back.
func (w distinctWay) set() func() {
	firsts, records, paired := *DistinctByFirsts, *DistinctByRecords, *PairedMax
	*DistinctByFirsts, *DistinctByRecords, *PairedMax = w.byFirsts, w.byRecords, w.paired
	return func() { *DistinctByFirsts, *DistinctByRecords, *PairedMax = firsts, records, paired }
}

// DistinctByRecords is &facets.CountByRecords, which a test clears to
// count the facets of distinct searches by posting lists, and
// DistinctByFirsts &facets.CountByFirsts, which a test clears to count
// every entry's values (set by distinct_ways_test.go, as rooms_test.go
// sets the others).
var DistinctByRecords, DistinctByFirsts *bool

// distinctFacetsMatchOracle checks every stride-th of facetQueries.
func distinctFacetsMatchOracle(t *testing.T, stride int) {
	ix, o := realIndex(t)
	all := DimsOf(DimCountry, DimLanguage, DimGenre, DimLocation, DimCodec)
	names := []string{qoracle.FacetCountry, qoracle.FacetLanguage, qoracle.FacetGenre, qoracle.FacetLocation, qoracle.FacetCodec}
	urls, differ := 0, 0
	qs := facetQueries()
	for i := 0; i < len(qs); i += stride {
		q := qs[i]
		for _, k := range []int{3, 10} {
			q.Facets, q.FacetLimit, q.Limit, q.Distinct = all, k, 1, true
			res, err := search(ix, q)
			if err != nil {
				t.Fatalf("%s: %v", q.String(), err)
			}
			for _, name := range names {
				got := res.Facets[dimOfFacet(name)]
				want := oracleTop(o.DistinctFacets(request(q), name), name, k)
				if !sameCounts(got, want) {
					t.Fatalf("%s: distinct facet %s k=%d\n got %v\nwant %v", q.String(), name, k, got, want)
				}
				if !sameCounts(got, oracleTop(o.Facets(request(q), name), name, k)) {
					differ++
				}
				urls += checkFacetURLs(t, ix, q, name, got)
			}
		}
	}
	t.Logf("%d facet urls counted; %d facets differ from the record counts", urls, differ)
	if urls < 500/stride || differ < 50/stride {
		t.Errorf("%d urls, %d facets differing from record counts: distinct facets are not exercised", urls, differ)
	}
}

// BenchmarkDistinct times each search of BenchmarkSearch, and a few broad
// prefixes, as it is and with distinct on the real snapshot: compare the
// plain and distinct sub-benchmarks of one name (issue #26 asks at most
// 1.5x).
func BenchmarkDistinct(b *testing.B) {
	ix, _ := realIndex(b)
	var cases []namedQuery
	add := func(name string, q Query) {
		cases = append(cases, namedQuery{name + "/plain", q})
		q.Distinct = true
		cases = append(cases, namedQuery{name + "/distinct", q})
	}
	for _, bq := range benchQueries {
		add(bq.name, bq.q)
	}
	add("broad_prefix", Query{Q: "rad"})
	add("broad_prefix_country", Query{Q: "rad", Filter: filters("de", "", "")})
	three := DimsOf(DimCountry, DimLanguage, DimGenre)
	add("all_faceted", Query{Facets: three, FacetLimit: 10})
	add("country_faceted", Query{Filter: filters("de", "", ""), Facets: three, FacetLimit: 10})
	add("genre_faceted", Query{Filter: filters("", "", "pop"), Facets: three, FacetLimit: 10})
	add("word_faceted", Query{Q: "radio", Facets: three, FacetLimit: 10})
	benchNamed(b, ix, cases)
}

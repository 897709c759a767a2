package facets

import (
	"slices"
	"testing"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/realdata"
	"stationdex/internal/format"
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

// The memo of a word whose set is the union of its tokens (it has no
// list of its own: mp3, russi), against the oracle, in stations and in
// groups, every facet: the words are a sample of the stored unions' own
// prefixes.
func TestUnionFacetMemoMatchesOracleOnRealSnapshot(t *testing.T) {
	ix, o := realIndex(t)
	readMemo(t, ix)
	var words []string
	err := ix.View(func(tx *bolt.Tx) error {
		return tx.Bucket(format.BucketFacetMemo).ForEach(func(k, _ []byte) error {
			lists, err := format.ParseMemoKey(k)
			if err == nil && lists[0].Union && utf8.Valid(lists[0].Key) {
				words = append(words, string(lists[0].Key))
			}
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d unions of tokens in the memo", len(words))
	if len(words) < 10 {
		t.Fatalf("%d unions of tokens in the memo, want at least 10", len(words))
	}
	// six of them, and mp3 where it is one (the full snapshot)
	var picked []string
	for i := 0; i < len(words); i += len(words)/6 + 1 {
		picked = append(picked, words[i])
	}
	if slices.Contains(words, "mp3") {
		picked = append(picked, "mp3")
	}
	var every core.DimSet
	for d := range core.NumDims {
		if d.Facetable() {
			every = every.With(d)
		}
	}
	for _, w := range picked {
		for _, distinct := range []bool{false, true} {
			q := core.Query{Q: w, Facets: every, FacetLimit: 8, Limit: 10, Distinct: distinct}
			res, err := search(ix, q)
			if err != nil {
				t.Fatalf("%s: %v", q.String(), err)
			}
			if res.MemoFacets == 0 {
				t.Errorf("%s: no facet answered from the memo", q.String())
			}
			for d := range core.NumDims {
				if !every.Has(d) {
					continue
				}
				name, all := d.Name(), o.Facets(request(q), d.Name())
				if distinct {
					all = o.DistinctFacets(request(q), name)
				}
				if want := oracleTop(all, name, 8); !sameCounts(res.Facets[d], want) {
					t.Fatalf("%s: facet %s\n got %v\nwant %v", q.String(), name, res.Facets[d], want)
				}
			}
		}
	}
}

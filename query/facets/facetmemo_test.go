package facets

import (
	"maps"
	"slices"
	"testing"
	"unsafe"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/realdata"
	"stationdex/internal/format"
	qoracle "stationdex/oracle"
	"stationdex/query/core"
)

// The memoised facets of the broad one-key searches against the oracle,
// for every facet limit shape and facet subset, with the memo's own
// filter dimension among them (counted afresh, as the rule says).
func TestFacetMemoMatchesOracleOnRealSnapshot(t *testing.T) {
	ix, o := realIndex(t)
	memo := readMemo(t, ix)
	least := format.FacetMemoMin(ix.Meta().Stations)
	t.Logf("facet memo: %d posting lists of at least %d stations", len(memo.lists), least)
	if len(memo.lists) < 20 {
		t.Fatalf("memo of %d lists (smallest %d stations): the broad searches are not in it", len(memo.lists), least)
	}
	queries := []core.Query{{Q: "radio"}, {Q: "jazz"}, {Q: "fm"}, {Q: "u"}, {Q: "r"}, {Q: "ra"}, {Q: "la"}, {Q: "s"},
		{Filter: filters("US", "", "")}, {Filter: filters("de", "", "")}, {Filter: filters("FR", "", "")}, {Filter: filters("CN", "", ""), Offset: 3250},
		{Filter: filters("", "english", "")}, {Filter: filters("", "en", "")}, {Filter: filters("", "German", "")}, {Filter: filters("", "spanish", "")},
		{Filter: filters("", "", "pop")}, {Filter: filters("", "", "news")}, {Filter: filters("", "", "music")}}
	hits := 0
	for _, q := range queries {
		for _, shape := range []struct {
			k   int
			set core.DimSet
		}{
			{10, threeFacets},
			{1, core.DimsOf(core.DimGenre)},
			{50, threeFacets},
			{7, core.DimsOf(core.DimCountry, core.DimLanguage)},
		} {
			q.Facets, q.FacetLimit, q.Limit = shape.set, shape.k, 10
			res, err := search(ix, q)
			if err != nil {
				t.Fatalf("%s: %v", q.String(), err)
			}
			hits += res.MemoFacets
			got := [...][]core.FacetCount{res.Facets[core.DimCountry], res.Facets[core.DimLanguage], res.Facets[core.DimGenre]}
			asked := [...]bool{shape.set.Has(core.DimCountry), shape.set.Has(core.DimLanguage), shape.set.Has(core.DimGenre)}
			for d, name := range []string{qoracle.FacetCountry, qoracle.FacetLanguage, qoracle.FacetGenre} {
				if !asked[d] {
					if got[d] != nil {
						t.Fatalf("%s: facet %s not asked for, got %v", q.String(), name, got[d])
					}
					continue
				}
				if want := oracleTop(o.Facets(request(q), name), name, shape.k); !sameCounts(got[d], want) {
					t.Fatalf("%s: facet %s k=%d\n got %v\nwant %v", q.String(), name, shape.k, got[d], want)
				}
			}
		}
	}
	if hits < len(queries) {
		t.Fatalf("%d facets answered from the memo over %d broad searches", hits, len(queries))
	}
}

// A facet list handed out is the caller's: changing it leaves the memo
// (and the next search) alone.
func TestFacetMemoListsAreCopies(t *testing.T) {
	ix, _ := realIndex(t)
	readMemo(t, ix)
	q := core.Query{Q: "radio", Facets: core.DimsOf(core.DimCountry), FacetLimit: 3, Limit: 1}
	first, err := search(ix, q)
	if err != nil {
		t.Fatal(err)
	}
	want := first.Facets[core.DimCountry][0]
	first.Facets[core.DimCountry][0] = core.FacetCount{Value: "XX", Label: "changed", Count: -1}
	again, err := search(ix, q)
	if err != nil {
		t.Fatal(err)
	}
	if again.Facets[core.DimCountry][0] != want {
		t.Fatalf("second search's first country %v, want %v", again.Facets[core.DimCountry][0], want)
	}
}

// An intersection with as many stations as one of its stored operands is
// that list (every US station matches the prefix "am"), so its facets come
// from the memo, and agree with the oracle.
func TestFacetMemoForIntersectionEqualToAList(t *testing.T) {
	ix, o := realIndex(t)
	readMemo(t, ix)
	q := core.Query{Q: "am", Filter: filters("US", "", ""), Facets: core.DimsOf(core.DimLanguage, core.DimGenre), FacetLimit: 10, Limit: 10}
	us := len(o.search(core.Query{Filter: filters("US", "", "")}))
	if n := len(o.search(q)); n != us || n < 256 {
		t.Fatalf("q=am&country=US finds %d stations, country=US %d: the case this test needs is gone", n, us)
	}
	res, err := search(ix, q)
	if err != nil {
		t.Fatal(err)
	}
	// The sample's "am" prefix list is too small to be memoised; the
	// full snapshot's is.
	if hits := res.MemoFacets; hits != 2 && realdata.Full() {
		t.Errorf("%d of 2 facets answered from the memo", hits)
	}
	for d, name := range []string{qoracle.FacetLanguage, qoracle.FacetGenre} {
		got := [...][]core.FacetCount{res.Facets[core.DimLanguage], res.Facets[core.DimGenre]}[d]
		if want := oracleTop(o.Facets(request(q), name), name, 10); !sameCounts(got, want) {
			t.Errorf("facet %s\n got %v\nwant %v", name, got, want)
		}
	}
}

// Facets whose sets are two stored lists (a word and a filter, two
// filters, two words: the search's own set, or the set without one of its
// filters) come from the pair memo, which holds core.DefaultFacetLimit values;
// a larger facet limit is counted. Searches of several words, whose
// facets count the set the conjunctions evaluate (plainMatches), are
// among them. Every facet agrees with the oracle.
func TestFacetPairMemoMatchesOracleOnRealSnapshot(t *testing.T) {
	ix, o := realIndex(t)
	memo := readMemo(t, ix)
	t.Logf("pair memo: %d pairs", len(memo.pairs))
	if len(memo.pairs) < minMemoPairs() {
		t.Fatalf("pair memo of %d pairs: the common pairs are not in it", len(memo.pairs))
	}
	queries := []core.Query{
		{Q: "radio", Filter: filters("DE", "", "")}, {Q: "fm", Filter: filters("", "english", "")}, {Q: "la", Filter: filters("", "spanish", "")},
		{Filter: filters("US", "english", "")}, {Filter: filters("US", "", "rock")}, {Filter: filters("", "english", "pop")},
		{Q: "music radio"}, {Q: "radio fm"}, {Q: "rock fm", Filter: filters("US", "", "")},
		{Q: "radio", Filter: filters("US", "English", "")}, {Q: "radio", Filter: filters("DE", "", "news")},
		{Q: "Radio Paradise"}, {Q: "DR P1 (AAC)"}, {Q: "radio", Filter: filters("FR", "", "", "MP3")},
	}
	all := threeFacets
	hits := 0
	for _, q := range queries {
		for _, k := range []int{core.DefaultFacetLimit, 3, core.MaxFacetLimit} {
			q.Facets, q.FacetLimit, q.Limit = all, k, 10
			res, err := search(ix, q)
			if err != nil {
				t.Fatalf("%s: %v", q.String(), err)
			}
			if k <= core.DefaultFacetLimit {
				hits += res.MemoFacets
			}
			got := [...][]core.FacetCount{res.Facets[core.DimCountry], res.Facets[core.DimLanguage], res.Facets[core.DimGenre]}
			for d, name := range []string{qoracle.FacetCountry, qoracle.FacetLanguage, qoracle.FacetGenre} {
				if want := oracleTop(o.Facets(request(q), name), name, k); !sameCounts(got[d], want) {
					t.Fatalf("%s: facet %s k=%d\n got %v\nwant %v", q.String(), name, k, got[d], want)
				}
			}
		}
	}
	t.Logf("%d facets answered from the memo", hits)
	// most of the searches' sets are one list or a pair, at both limits;
	// on the sample, with its fewer pairs, one a search
	if want := 3 * len(queries); hits < want && realdata.Full() || hits < len(queries) {
		t.Fatalf("%d facets answered from the memo over %d searches and two limits", hits, len(queries))
	}
}

// BenchmarkFacetMemo reads the stored facet memo of the real snapshot,
// as core.Index.Warm does after start-up, and reports its lists and pairs and
// the memory they hold (the lists' values and their headers).
func BenchmarkFacetMemo(b *testing.B) {
	ix, _ := realIndex(b)
	var memo *facetMemo
	for b.Loop() {
		var err error
		if memo, err = readFacetMemo(ix); err != nil {
			b.Fatal(err)
		}
	}
	size := func(fs []*memoFacets) int {
		n := 0
		for _, f := range fs {
			n += int(unsafe.Sizeof(*f))
			for _, l := range f.lists {
				n += len(l) * int(unsafe.Sizeof(memoCount{}))
			}
		}
		return n
	}
	b.ReportMetric(float64(len(memo.lists)), "lists")
	b.ReportMetric(float64(len(memo.pairs)), "pairs")
	b.ReportMetric(float64(size(slices.Collect(maps.Values(memo.lists))))/1024, "list-KiB")
	b.ReportMetric(float64(size(slices.Collect(maps.Values(memo.pairs))))/1024, "pair-KiB")
}

// readMemo reads ix's stored facet memo, failing t if it cannot.
func readMemo(t testing.TB, ix *core.Index) *facetMemo {
	t.Helper()
	var memo *facetMemo
	err := ix.Read(func() (err error) { memo, err = FacetMemo(ix); return err })
	if err != nil {
		t.Fatal(err)
	}
	return memo
}

// The memo the indexer stores is what the engine counts, entry by entry,
// on the real snapshot (Check's own recount, run here to see it fail
// loudly) and in every entry's shape: lists and pairs, both limits.
func TestStoredFacetMemoIsTheEngineCount(t *testing.T) {
	ix, _ := realIndex(t)
	memo := readMemo(t, ix)
	entries := 0
	err := ix.View(func(tx *bolt.Tx) error {
		entries = tx.Bucket(format.BucketFacetMemo).Stats().KeyN
		return nil
	})
	if err == nil {
		err = CheckFacetMemo(ix)
	}
	if err != nil {
		t.Fatal(err)
	}
	if entries != len(memo.lists)+len(memo.pairs) || len(memo.pairs) < minMemoPairs() {
		t.Fatalf("%d entries stored, %d lists and %d pairs read", entries, len(memo.lists), len(memo.pairs))
	}
}

// minMemoPairs is the least number of pairs in the memo: 1,000 on the full
// snapshot (2,248), 5 on the sample (7), whose lists are fewer and
// shorter: of its words, few reach a pair's minimum besides single
// letters and a word's own prefixes, which pair with nothing
// (format.FacetMemoPairWordRunes).
func minMemoPairs() int {
	if realdata.Full() {
		return 1000
	}
	return 5
}

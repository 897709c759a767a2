package facets

import (
	"fmt"
	"testing"

	"stationdex/query/core"
)

// TestSplitPassCountsAsOnePass: the facets of broad searches, plain and
// distinct, counted with every pass split between two goroutines equal
// those counted in one pass (the race detector run of this package
// watches the two goroutines' counters).
func TestSplitPassCountsAsOnePass(t *testing.T) {
	ix, _ := realIndex(t)
	every := core.DimsOf(core.DimCountry, core.DimLanguage, core.DimGenre, core.DimLocation, core.DimCodec)
	defer func(n int) { SplitMin = n }(SplitMin)
	split := 0
	// three words: no memo entry knows their sets, so every facet is counted
	for _, q := range []core.Query{{Q: "radio fm de"}, {Q: "la radio de"}, {Q: "fm radio music"}, {Q: "radio", Filter: filters("", "en", "")}, {Q: "rock"}} {
		for _, distinct := range []bool{false, true} {
			q.Facets, q.FacetLimit, q.Limit, q.Distinct = every, 10, 1, distinct
			SplitMin = 1 << 30
			one, err := search(ix, q)
			if err != nil {
				t.Fatal(err)
			}
			SplitMin = 0
			two, err := search(ix, q)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(one.Facets) != fmt.Sprint(two.Facets) {
				t.Errorf("%s: split %v, one pass %v", q.String(), two.Facets, one.Facets)
			}
			if one.Total >= 100 && one.MemoFacets == 0 {
				split++
			}
		}
	}
	if split == 0 {
		t.Error("no search of a hundred stations counted its facets: no pass was split")
	}
}

// TestSplitPassOnSmallIndex splits every pass over a generated index of a
// few hundred stations, several values each, with duplicates, and
// compares with one pass: it runs under the race detector, which skips
// the real snapshot.
func TestSplitPassOnSmallIndex(t *testing.T) {
	ccs, langs, tags := []string{"DE", "FR", "US", "BR"}, []string{"german", "french", "english,spanish", "portuguese"}, []string{"pop,rock", "jazz", "news,talk,pop", "rock"}
	var stations []station
	for i := range 400 {
		stations = append(stations, station{N: i + 1, Name: fmt.Sprintf("Radio %d", i%150), CC: ccs[i%4], State: ccs[i%3],
			Language: langs[i%4], Tags: tags[(i/3)%4]})
	}
	ix := openIndex(t, buildIndex(t, ndjson(stations)))
	defer func(n int) { SplitMin = n }(SplitMin)
	every := core.DimsOf(core.DimCountry, core.DimLanguage, core.DimGenre, core.DimLocation, core.DimCodec)
	for _, q := range []core.Query{{Q: "radio"}, {Q: "radio 1"}, {Q: "radio", Filter: filters("DE", "", "")}} {
		for _, distinct := range []bool{false, true} {
			q.Facets, q.FacetLimit, q.Limit, q.Distinct = every, 10, 1, distinct
			SplitMin = 1 << 30
			one, err := search(ix, q)
			if err != nil {
				t.Fatal(err)
			}
			SplitMin = 0
			two, err := search(ix, q)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(one.Facets) != fmt.Sprint(two.Facets) || len(one.Facets[core.DimGenre]) == 0 {
				t.Errorf("%s: split %v, one pass %v", q.String(), two.Facets, one.Facets)
			}
		}
	}
}

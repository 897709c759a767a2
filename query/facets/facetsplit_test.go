package facets

import (
	"fmt"
	"testing"

	"stationdex/query/core"
)

// everyColumn is the facets with a column that a search page counts.
var everyColumn = core.DimsOf(core.DimCountry, core.DimLanguage, core.DimGenre, core.DimLocation, core.DimCodec)

// TestSplitPassCountsAsOnePass: the facets of broad searches, plain and
// distinct, counted with every pass split between two goroutines equal
// those counted in one pass.
func TestSplitPassCountsAsOnePass(t *testing.T) {
	ix, _ := realIndex(t)
	// three words: no memo entry knows their sets, so every facet is counted
	qs := []core.Query{{Q: "radio fm de"}, {Q: "la radio de"}, {Q: "fm radio music"}, {Q: "radio", Filter: filters("", "en", "")}, {Q: "rock"}}
	if counted := splitAgrees(t, ix, qs); counted == 0 {
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
	if counted := splitAgrees(t, ix, []core.Query{{Q: "radio"}, {Q: "radio 1"}, {Q: "radio", Filter: filters("DE", "", "")}}); counted == 0 {
		t.Error("no search counted its facets: no pass was split")
	}
}

// splitAgrees runs each search, plain and distinct, with every facet
// that has a column, in one pass and split, says where they differ, and
// returns how many of a hundred stations or more counted every facet
// (none from the memo).
func splitAgrees(t *testing.T, ix *core.Index, qs []core.Query) (counted int) {
	t.Helper()
	defer func(n int) { SplitMin = n }(SplitMin)
	for _, q := range qs {
		for _, distinct := range []bool{false, true} {
			q.Facets, q.FacetLimit, q.Limit, q.Distinct = everyColumn, 10, 1, distinct
			var res [2]core.Result
			for i, min := range []int{1 << 30, 0} {
				SplitMin = min
				var err error
				if res[i], err = search(ix, q); err != nil {
					t.Fatal(err)
				}
			}
			if fmt.Sprint(res[0].Facets) != fmt.Sprint(res[1].Facets) || len(res[0].Facets[core.DimGenre]) == 0 {
				t.Errorf("%s: split %v, one pass %v", q.String(), res[1].Facets, res[0].Facets)
			}
			if res[0].Total >= 100 && res[0].MemoFacets == 0 {
				counted++
			}
		}
	}
	return counted
}

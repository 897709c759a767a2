package facets

import (
	"math/bits"
	"testing"

	"stationdex/query/core"
)

// TestDistinctFirstsMixedGroups: a group whose entries differ in a facet
// is mixed, one whose entries agree is not, and a distinct count from
// the firsts counts each group once, with every value of a mixed group's
// entries.
func TestDistinctFirstsMixedGroups(t *testing.T) {
	ix := openIndex(t, buildIndex(t, ndjson([]station{
		{N: 1, Name: "Alpha", CC: "DE", Tags: "pop"}, {N: 2, Name: "Alpha", CC: "DE", Tags: "pop"},
		{N: 3, Name: "Beta", CC: "DE", Tags: "rock"}, {N: 4, Name: "Beta", CC: "DE", Tags: "jazz"},
		{N: 5, Name: "Gamma", CC: "DE", Tags: "pop"}, {N: 6, Name: "Delta", CC: "FR", Tags: "pop"},
	})))
	err := ix.WithSearch(func(s *core.Search) error {
		gi, err := core.GroupIndexOf(s)
		if err != nil {
			return err
		}
		mixed, err := mixedGroups(ix, gi)
		if err != nil {
			return err
		}
		n := 0
		for _, w := range mixed {
			n += bits.OnesCount64(w)
		}
		if gi.Groups() != 2 || n != 1 {
			t.Errorf("%d groups, %d mixed; want 2 and 1", gi.Groups(), n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, firsts := range []bool{true, false} {
		CountByFirsts = firsts
		q := core.Query{Filter: filters("DE", "", ""), Facets: core.DimsOf(core.DimGenre, core.DimCountry), FacetLimit: 5, Distinct: true, Limit: 10}
		res, err := search(ix, q)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int{"pop": 2, "rock": 1, "jazz": 1}
		if got := res.Facets[core.DimGenre]; len(got) != len(want) {
			t.Errorf("firsts %v: genres %v, want %v", firsts, got, want)
		} else {
			for _, c := range got {
				if want[c.Value] != c.Count {
					t.Errorf("firsts %v: genres %v, want %v", firsts, got, want)
				}
			}
		}
		// the country facet leaves the country filter out
		if got := res.Facets[core.DimCountry]; len(got) != 2 || got[0].Value != "DE" || got[0].Count != 3 || got[1].Count != 1 {
			t.Errorf("firsts %v: countries %v, want DE 3, FR 1", firsts, got)
		}
	}
	CountByFirsts = true
}

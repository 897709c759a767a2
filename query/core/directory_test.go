package core

import (
	"slices"
	"testing"

	"stationdex/internal/fold"
	"stationdex/internal/iso"
)

// TestFacetValuesOrders: most stations first with ties A–Z, or A–Z by the
// folded name (a country's English name) with nameless values last; pages
// of any size concatenate to the whole list, each value once.
func TestFacetValuesOrders(t *testing.T) {
	ix, err := demoBenchIndex()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []Dim{DimCountry, DimLanguage, DimGenre, DimLocation} {
		for _, o := range []Order{ByStations, ByName} {
			all := facetPages(t, ix, f, o, 1000)
			if got := facetPages(t, ix, f, o, 7); !slices.Equal(got, all) {
				t.Fatalf("facet %d order %d: pages of 7 differ from one page", f, o)
			}
			checkOrder(t, f, o, all)
		}
	}
}

func facetPages(t *testing.T, ix *Index, f Dim, o Order, size int) []Listing {
	t.Helper()
	var out []Listing
	for off := 0; ; off += size {
		total, vals, err := ix.Listings(f, o, off, size)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, vals...)
		if off+size >= total {
			if len(out) != total {
				t.Fatalf("facet %d: %d values paged, total %d", f, len(out), total)
			}
			return out
		}
	}
}

func checkOrder(t *testing.T, f Dim, o Order, vals []Listing) {
	t.Helper()
	seen := map[string]bool{}
	for i, v := range vals {
		if seen[v.Key] {
			t.Fatalf("facet %d: %q listed twice", f, v.Key)
		}
		seen[v.Key] = true
		if i == 0 {
			continue
		}
		a, b := vals[i-1], v
		switch {
		case o == ByStations && a.Stations < b.Stations:
			t.Errorf("facet %d: %q (%d) before %q (%d)", f, a.Key, a.Stations, b.Key, b.Stations)
		case o == ByStations && a.Stations == b.Stations && nameOf(f, a) > nameOf(f, b) && nameOf(f, b) != "":
			t.Errorf("facet %d: tie %q before %q", f, a.Key, b.Key)
		case o == ByName && nameOf(f, a) == "" && nameOf(f, b) != "":
			t.Errorf("facet %d: nameless %q before %q", f, a.Key, b.Key)
		case o == ByName && nameOf(f, b) != "" && nameOf(f, a) > nameOf(f, b):
			t.Errorf("facet %d: %q before %q A–Z", f, a.Label, b.Label)
		}
	}
}

// nameOf is the A–Z name, computed here from the label apart from the
// engine's own key: a country's English name, else the folded label.
func nameOf(f Dim, v Listing) string {
	if f == DimCountry {
		return fold.Key(iso.CountryName(v.Key))
	}
	return fold.Key(v.Label)
}

func TestFacetValuesUnknownFacet(t *testing.T) {
	ix, err := demoBenchIndex()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ix.Listings(Dim(99), ByName, 0, 10); err == nil {
		t.Fatal("facet 99: no error")
	}
}

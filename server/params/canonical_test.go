package params

import (
	"testing"

	"stationdex/query"
)

// TestCanonicalQueryOf: a dimension's query written once with its value's
// place left open, then each value escaped into it, is the canonical query
// of the search with that one value, for every dimension, on searches with
// and without other parameters (the dimension's own filter among them,
// which the value replaces), and for values that need escaping.
func TestCanonicalQueryOf(t *testing.T) {
	searches := []string{
		"",
		"q=radio",
		"q=jazz+fm&country=DE&limit=50&offset=100",
		"language=english&genre=rock&codec=MP3,AAC&bitrate_min=64&sort=name",
		"near=52.5,13.4&radius_km=25&sort=distance&distinct=false",
		"q=%C3%BC+%26+b&facets=country,genre&facet_limit=3",
	}
	values := []string{"rock", "a b&c=d", "Ünïcode/ß", "x,y", "100%"}
	for _, raw := range searches {
		p, err := ParseSearchParams(raw)
		if err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		opened := 0
		for d := range query.NumDims {
			pre, at, ok := p.AppendCanonicalQueryOf([]byte("x?"), d)
			if !ok {
				if string(pre) != "x?" {
					t.Errorf("%q, %s: not ok, but the buffer is %q", raw, d.Name(), pre)
				}
				continue
			}
			opened++
			for _, v := range values {
				alt := p
				alt.Filter[d] = []string{v}
				want := "x?" + alt.CanonicalQuery()
				got := string(pre[:at]) + string(AppendQueryEscape(nil, v)) + string(pre[at:])
				if got != want {
					t.Errorf("%q, %s=%q: %q, want %q", raw, d.Name(), v, got, want)
				}
			}
		}
		if opened == 0 {
			t.Errorf("%q: no dimension has a parameter of its own", raw)
		}
	}
}

package params

import (
	"errors"
	"strings"
	"testing"

	"stationdex/server/core"
)

// TestSortParameter: every order is taken, relevance is the default and
// names the same search as no sort at all, distance needs near, and any
// other value, a repeat or an empty value is a 400 naming the orders.
func TestSortParameter(t *testing.T) {
	for _, name := range SortNames {
		raw := "q=jazz&sort=" + name
		if name == SortDistance {
			raw += "&near=52.52,13.405"
		}
		p, err := ParseSearchParams(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		canonical := p.CanonicalQuery()
		if name == "relevance" {
			if p.Sort != "" || strings.Contains(canonical, "sort=") {
				t.Errorf("%s: sort %q, canonical %s; relevance is the default, written as nothing", raw, p.Sort, canonical)
			}
			continue
		}
		if p.Sort != name || !strings.Contains(canonical, "sort="+name+"&limit=") {
			t.Errorf("%s: sort %q, canonical %s", raw, p.Sort, canonical)
		}
		again, err := ParseSearchParams(canonical)
		if err != nil || again.CanonicalQuery() != canonical {
			t.Errorf("%s: the canonical query %s reads back as %s (%v)", raw, canonical, again.CanonicalQuery(), err)
		}
		if next := NextPage("https://x.example", p, 100); next == nil || !strings.Contains(*next, "sort="+name) {
			t.Errorf("%s: next page %v does not keep the order", raw, next)
		}
	}
	for raw, want := range map[string]string{
		"sort=random":                  "sort must be one of relevance, name, popular, distance, bitrate",
		"sort=Name":                    "sort must be one of",
		"sort=":                        "sort must be one of",
		"sort=name&sort=popular":       "given more than once",
		"sort=distance":                "sort=distance needs near",
		"sort=distance&radius_km=10":   "radius_km needs near",
		"q=x&sort=popular,distance":    "sort must be one of",
		"sort=%20popular":              "sort must be one of",
		"sort=name&limit=20&offset=-1": "offset must be",
	} {
		_, err := ParseSearchParams(raw)
		var e *core.Error
		if !errors.As(err, &e) || !strings.Contains(e.Message, want) || (e.Code != core.CodeInvalidParameter && e.Code != core.CodeRepeatedParameter) {
			t.Errorf("%s: %v, want a 400 saying %q", raw, err, want)
		}
	}
}

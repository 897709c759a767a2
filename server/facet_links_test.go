package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"stationdex/server/params"
)

// TestFacetURLsReturnTheirCounts follows every facet entry's url and every
// suggestion's url through the server: each answers exactly the count (or
// total) it was listed with. The searches cover every facet dimension, with
// and without a filter on the same dimension (then a value is counted in
// place of the filter), and the list, boolean and distance filters.
func TestFacetURLsReturnTheirCounts(t *testing.T) {
	s := newDemoServer(t, nil)
	all := "facets=" + strings.Join(params.FacetNames(), ",") + "&facet_limit=50"
	followed := map[string]int{}
	for _, search := range []string{
		all,
		"q=radio&" + all,
		"country=de&" + all,
		"codec=mp3&codec=aac&" + all,
		"https=true&" + all,
		"https=false&genre=pop&" + all,
		"near=48.2082,16.3738&radius_km=1000&" + all,
		"bitrate_min=64&facets=location,codec&facet_limit=5",
		"q=jaz+cornr",
	} {
		env := searchTotals(t, s, "/api/stations?"+search)
		for dim, entries := range env.Facets {
			for _, e := range entries {
				followed[dim]++
				if got := searchTotals(t, s, strings.TrimPrefix(e.URL, testBase)).Total; got != e.Count {
					t.Errorf("%s: facet %s %q counts %d, its url %s finds %d", search, dim, e.Value, e.Count, e.URL, got)
				}
			}
		}
		for _, g := range env.Suggestions {
			followed["suggestions"]++
			if got := searchTotals(t, s, strings.TrimPrefix(g.URL, testBase)).Total; got != g.Total {
				t.Errorf("%s: suggestion %q totals %d, its url %s finds %d", search, g.Q, g.Total, g.URL, got)
			}
		}
	}
	t.Logf("urls followed: %v", followed)
	for _, name := range append(params.FacetNames(), "suggestions") {
		if followed[name] == 0 {
			t.Errorf("no %s url followed: the searches test nothing of it", name)
		}
	}
}

// searchTotals is the part of a search answer the links are checked by.
type searchTotalsJSON struct {
	Total  int `json:"total"`
	Facets map[string][]struct {
		Value string `json:"value"`
		Count int    `json:"count"`
		URL   string `json:"url"`
	} `json:"facets"`
	Suggestions []struct {
		Q     string `json:"q"`
		Total int    `json:"total"`
		URL   string `json:"url"`
	} `json:"suggestions"`
}

func searchTotals(t *testing.T, s *Server, target string) searchTotalsJSON {
	t.Helper()
	rec := serve(s, http.MethodGet, target)
	var env searchTotalsJSON
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &env) != nil {
		t.Fatalf("GET %s: %d %s", target, rec.Code, rec.Body.String())
	}
	return env
}

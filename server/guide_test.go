package server

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"stationdex/query"
	"stationdex/server/core"
)

// guideCurl is one curl command of the guide: its options and URL.
var guideCurl = regexp.MustCompile(`(?m)^curl (.*)'([^']+)'$`)

// TestGuideExamples: every curl command of the guide works as pasted
// against the node that shows it. Commands with -i show an error and must
// get one; the others a 200. The discovery examples must show what their
// text says: facet counts, stations near the position, suggestions.
func TestGuideExamples(t *testing.T) {
	s := newDemoServer(t, nil)
	guide := fetchOK(t, s, core.PathGuide+"index.md").Body.String()
	commands := guideCurl.FindAllStringSubmatch(guide, -1)
	if len(commands) < 10 {
		t.Fatalf("%d curl commands in the guide", len(commands))
	}
	seen := map[string]bool{}
	for _, c := range commands {
		opts, target := c[1], local(t, testBase, c[2])
		var header []string
		if h, ok := strings.CutPrefix(opts, "-H '"); ok {
			name, value, _ := strings.Cut(strings.TrimSuffix(strings.TrimSpace(h), "'"), ": ")
			header = []string{name, value}
		}
		rec := serve(s, http.MethodGet, target, header...)
		if wantError := strings.Contains(opts, "-i "); wantError != (rec.Code == http.StatusBadRequest) || !wantError && rec.Code != http.StatusOK {
			t.Errorf("%s: status %d", c[0], rec.Code)
			continue
		}
		for _, check := range guideChecks {
			if strings.Contains(target, check.param) && rec.Code == http.StatusOK {
				seen[check.param] = true
				check.ok(t, target, rec.Body.Bytes())
			}
		}
	}
	for _, check := range guideChecks {
		if !seen[check.param] {
			t.Errorf("no example of %s in the guide", check.param)
		}
	}
}

// guideChecks are what the discovery examples must show.
var guideChecks = []struct {
	param string
	ok    func(t *testing.T, target string, body []byte)
}{
	{"facets=", func(t *testing.T, target string, body []byte) {
		var env struct{ Facets map[string][]json.RawMessage }
		if err := json.Unmarshal(body, &env); err != nil || len(env.Facets) == 0 {
			t.Errorf("%s: no facets (%v)", target, err)
		}
		for name, entries := range env.Facets {
			if len(entries) == 0 {
				t.Errorf("%s: facet %s is empty", target, name)
			}
		}
	}},
	{"near=", func(t *testing.T, target string, body []byte) {
		var env struct{ Total int }
		if err := json.Unmarshal(body, &env); err != nil || env.Total == 0 && demoHasGeo(t) {
			t.Errorf("%s: total %d (%v); the example should be near a station", target, env.Total, err)
		}
	}},
	{"q=jazx", func(t *testing.T, target string, body []byte) {
		var env struct {
			Total       int
			Suggestions []struct{ Q string }
		}
		if err := json.Unmarshal(body, &env); err != nil || env.Total != 0 || len(env.Suggestions) == 0 {
			t.Errorf("%s: total %d, suggestions %v (%v)", target, env.Total, env.Suggestions, err)
		}
	}},
}

// demoHasGeo reports whether a station of the demo snapshot has
// coordinates, so that a near example can find one.
func demoHasGeo(t *testing.T) bool {
	ix, err := demoIndex()
	if err != nil {
		t.Fatal(err)
	}
	all, err := ix.Search(query.Query{Limit: query.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range all.Stations {
		if st.Geo.Known {
			return true
		}
	}
	return false
}

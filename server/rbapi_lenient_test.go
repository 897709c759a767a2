package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"stationdex/indexer"
	"stationdex/metrics"
	"stationdex/server/core"
	"stationdex/server/rbapi"
)

// ignoredCounter is an Observer that keeps the labels of the ignored
// parameters it is told of.
type ignoredCounter struct {
	core.NopObserver
	mu     sync.Mutex
	labels map[string]int
}

func (c *ignoredCounter) RBAPIIgnoredParameter(label string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.labels[label]++
}

func (c *ignoredCounter) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	got := c.labels
	c.labels = map[string]int{}
	return got
}

// TestRBAPIClientsDefaultScreens: the requests of the issue that three
// apps' default screens sent and a node refused are answered 200 with
// upstream's meaning, the same stations as the request without what
// upstream ignores (an unknown order is name; an unknown parameter, or
// one the path does not take, is no filter), and each ignored name is
// counted by its label: upstream's own names by name, the rest as
// "other".
func TestRBAPIClientsDefaultScreens(t *testing.T) {
	obs := &ignoredCounter{labels: map[string]int{}}
	s := newDemoServer(t, obs)
	const id = "cbbf6759-8124-405d-a884-3bd8732946bd"
	cases := []struct {
		who, target, same string
		ignored           map[string]int
	}{
		{"streamtuner2 category view", "/json/stations/search?tag=jazz&hidebroken=true&order=click&limit=10",
			"/json/stations/search?tag=jazz&hidebroken=true&limit=10", nil},
		{"streamtuner2 title search", "/json/stations/search?search=jazz&limit=10",
			"/json/stations/search?limit=10", map[string]int{"other": 1}},
		{"PyRadio first query", "/json/stations/topvote/100?reverse=true&hidebroken=true",
			"/json/stations/topvote/100?hidebroken=true", map[string]int{"reverse": 1}},
		{"Go terminal client", "/json/stations/byuuid/" + id + "?hidebroken=true&limit=100&offset=0&order=votes&reverse=true",
			"/json/stations/byuuid/" + id, nil},
		{"upstream names a path does not take", "/json/stations/topclick/5?languagecodes=de&countryCode=PL&tag=x",
			"/json/stations/topclick/5", map[string]int{"languagecodes": 1, "countrycode": 1, "tag": 1}},
		{"a list ignores the search's filters", "/json/tags?name=x&SEARCH=y&limit=3", "/json/tags?limit=3",
			map[string]int{"name": 1, "other": 1}},
	}
	for _, tc := range cases {
		got := serveUp(s, http.MethodGet, tc.target, "", "")
		obs.take()
		want := serveUp(s, http.MethodGet, tc.same, "", "")
		if got.Code != http.StatusOK || got.Body.String() != want.Body.String() || len(got.Body.String()) < 10 {
			t.Errorf("%s: %s: %d %.200s\nwant the answer of %s: %.200s", tc.who, tc.target, got.Code, got.Body, tc.same, want.Body)
		}
		if labels := obs.take(); len(labels) != 0 {
			t.Errorf("%s: %s counted %v", tc.who, tc.same, labels)
		}
		serveUp(s, http.MethodGet, tc.target, "", "")
		if labels := obs.take(); tc.ignored != nil && !equalCounts(labels, tc.ignored) {
			t.Errorf("%s: ignored %v, want %v", tc.who, labels, tc.ignored)
		}
	}
	// hostile names cannot grow the series: any number of them is "other"
	var b strings.Builder
	for i := range 200 {
		b.WriteString("&x" + strconv.Itoa(i) + "=1")
	}
	if rec := serveUp(s, http.MethodGet, "/json/stations/search?limit=1"+b.String(), "", ""); rec.Code != http.StatusOK {
		t.Fatalf("200 unknown names: %d", rec.Code)
	}
	if labels := obs.take(); !equalCounts(labels, map[string]int{"other": 200}) {
		t.Errorf("200 unknown names counted as %v", labels)
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestRBAPIIgnoredMetric: the node's Prometheus metrics count the
// ignored parameters by label, linted clean.
func TestRBAPIIgnoredMetric(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	s := newDemoServer(t, m)
	for _, target := range []string{
		"/json/stations/search?search=jazz&limit=1", "/json/stations/topvote/3?reverse=true&order=votes",
		"/xml/stations/search?Search=x&limit=1", "/json/tags?languagecodes=de",
	} {
		if rec := serveUp(s, http.MethodGet, target, "", ""); rec.Code != http.StatusOK {
			t.Fatalf("%s: %d", target, rec.Code)
		}
	}
	want := `# HELP stationdex_rbapi_ignored_parameters_total Parameters a request under /json/ gave and its path ignored, as upstream ignores them: by the upstream's name, other for any other name.
# TYPE stationdex_rbapi_ignored_parameters_total counter
stationdex_rbapi_ignored_parameters_total{parameter="languagecodes"} 1
stationdex_rbapi_ignored_parameters_total{parameter="order"} 1
stationdex_rbapi_ignored_parameters_total{parameter="other"} 2
stationdex_rbapi_ignored_parameters_total{parameter="reverse"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "stationdex_rbapi_ignored_parameters_total"); err != nil {
		t.Error(err)
	}
	if problems, err := testutil.GatherAndLint(reg, "stationdex_rbapi_ignored_parameters_total"); err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %v", err, problems)
	}
}

// TestRBAPIIgnoredLabels: the label of a name is upstream's spelling of
// its own names, whatever the case or underscores, and other for the
// rest.
func TestRBAPIIgnoredLabels(t *testing.T) {
	for name, want := range map[string]string{
		"countryCode": "countrycode", "HIDEBROKEN": "hidebroken", "has_geo_info": "has_geo_info", "hasgeoinfo": "has_geo_info",
		"languagecodes": "languagecodes", "lastchangeuuid": "lastchangeuuid", "search": "other", "": "other", "x\x00y": "other",
	} {
		if got := rbapi.IgnoredLabel(name); got != want {
			t.Errorf("IgnoredLabel(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestRBAPILenientValues: values upstream reads as its default are read
// so (the same answer as without them), and those upstream fails on are
// a 400 with a JSON error, never a 5xx.
func TestRBAPILenientValues(t *testing.T) {
	s := newDemoServer(t, nil)
	same := [][2]string{
		{"/json/stations?limit=abc", "/json/stations"},
		{"/json/stations?limit=5&offset=-3", "/json/stations?limit=5"},
		{"/json/stations?limit=5&reverse=1", "/json/stations?limit=5"},
		{"/json/stations?limit=5&hidebroken=yes", "/json/stations?limit=5"},
		{"/json/stations?limit=5&order=click&reverse=true", "/json/stations?limit=5&reverse=true"},
		{"/json/stations/search?name=radio&nameExact=True", "/json/stations/search?name=radio"},
		{"/json/stations/search?bitrateMin=1.5&limit=9", "/json/stations/search?limit=9"},
		{"/json/stations/search?geo_lat=45&limit=9", "/json/stations/search?limit=9"},
		{"/json/stations/search?limit=3&limit=9", "/json/stations/search?limit=3"},
		{"/json/stations/byuuid?uuids=nope", "/json/stations/byuuid/nope"},
		{"/json/stations/topvote/ten", "/json/stations/topvote/0"},
	}
	for _, pair := range same {
		got, want := serveUp(s, http.MethodGet, pair[0], "", ""), serveUp(s, http.MethodGet, pair[1], "", "")
		if got.Code != http.StatusOK || got.Body.String() != want.Body.String() {
			t.Errorf("%s: %d, not the answer of %s (%d)", pair[0], got.Code, pair[1], want.Code)
		}
	}
	if got := rbIDs(t, serveUp(s, http.MethodGet, "/json/stations/topvote/ten", "", "").Body.Bytes()); len(got) != 0 {
		t.Errorf("topvote/ten: %d stations, upstream's none", len(got))
	}
	var in strings.Builder
	for i := range 6 {
		fmt.Fprintf(&in, `{"stationuuid":"00000000-0000-4000-8000-%012d","name":"S%d","url":"http://s.example/%d","lastcheckok":%d}`+"\n", i, i, i, i%2)
	}
	few := newBuiltServer(t, indexer.Input{Name: "few", R: strings.NewReader(in.String())}, time.Now())
	// upstream's broken takes no hidebroken: the broken stations either way
	for _, target := range []string{"/json/stations/broken", "/json/stations/broken?hidebroken=true"} {
		if got := rbIDs(t, serveUp(few, http.MethodGet, target, "", "").Body.Bytes()); len(got) != 3 {
			t.Errorf("%s: %d stations, want the 3 broken", target, len(got))
		}
	}
	form := "application/x-www-form-urlencoded"
	bodies := []struct{ ctype, body string }{
		{"application/json", `{"order":"click","search":"x","limit":"3","tagList":[1,"jazz"]}`},
		{"application/json", `not json`},
		{"text/plain", "limit=3"},
		{form, "order=click&limit=3&limit=4"},
	}
	for _, b := range bodies {
		if rec := serveUp(s, http.MethodPost, "/json/stations/search", b.ctype, b.body); rec.Code != http.StatusOK {
			t.Errorf("POST %s %q: %d %s", b.ctype, b.body, rec.Code, rec.Body)
		}
	}
	for _, target := range []string{
		"/json/stations/search?has_geo_info=yes", "/json/stations/search?is_https=1", "/json/stations/search?has_extended_info=",
		"/json/tags?order=votes", "/json/stations/search?name=" + strings.Repeat("x", rbapi.MaxRBTextBytes+1),
		"/json/stations/search?name=%zz",
	} {
		rec := serveUp(s, http.MethodGet, target, "", "")
		if code := errorCode(t, rec); rec.Code != http.StatusBadRequest || code == "" {
			t.Errorf("%.80s: %d %s, want a 400", target, rec.Code, code)
		}
	}
}

// TestRBAPIPreflightJSONBody: a browser app's JSON search passes its
// preflight (POST with Content-Type: application/json, as upstream
// allows), and the search itself carries the CORS headers.
func TestRBAPIPreflightJSONBody(t *testing.T) {
	s := newDemoServer(t, nil)
	for _, target := range []string{"/json/stations/search", "/json/stations/byuuid", "/xml/stations/search"} {
		rec := serve(s, http.MethodOptions, target, "Origin", "https://app.example",
			"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type")
		methods := strings.Split(rec.Header().Get("Access-Control-Allow-Methods"), ", ")
		headers := strings.Split(strings.ToLower(rec.Header().Get("Access-Control-Allow-Headers")), ", ")
		if rec.Code != http.StatusNoContent || !slices.Contains(methods, "POST") || !slices.Contains(headers, "content-type") ||
			rec.Header().Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: %d, methods %v, headers %v", target, rec.Code, methods, headers)
		}
	}
	if rec := serve(s, http.MethodOptions, "/api/stations", "Origin", "https://app.example"); strings.Contains(rec.Header().Get("Access-Control-Allow-Methods"), "POST") {
		t.Errorf("/api/ takes no POST, its preflight says %q", rec.Header().Get("Access-Control-Allow-Methods"))
	}
	req := httptest.NewRequest(http.MethodPost, "/json/stations/search", strings.NewReader(`{"tag":"jazz","limit":2}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "https://app.example")
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	checkAPIResponse(req, rec)
	if rec.Code != http.StatusOK || rec.Header().Get("Access-Control-Allow-Origin") != "*" || len(rbIDs(t, rec.Body.Bytes())) != 2 {
		t.Errorf("POST JSON with Origin: %d, ACAO %q: %.200s", rec.Code, rec.Header().Get("Access-Control-Allow-Origin"), rec.Body)
	}
}

// TestRBAPISourceCodecs: /json/codecs lists the codecs as the source
// gives them (UNKNOWN and "AAC,H.264" among them on the real snapshot),
// each counting the source records that have it, and the codec filter
// and bycodecexact find exactly those stations, as upstream's Codec
// column does.
func TestRBAPISourceCodecs(t *testing.T) {
	t.Parallel() // one of the long tests, run beside each other (server_test.go)
	check := func(t *testing.T, s *Server, source []map[string]any) {
		want := map[string]int{}
		seen, kept := map[string]bool{}, map[string]bool{}
		for _, id := range rbListIDs(t, s, "/json/stations") {
			kept[id] = true // the stations the node has (records it skipped are none)
		}
		for _, r := range source {
			id, _ := r["stationuuid"].(string)
			if id = strings.ToLower(id); seen[id] || !kept[id] {
				continue // the first record of a uuid is kept
			}
			seen[id] = true
			if c, _ := r["codec"].(string); strings.TrimSpace(c) != "" {
				want[strings.TrimSpace(c)]++
			}
		}
		var codecs []rbapi.RBEntry
		if err := json.Unmarshal(serveUp(s, http.MethodGet, "/json/codecs", "", "").Body.Bytes(), &codecs); err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, c := range codecs {
			got[c.Name] = c.StationCount
			if n := len(rbListIDs(t, s, "/json/stations/search?limit=100000&codec="+url.QueryEscape(strings.ToLower(c.Name)))); n != c.StationCount {
				t.Errorf("codec=%s: %d stations, listed %d", c.Name, n, c.StationCount)
			}
		}
		if !equalCounts(got, want) {
			t.Errorf("codecs %v, the source's %v", got, want)
		}
		t.Logf("%d codecs as the source gives them", len(got))
	}
	t.Run("demo", func(t *testing.T) { check(t, newDemoServer(t, nil), demoInput(t)) })
	t.Run("real", func(t *testing.T) {
		ix := realIx(t)
		data, err := realRBAPIOracle()
		if err != nil {
			t.Fatal(err)
		}
		check(t, serverAt(t, ix, testBase), data.source)
	})
}

// rbListIDs are the stationuuids of a station list, decoded without the
// rest of each object (the real snapshot's whole list is 70 MB).
func rbListIDs(t *testing.T, s *Server, target string) []string {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	var objs []struct {
		ID string `json:"stationuuid"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &objs); err != nil {
		t.Fatalf("%s: %d %v", target, rec.Code, err)
	}
	ids := make([]string, len(objs))
	for i, o := range objs {
		ids[i] = o.ID
	}
	return ids
}

// TestRBAPIUpstreamValues: the values upstream gives on /json/: a
// country filter matches the code (and countries go by code), a
// station's url says whether its last check passed, and a state keeps
// its country key even when it has none.
func TestRBAPIUpstreamValues(t *testing.T) {
	s := newDemoServer(t, nil)
	var countries []map[string]any
	if err := json.Unmarshal(serveUp(s, http.MethodGet, "/json/countries/at", "", "").Body.Bytes(), &countries); err != nil {
		t.Fatal(err)
	}
	if len(countries) != 1 || countries[0]["iso_3166_1"] != "AT" {
		t.Errorf("/json/countries/at: %v, want Austria by its code", countries)
	}
	if err := json.Unmarshal(serveUp(s, http.MethodGet, "/json/countries/austria", "", "").Body.Bytes(), &countries); err != nil || len(countries) != 0 {
		t.Errorf("/json/countries/austria: %v, upstream matches codes only", countries)
	}
	if err := json.Unmarshal(serveUp(s, http.MethodGet, "/json/countries", "", "").Body.Bytes(), &countries); err != nil ||
		!slices.IsSortedFunc(countries, func(a, b map[string]any) int {
			return strings.Compare(a["iso_3166_1"].(string), b["iso_3166_1"].(string))
		}) {
		t.Errorf("/json/countries: not in code order, as upstream's")
	}
	var states []map[string]any
	if err := json.Unmarshal(serveUp(s, http.MethodGet, "/json/states", "", "").Body.Bytes(), &states); err != nil || len(states) == 0 {
		t.Fatal(err)
	}
	for _, st := range states {
		if _, has := st["country"]; !has {
			t.Errorf("state %v has no country key", st)
		}
	}
	var in strings.Builder
	for i := range 2 {
		fmt.Fprintf(&in, `{"stationuuid":"00000000-0000-4000-8000-%012d","name":"S%d","url":"http://s.example/%d","lastcheckok":%d}`+"\n", i, i, i, i)
	}
	few := newBuiltServer(t, indexer.Input{Name: "two", R: strings.NewReader(in.String())}, time.Now())
	for i, want := range []bool{false, true} {
		var click rbapi.RBClick
		target := fmt.Sprintf("/json/url/00000000-0000-4000-8000-%012d", i)
		if err := json.Unmarshal(serveUp(few, http.MethodGet, target, "", "").Body.Bytes(), &click); err != nil || click.OK != want {
			t.Errorf("%s: %+v, want ok %v (its last check)", target, click, want)
		}
	}
}

// TestRBAPISourceTags: /json/tags lists the tags as upstream's tag cache
// has them (each of a station's comma list, trimmed and lower-cased:
// spellings not merged, none cut, none past a station's 64th), each
// counting the stations that list it, and tagExact finds exactly those.
func TestRBAPISourceTags(t *testing.T) {
	t.Parallel() // one of the long tests, run beside each other (server_test.go)
	check := func(t *testing.T, s *Server, source []map[string]any) {
		kept := map[string]bool{}
		for _, id := range rbListIDs(t, s, "/json/stations") {
			kept[id] = true
		}
		want := map[string]int{}
		for _, r := range source {
			id, _ := r["stationuuid"].(string)
			if id = strings.ToLower(id); !kept[id] {
				continue
			}
			kept[id] = false // the first record of a uuid is kept
			tags := storedText(r, "tags")
			seen := map[string]bool{}
			for _, tag := range strings.Split(tags, ",") {
				if tag = strings.ToLower(strings.TrimSpace(tag)); tag != "" && !seen[tag] {
					seen[tag] = true
					want[tag]++
				}
			}
		}
		var tags []rbapi.RBEntry
		if err := json.Unmarshal(serveUp(s, http.MethodGet, "/json/tags?order=stationcount&reverse=true", "", "").Body.Bytes(), &tags); err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for i, e := range tags {
			got[e.Name] = e.StationCount
			if i < 25 || i%500 == 0 {
				target := "/json/stations/search?limit=100000&tagExact=true&tag=" + url.QueryEscape(e.Name)
				if n := len(rbListIDs(t, s, target)); n != e.StationCount {
					t.Errorf("tag %q: %d stations found, listed %d", e.Name, n, e.StationCount)
				}
			}
		}
		if !equalCounts(got, want) {
			t.Errorf("%d tags listed, the source has %d", len(got), len(want))
		}
		t.Logf("%d tags as upstream's tag cache has them", len(got))
	}
	t.Run("demo", func(t *testing.T) { check(t, newDemoServer(t, nil), demoInput(t)) })
	t.Run("real", func(t *testing.T) {
		ix := realIx(t)
		data, err := realRBAPIOracle()
		if err != nil {
			t.Fatal(err)
		}
		check(t, serverAt(t, ix, testBase), data.source)
	})
}

// storedText is a text field of a source record as the index stores it:
// cut at 2048 characters (the node's bound; server/API.md), trailing
// spaces then dropped.
func storedText(r map[string]any, field string) string {
	v, _ := r[field].(string)
	if runes := []rune(v); len(runes) > 2048 {
		return strings.TrimRight(string(runes[:2048]), " ")
	}
	return v
}

package server

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"stationdex/internal/stationjson"
	"stationdex/server/params"
)

type goldenCase struct {
	name, method, target string
	status               int
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenCases are representative responses of the demo snapshot. Each body
// is kept, indented, in testdata/golden/{name}.json; regenerate them with
//
//	go test ./server -run TestGolden -update
var goldenCases = []goldenCase{
	{"search_default", "GET", "/api/stations", 200},
	{"search_q", "GET", "/api/stations?q=radio&limit=5", 200},
	{"search_accent_folding", "GET", "/api/stations?q=radio+comercial", 200},
	{"search_filters", "GET", "/api/stations?q=jazz&country=us&language=English&genre=jazz", 200},
	{"search_language_code", "GET", "/api/stations?language=deu&limit=50", 200},
	{"search_page_2", "GET", "/api/stations?q=radio&limit=3&offset=3", 200},
	{"search_last_page", "GET", "/api/stations?limit=10&offset=40", 200},
	{"search_past_end", "GET", "/api/stations?offset=5000", 200},
	{"search_no_match", "GET", "/api/stations?q=zzzzqqq&genre=nosuchgenre", 200},
	{"search_markup", "GET", "/api/stations?q=markup", 200},
	{"station", "GET", "/api/stations/cbbf6759-8124-405d-a884-3bd8732946bd", 200},
	{"station_sparse", "GET", "/api/stations/253a93d8-5072-4966-a574-aefca828a759", 200},
	{"station_unknown", "GET", "/api/stations/00000000-0000-0000-0000-000000000000", 404},
	{"station_malformed_id", "GET", "/api/stations/not-a-uuid", 404},
	{"error_invalid_limit", "GET", "/api/stations?limit=100", 400},
	{"error_unknown_parameter", "GET", "/api/stations?order=name", 400},
	{"error_repeated_parameter", "GET", "/api/stations?q=a&q=b", 400},
	{"error_invalid_utf8", "GET", "/api/stations?q=%FF", 400},
	{"error_method_not_allowed", "DELETE", "/api/stations", 405},
	{"search_facets", "GET", "/api/stations?q=radio&facets=country,language,genre&facet_limit=3&limit=2", 200},
	{"search_facets_filtered", "GET", "/api/stations?country=AT&facets=country,genre&limit=1", 200},
	{"search_suggestions", "GET", "/api/stations?q=jaz+cornr&limit=2", 200},
	{"search_codec_bitrate", "GET", "/api/stations?codec=aac,MP3&bitrate_min=64&bitrate_max=128&limit=3", 200},
	{"search_near", "GET", "/api/stations?near=48.2082,16.3738&radius_km=250", 200},
	{"error_radius_without_near", "GET", "/api/stations?radius_km=10", 400},
	{"error_codec_plus", "GET", "/api/stations?codec=aac+", 400},
	{"error_bad_facets", "GET", "/api/stations?facets=country,country", 400},
}

func TestGolden(t *testing.T) {
	s := newDemoServer(t, nil)
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			rec := serve(s, tc.method, tc.target, "Origin", "https://app.example")
			if rec.Code != tc.status {
				t.Errorf("status %d, want %d", rec.Code, tc.status)
			}
			checkJSONHeaders(t, rec)
			var got bytes.Buffer
			if err := json.Indent(&got, rec.Body.Bytes(), "", "  "); err != nil {
				t.Fatalf("body is not JSON: %v: %q", err, rec.Body)
			}
			got.WriteByte('\n')
			compareGolden(t, filepath.Join("testdata", "golden", tc.name+".json"), got.Bytes())
		})
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./server -run TestGolden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestGoldenFilesHaveCases: every golden file belongs to a case, so a renamed
// case cannot leave a stale file behind that nothing checks, and an empty
// directory fails.
func TestGoldenFilesHaveCases(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files (%v)", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if !slices.ContainsFunc(goldenCases, func(c goldenCase) bool { return c.name == name }) {
			t.Errorf("golden file %s has no case", f)
		}
	}
}

func checkJSONHeaders(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	h := rec.Header()
	if got := h.Get("Content-Type"); got != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", got)
	}
	if got := h.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options %q", got)
	}
	if got := h.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("Access-Control-Allow-Origin %q", got)
	}
	if !slices.Contains(varyFields(h), "Origin") {
		t.Errorf("Vary %q does not name Origin", h.Values("Vary"))
	}
	if rec.Code == http.StatusOK {
		if h.Get("ETag") == "" || h.Get("Cache-Control") != "public, max-age=300" {
			t.Errorf("cache headers: ETag %q Cache-Control %q", h.Get("ETag"), h.Get("Cache-Control"))
		}
	} else if h.Get("ETag") != "" || h.Get("Cache-Control") != "no-store" {
		t.Errorf("error cache headers: ETag %q Cache-Control %q", h.Get("ETag"), h.Get("Cache-Control"))
	}
}

// TestUpperCaseID: an upper-case id finds the station, which is served with
// its canonical lower-case id and URLs.
func TestUpperCaseID(t *testing.T) {
	s := newDemoServer(t, nil)
	lower := serve(s, http.MethodGet, "/api/stations/cbbf6759-8124-405d-a884-3bd8732946bd")
	upper := serve(s, http.MethodGet, "/api/stations/CBBF6759-8124-405D-A884-3BD8732946BD")
	if upper.Code != http.StatusOK || upper.Body.String() != lower.Body.String() {
		t.Fatalf("upper-case id: %d %s", upper.Code, upper.Body)
	}
	if upper.Header().Get("ETag") != lower.Header().Get("ETag") {
		t.Errorf("ETags differ for one body")
	}
}

// TestNextLinksWalk follows next from the first page to the last, for several
// queries and page sizes: the pages together must be exactly the one-page
// answer, in the same order, with no overlap or gap, and the last page has no
// next.
func TestNextLinksWalk(t *testing.T) {
	s := newDemoServer(t, nil)
	for _, q := range []string{"", "q=radio", "q=demo", "country=us", "q=jazz", "genre=pop", "language=english", "q=r%C3%A1dio", "genre=80%27s", "q=+radio+%26+"} {
		all := decodeSearch(t, serve(s, http.MethodGet, "/api/stations?limit=50&"+q).Body)
		if all.Total > 50 || all.Total != len(all.Results) {
			t.Fatalf("%s: demo too big for a one-page answer: %d", q, all.Total)
		}
		for _, limit := range []string{"1", "2", "3", "7", "20"} {
			ids := walk(t, s, "/api/stations?limit="+limit+"&"+q, all.Total)
			if !slices.Equal(ids, stationIDs(all.Results)) {
				t.Errorf("%s limit %s: walked\n%q\nwant\n%q", q, limit, ids, stationIDs(all.Results))
			}
		}
	}
}

func walk(t *testing.T, s *Server, target string, total int) []string {
	t.Helper()
	var ids []string
	for pages := 0; ; pages++ {
		if pages > 60 {
			t.Fatalf("%s: next links do not end", target)
		}
		rec := serve(s, http.MethodGet, target)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: status %d", target, rec.Code)
		}
		env := decodeSearch(t, rec.Body)
		if env.Total != total {
			t.Fatalf("%s: total %d, first page said %d", target, env.Total, total)
		}
		ids = append(ids, stationIDs(env.Results)...)
		if env.Next == nil {
			return ids
		}
		if len(env.Results) != env.Limit {
			t.Fatalf("%s: short page %d of %d has a next link", target, len(env.Results), env.Limit)
		}
		next, ok := strings.CutPrefix(*env.Next, testBase)
		if !ok {
			t.Fatalf("next %q is not under %s", *env.Next, testBase)
		}
		target = next
	}
}

func stationIDs(l []stationjson.Station) []string {
	ids := make([]string, len(l))
	for i, st := range l {
		ids[i] = st.ID
	}
	return ids
}

// TestNextStopsAtOffsetCap: a next link never points past offset 5000, the
// last reachable one, even when more stations match.
func TestNextStopsAtOffsetCap(t *testing.T) {
	s := newEmptyServer(t)
	for _, tc := range []struct {
		offset, limit, total int
		want                 string // "" for null
	}{
		{0, 20, 20, ""},
		{0, 20, 21, "/api/stations?limit=20&offset=20"},
		{4980, 20, 100000, "/api/stations?limit=20&offset=5000"},
		{4990, 20, 100000, ""},
		{5000, 1, 100000, ""},
		{4999, 1, 100000, "/api/stations?limit=1&offset=5000"},
		{30, 10, 20, ""}, // already past the end
	} {
		got := params.NextPage(s.Base, params.SearchParams{Limit: tc.limit, Offset: tc.offset}, tc.total)
		switch {
		case tc.want == "" && got != nil:
			t.Errorf("%+v: next %q, want null", tc, *got)
		case tc.want != "" && (got == nil || *got != testBase+tc.want):
			t.Errorf("%+v: next %v, want %s", tc, got, testBase+tc.want)
		}
	}
}

func TestETagAndNotModified(t *testing.T) {
	s := newDemoServer(t, nil)
	const target = "/api/stations?q=jazz&limit=5"
	first := serve(s, http.MethodGet, target)
	tag := first.Header().Get("ETag")
	if first.Code != http.StatusOK || !strings.HasPrefix(tag, `"`) {
		t.Fatalf("status %d ETag %q", first.Code, tag)
	}
	for _, inm := range []string{tag, "W/" + tag, `"nope", ` + tag, `"a",` + tag + `,"b"`, "*"} {
		rec := serve(s, http.MethodGet, target, "If-None-Match", inm)
		if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
			t.Errorf("If-None-Match %s: status %d body %d bytes", inm, rec.Code, rec.Body.Len())
		}
		if rec.Header().Get("ETag") != tag || rec.Header().Get("Cache-Control") == "" {
			t.Errorf("If-None-Match %s: headers %v", inm, rec.Header())
		}
	}
	for _, inm := range []string{`"nope"`, strings.Trim(tag, `"`), `W/"x"`, tag[:len(tag)-1]} {
		if rec := serve(s, http.MethodGet, target, "If-None-Match", inm); rec.Code != http.StatusOK {
			t.Errorf("If-None-Match %s: status %d, want 200", inm, rec.Code)
		}
	}
	if rec := serve(s, http.MethodGet, target, "If-None-Match", `"nope"`, "If-None-Match", tag); rec.Code != http.StatusNotModified {
		t.Errorf("tag in a second If-None-Match header: status %d", rec.Code)
	}
	if rec := serve(s, http.MethodHead, target, "If-None-Match", tag); rec.Code != http.StatusNotModified {
		t.Errorf("HEAD with If-None-Match: status %d", rec.Code)
	}
}

// TestETagIdentifiesTheBody: one request spelt two ways shares a tag; any
// change of the body changes it.
func TestETagIdentifiesTheBody(t *testing.T) {
	s := newDemoServer(t, nil)
	tag := func(target string) string { return serve(s, http.MethodGet, target).Header().Get("ETag") }
	same := [][2]string{
		{"/api/stations?q=jazz&limit=5", "/api/stations?limit=05&q=jazz&offset=0"},
		{"/api/stations", "/api/stations?limit=20&offset=0&q="},
		{"/api/stations?q=radio+star", "/api/stations?q=radio%20star"},
	}
	for _, p := range same {
		if tag(p[0]) != tag(p[1]) {
			t.Errorf("%s and %s have different tags", p[0], p[1])
		}
	}
	differ := [][2]string{
		{"/api/stations?q=jazz", "/api/stations?q=Jazz"}, // q is echoed as given
		{"/api/stations?country=us", "/api/stations?country=US"},
		{"/api/stations?limit=5", "/api/stations?limit=6"},
		{"/api/stations", "/api/stations/cbbf6759-8124-405d-a884-3bd8732946bd"},
	}
	for _, p := range differ {
		if tag(p[0]) == tag(p[1]) {
			t.Errorf("%s and %s share a tag", p[0], p[1])
		}
	}
	other := New(Config{BaseURL: mustParseURL(t, "https://elsewhere.example")}, s.Src)
	defer other.Close()
	if serve(other, http.MethodGet, "/api/stations").Header().Get("ETag") == tag("/api/stations") {
		t.Errorf("a different base URL (different links) shares the tag")
	}
}

// TestNotModifiedOnlyForExisting: "*" means "any current representation", so
// a station that does not exist is still a 404.
func TestNotModifiedOnlyForExisting(t *testing.T) {
	s := newDemoServer(t, nil)
	rec := serve(s, http.MethodGet, "/api/stations/00000000-0000-0000-0000-000000000000", "If-None-Match", "*")
	if rec.Code != http.StatusNotFound {
		t.Fatalf("status %d", rec.Code)
	}
}

// TestHead runs over a real connection, where net/http decides what HEAD
// sends: the same status and headers as GET, Content-Length included, and no
// body.
func TestHead(t *testing.T) {
	ts := httptest.NewServer(newDemoServer(t, nil).Handler())
	defer ts.Close()
	for _, path := range []string{"/api/stations?q=radio", "/api/stations/cbbf6759-8124-405d-a884-3bd8732946bd", "/api/stations?limit=0", "/api/stations/nope"} {
		get := do(t, http.MethodGet, ts.URL+path)
		head := do(t, http.MethodHead, ts.URL+path)
		if head.status != get.status || len(head.body) != 0 {
			t.Errorf("%s: HEAD %d with %d body bytes; GET %d", path, head.status, len(head.body), get.status)
		}
		for _, name := range []string{"Content-Type", "Content-Length", "ETag", "Cache-Control", "Access-Control-Allow-Origin"} {
			if head.header.Get(name) != get.header.Get(name) {
				t.Errorf("%s: HEAD %s %q, GET %q", path, name, head.header.Get(name), get.header.Get(name))
			}
		}
		if get.header.Get("Content-Length") != strconv.Itoa(len(get.body)) {
			t.Errorf("%s: Content-Length %s for %d bytes", path, get.header.Get("Content-Length"), len(get.body))
		}
	}
}

func mustParseURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends one request asking for the identity coding, so that GET and
// HEAD are compared alike (Go's transport asks for gzip on GET only, and
// then hides Content-Length); compressed answers are tested in
// respond_test.go.
func do(t *testing.T, method, u string) response {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, body}
}

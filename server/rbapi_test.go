package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"stationdex/indexer"
	"stationdex/indexer/demo"
	"stationdex/internal/fold"
	"stationdex/internal/format"
	"stationdex/internal/iso"
	"stationdex/internal/stationjson"
	"stationdex/query"
	"stationdex/server/core"
	"stationdex/server/rbapi"
)

// serveUp runs one request with an optional body through s.
func serveUp(s *Server, method, target, contentType, body string) *httptest.ResponseRecorder {
	var rd *strings.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, nil)
	if rd != nil {
		req = httptest.NewRequest(method, target, rd)
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	checkAPIResponse(req, rec) // openapi_test.go: the response must conform to openapi.json
	return rec
}

// TestRBParams: where parameters are read from, how names match, what
// each kind accepts, what is refused and with which code.
func TestRBParams(t *testing.T) {
	form, jsonType := "application/x-www-form-urlencoded", "application/json"
	cases := []struct {
		name, method, target, ctype, body string
		want                              map[rbapi.RBParam]string // nil: an error
		code                              core.Code
	}{
		{"query", "GET", "/x?countrycode=PT&limit=3", "", "", map[rbapi.RBParam]string{rbapi.RBCountryCode: "PT", rbapi.RBLimit: "3"}, ""},
		{"npm lower case", "GET", "/x?bitratemin=64&nameexact=true&hasextendedinfo=false&ishttps=true", "", "",
			map[rbapi.RBParam]string{rbapi.RBBitrateMin: "64", rbapi.RBNameExact: "true", rbapi.RBHasExtendedInfo: "false", rbapi.RBIsHTTPS: "true"}, ""},
		{"documented spelling", "GET", "/x?bitrateMin=64&has_geo_info=true&tagList=a,b", "", "",
			map[rbapi.RBParam]string{rbapi.RBBitrateMin: "64", rbapi.RBHasGeoInfo: "true", rbapi.RBTagList: "a,b"}, ""},
		{"form body wins", "POST", "/x?limit=3", form, "limit=5&codec=mp3", map[rbapi.RBParam]string{rbapi.RBLimit: "5", rbapi.RBCodec: "mp3"}, ""},
		{"json body", "POST", "/x", jsonType, `{"limit":5,"hidebroken":true,"tagList":["a","b"],"name":null}`,
			map[rbapi.RBParam]string{rbapi.RBLimit: "5", rbapi.RBHideBroken: "true", rbapi.RBTagList: "a,b"}, ""},
		{"multipart", "POST", "/x", "multipart/form-data; boundary=B", "--B\r\nContent-Disposition: form-data; name=\"order\"\r\n\r\nname\r\n--B--\r\n",
			map[rbapi.RBParam]string{rbapi.RBOrder: "name"}, ""},
		// what upstream answers, this node answers with upstream's meaning
		{"unknown ignored", "GET", "/x?countryCod=PT&search=jazz&limit=2", "", "", map[rbapi.RBParam]string{rbapi.RBLimit: "2"}, ""},
		{"not taken here ignored", "GET", "/x?uuids=a", "", "", map[rbapi.RBParam]string{}, ""},
		{"repeated: the first", "GET", "/x?limit=1&limit=2", "", "", map[rbapi.RBParam]string{rbapi.RBLimit: "1"}, ""},
		{"repeated by spelling: the row's", "GET", "/x?bitratemin=2&bitrateMin=1", "", "", map[rbapi.RBParam]string{rbapi.RBBitrateMin: "1"}, ""},
		{"repeated by spelling in a form", "POST", "/x", "application/x-www-form-urlencoded", "countryCode=PL&countrycode=x", map[rbapi.RBParam]string{rbapi.RBCountryCode: "x"}, ""},
		{"repeated by spelling in JSON", "POST", "/x", "application/json", `{"tagList":"a","taglist":"b"}`, map[rbapi.RBParam]string{rbapi.RBTagList: "a"}, ""},
		{"bool yes is false", "GET", "/x?hidebroken=yes", "", "", map[rbapi.RBParam]string{rbapi.RBHideBroken: "false"}, ""},
		{"bool 1 is false", "GET", "/x?reverse=1&nameExact=True", "", "", map[rbapi.RBParam]string{rbapi.RBNameExact: "false", rbapi.RBReverse: "false"}, ""},
		{"count abc is the default", "GET", "/x?limit=abc&offset=-1&bitrateMin=%2B5", "", "", map[rbapi.RBParam]string{}, ""},
		{"count huge is the default", "GET", "/x?limit=99999999999999999999", "", "", map[rbapi.RBParam]string{}, ""},
		{"decimal NaN is none", "GET", "/x?geo_lat=NaN", "", "", map[rbapi.RBParam]string{}, ""},
		{"bad utf-8 replaced", "GET", "/x?name=a%ff", "", "", map[rbapi.RBParam]string{rbapi.RBName: "a\uFFFD"}, ""},
		{"json nested ignored", "POST", "/x", jsonType, `{"name":{"a":1},"limit":2}`, map[rbapi.RBParam]string{rbapi.RBLimit: "2"}, ""},
		{"json not object ignored", "POST", "/x?limit=3", jsonType, `[1]`, map[rbapi.RBParam]string{rbapi.RBLimit: "3"}, ""},
		{"json bool text", "POST", "/x", jsonType, `{"hidebroken":"yes"}`, map[rbapi.RBParam]string{rbapi.RBHideBroken: "false"}, ""},
		{"body type ignored", "POST", "/x?limit=4", "text/plain", "limit=5", map[rbapi.RBParam]string{rbapi.RBLimit: "4"}, ""},
		// where upstream fails, or past the node's bounds: a 400
		{"tri-state yes", "GET", "/x?has_geo_info=yes", "", "", nil, core.CodeInvalidParameter},
		{"tri-state True", "GET", "/x?is_https=True", "", "", nil, core.CodeInvalidParameter},
		{"tri-state in JSON", "POST", "/x", jsonType, `{"has_extended_info":1}`, nil, core.CodeInvalidParameter},
		{"long text", "GET", "/x?name=" + strings.Repeat("a", rbapi.MaxRBTextBytes+1), "", "", nil, core.CodeInvalidParameter},
		{"bad escape", "GET", "/x?name=%zz", "", "", nil, core.CodeInvalidRequest},
		{"body too long", "POST", "/x", form, "name=" + strings.Repeat("a", rbapi.MaxRBBodyBytes), nil, core.CodeInvalidRequest},
	}
	for _, tc := range cases {
		req := httptest.NewRequest(tc.method, tc.target, strings.NewReader(tc.body))
		if tc.body == "" {
			req = httptest.NewRequest(tc.method, tc.target, nil)
		}
		req.Header.Set("Content-Type", tc.ctype)
		p, err := rbapi.ParseRBParams(req, rbapi.RBSearchParams)
		if tc.want == nil {
			var e *core.Error
			if !errors.As(err, &e) || e.Code != tc.code {
				t.Errorf("%s: error %v, want code %s", tc.name, err, tc.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		for q := range rbapi.NumRBParams {
			if want, ok := tc.want[q]; ok != p.Has(q) || p.Text(q) != want {
				t.Errorf("%s: %s = %q (given %v), want %q", tc.name, rbapi.RBParamRows[q].Name, p.Text(q), p.Has(q), want)
			}
		}
	}
}

// TestRBAPIStatuses: each path answers with its status and, for an
// error, the JSON error body of its code: hostile or unsupported input is
// a 4xx (or a 501 for what upstream serves and this node not yet), never
// a 500.
func TestRBAPIStatuses(t *testing.T) {
	s := newDemoServer(t, nil)
	const id = "cbbf6759-8124-405d-a884-3bd8732946bd"
	cases := []struct {
		method, target string
		status         int
		code           core.Code
	}{
		{"GET", "/json/stations", 200, ""},
		{"POST", "/json/stations", 200, ""},
		{"HEAD", "/json/stations/search?countrycode=PT", 200, ""},
		{"GET", "/json/stations/byuuid/" + id, 200, ""},
		{"GET", "/json/stations/byuuid?uuids=" + id + "," + strings.ToUpper(id), 200, ""},
		{"GET", "/json/stations/bycountrycodeexact/pt?hidebroken=true", 200, ""},
		{"GET", "/json/url/" + id, 200, ""},
		{"GET", "/json/countries/ger?order=stationcount&reverse=true", 200, ""},
		{"GET", "/json/states/germany/", 200, ""},
		{"GET", "/json/stats", 200, ""},
		{"GET", "/json/servers", 200, ""},
		{"GET", "/json/vote/" + id, 403, core.CodeReadOnly},
		{"POST", "/json/add", 403, core.CodeReadOnly},
		{"GET", "/json/stations/topvote/10", 200, ""},
		{"GET", "/json/stations/broken?hidebroken=true", 200, ""},
		{"GET", "/json/stations/lastclick?limit=2&offset=1", 200, ""},
		{"GET", "/json/stations/topclick/ten", 200, ""},          // upstream: no number is 0
		{"GET", "/json/stations/topclick/1?order=name", 200, ""}, // ignored
		{"GET", "/json/stations/changed", 501, core.CodeNotImplemented},
		{"GET", "/json/stations/byname/jazz", 200, ""},
		{"GET", "/json/stations/bycodec/ac", 200, ""},
		{"GET", "/json/stations/search?name=jazz&tag=j&tagList=a,b&country=x&state=y&language=z", 200, ""},
		{"GET", "/json/stations/byname", 404, core.CodeNotFound},
		{"GET", "/json/stations?order=votes", 200, ""},
		{"GET", "/json/stations/search?order=lastCheckOK&reverse=true", 200, ""},
		{"GET", "/json/checks", 501, core.CodeNotImplemented},
		{"GET", "/json/stations?order=bogus", 200, ""},
		{"GET", "/json/tags?order=votes", 400, core.CodeInvalidParameter}, // upstream: 500
		{"GET", "/json/stations?hidebroken=yes", 200, ""},
		{"GET", "/json/stations/search?has_geo_info=yes", 400, core.CodeInvalidParameter}, // upstream: 500
		{"GET", "/json/stations?limit=-1&limit=3", 200, ""},
		{"GET", "/json/stations?countrycode=PT&limit=2", 200, ""},
		{"GET", "/json/stations/byuuid?uuids=nope", 200, ""},
		{"GET", "/json/stations/byuuid/nope", 200, ""},
		{"GET", "/json/stations/byurl", 200, ""},
		{"GET", "/json/stations/search?geo_lat=1&geo_long=2", 200, ""},
		{"GET", "/json/stations/search?geo_lat=1&geo_distance=2", 200, ""},
		{"GET", "/json/stations/search?geo_distance=5", 200, ""},
		{"GET", "/json/stations/search?geo_lat=1&geo_long=2&geo_distance=0", 200, ""},
		{"GET", "/json/stations/search?geo_lat=1&geo_long=181", 200, ""},
		{"GET", "/json/stations/search?geo_lat=x&geo_long=1", 200, ""},
		{"GET", "/json/url/nope", 404, core.CodeNotFound},
		{"GET", "/json/url/00000000-0000-4000-8000-000000000000", 404, core.CodeNotFound},
		{"GET", "/json/nothing", 404, core.CodeNotFound},
		{"GET", "/json/stations/search/extra", 404, core.CodeNotFound},
		{"PUT", "/json/stations", 405, core.CodeMethodNotAllowed},
	}
	for _, tc := range cases {
		rec := serveUp(s, tc.method, tc.target, "", "")
		if rec.Code != tc.status {
			t.Errorf("%s %s: %d, want %d: %s", tc.method, tc.target, rec.Code, tc.status, rec.Body)
			continue
		}
		if ct := rec.Header().Get("Content-Type"); ct != core.JSONType {
			t.Errorf("%s %s: Content-Type %q", tc.method, tc.target, ct)
		}
		if tc.code != "" {
			if got := errorCode(t, rec); got != tc.code {
				t.Errorf("%s %s: code %s, want %s", tc.method, tc.target, got, tc.code)
			}
		} else if tc.method != "HEAD" && !json.Valid(rec.Body.Bytes()) {
			t.Errorf("%s %s: not JSON: %s", tc.method, tc.target, rec.Body)
		}
	}
}

// rbIDs decodes a list of station objects to their stationuuids.
func rbIDs(t *testing.T, body []byte) []string {
	t.Helper()
	var objs []map[string]any
	if err := json.Unmarshal(body, &objs); err != nil {
		t.Fatalf("%v: %.300s", err, body)
	}
	ids := []string{}
	for _, o := range objs {
		ids = append(ids, o["stationuuid"].(string))
	}
	return ids
}

// demoInput is the demo snapshot's records as the source has them.
func demoInput(t *testing.T) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for line := range bytes.Lines(demo.NDJSON) {
		var r map[string]any
		if json.Unmarshal(line, &r) == nil { // the demo's malformed records are skipped
			recs = append(recs, r)
		}
	}
	return recs
}

// TestRBAPIStationObjects: /json/stations sends every demo station
// (the kept ones: no skipped record), in name order, each object the
// input record's fields plus page_url on the server's base URL, and its
// text escaped byte for byte as encoding/json escapes it.
func TestRBAPIStationObjects(t *testing.T) {
	s := newDemoServer(t, nil)
	rec := serveUp(s, "GET", "/json/stations", "", "")
	var objs []map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &objs); err != nil {
		t.Fatal(err)
	}
	byID := map[string]map[string]any{}
	for _, r := range demoInput(t) {
		if _, dup := byID[r["stationuuid"].(string)]; !dup { // the first of a uuid is kept
			byID[r["stationuuid"].(string)] = r
		}
	}
	if len(objs) < 40 {
		t.Fatalf("%d stations", len(objs))
	}
	for _, o := range objs {
		id := o["stationuuid"].(string)
		in, ok := byID[id]
		if !ok {
			t.Fatalf("station %s is not in the input", id)
		}
		for k, v := range in {
			if fmt.Sprint(o[k]) != fmt.Sprint(v) {
				t.Errorf("%s: %s = %v, input %v", id, k, o[k], v)
			}
		}
		if o["page_url"] != testBase+"/stations/"+id+"/" || len(o) != len(in)+1 {
			t.Errorf("%s: page_url %v, %d fields for %d", id, o["page_url"], len(o), len(in))
		}
	}
	body := rec.Body.String()
	if !strings.Contains(body, `"name":"\u003cscript\u003ealert('x')\u003c/script\u003e Markup Radio"`) || strings.ContainsAny(body, "<>") {
		t.Errorf("markup not escaped as encoding/json escapes it")
	}
}

// TestRBAPIPaging: offset, limit and reverse walk the name order; the
// by* paths and search filters pick what an oracle over the input picks.
func TestRBAPIPaging(t *testing.T) {
	s := newDemoServer(t, nil)
	all := rbIDs(t, serveUp(s, "GET", "/json/stations", "", "").Body.Bytes())
	rev := slices.Clone(all)
	slices.Reverse(rev)
	for _, tc := range []struct {
		target string
		want   []string
	}{
		{"/json/stations?limit=5", all[:5]},
		{"/json/stations?offset=40&limit=5", all[40:]},
		{"/json/stations?offset=400", []string{}},
		{"/json/stations?limit=0", []string{}},
		{"/json/stations?reverse=true&offset=3&limit=4", rev[3:7]},
		{"/json/stations?order=NAME&reverse=false", all},
	} {
		if got := rbIDs(t, serveUp(s, "GET", tc.target, "", "").Body.Bytes()); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.target, got, tc.want)
		}
	}
}

// TestRBAPIFilters: the exact filters select what an oracle over the
// input records selects, in name order.
func TestRBAPIFilters(t *testing.T) {
	s := newDemoServer(t, nil)
	all := rbIDs(t, serveUp(s, "GET", "/json/stations", "", "").Body.Bytes())
	in := map[string]map[string]any{}
	for _, r := range demoInput(t) {
		if _, dup := in[r["stationuuid"].(string)]; !dup { // the first of a uuid is kept
			in[r["stationuuid"].(string)] = r
		}
	}
	oracle := func(keep func(r map[string]any) bool) []string {
		ids := []string{}
		for _, id := range all {
			if keep(in[id]) {
				ids = append(ids, id)
			}
		}
		return ids
	}
	str := func(r map[string]any, k string) string { v, _ := r[k].(string); return v }
	cases := []struct {
		target string
		keep   func(r map[string]any) bool
	}{
		{"/json/stations/search?countrycode=de", func(r map[string]any) bool { return strings.EqualFold(str(r, "countrycode"), "DE") }},
		{"/json/stations/bycountrycodeexact/us", func(r map[string]any) bool { return strings.EqualFold(str(r, "countrycode"), "US") }},
		{"/json/stations/search?countryExact=true&country=the%20united%20states%20of%20america",
			func(r map[string]any) bool { return str(r, "country") == "The United States Of America" }},
		{"/json/stations/search?has_geo_info=true", func(r map[string]any) bool { return r["geo_lat"] != nil && r["geo_long"] != nil }},
		{"/json/stations/search?has_geo_info=false", func(r map[string]any) bool { return r["geo_lat"] == nil || r["geo_long"] == nil }},
		{"/json/stations/search?has_extended_info=false", func(r map[string]any) bool { return r["has_extended_info"] != true }},
		{"/json/stations/search?hidebroken=true&countrycode=PT", func(r map[string]any) bool {
			return r["lastcheckok"] == 1.0 && str(r, "countrycode") == "PT"
		}},
		{"/json/stations/byurl?url=https://stream.example.pt/comercial.mp3",
			func(r map[string]any) bool { return str(r, "url") == "https://stream.example.pt/comercial.mp3" }},
		{"/json/stations/bynameexact/r%C3%A1dio%20comercial%20demo", func(r map[string]any) bool { return str(r, "name") == "Rádio Comercial Demo" }},
		{"/json/stations/search?name=JAZZ", func(r map[string]any) bool { return nameHolds(str(r, "name"), "jazz") }},
		{"/json/stations/byname/o3", func(r map[string]any) bool { return nameHolds(str(r, "name"), "o3") }},
		// a term with a slash, encoded as clients send it and not
		{"/json/stations/byname/24%2F7", func(r map[string]any) bool { return nameHolds(str(r, "name"), "24/7") }},
		{"/json/stations/bynameexact/talk%2024/7", func(r map[string]any) bool { return str(r, "name") == "Talk 24/7" }},
		{"/json/stations/search?name=dio%20c&countrycode=PT", func(r map[string]any) bool {
			return nameHolds(str(r, "name"), "dio c") && str(r, "countrycode") == "PT"
		}},
	}
	for _, tc := range cases {
		want := oracle(tc.keep)
		got := rbIDs(t, serveUp(s, "GET", tc.target, "", "").Body.Bytes())
		if !slices.Equal(got, want) || len(want) == 0 && !strings.Contains(tc.target, "false") {
			t.Errorf("%s: %v, want %v", tc.target, got, want)
		}
	}
}

// TestRBAPIPagesAreCached: an answer of a chunk or less is tagged and
// cached like our own answers (the same body again, 304 for its tag); a
// random order is another shuffle each time, never tagged.
func TestRBAPIPagesAreCached(t *testing.T) {
	s := newDemoServer(t, nil)
	for _, target := range []string{"/json/stations/search?limit=5&order=votes", "/json/stations/bytag/jazz", "/json/stations?limit=3"} {
		first := serveUp(s, "GET", target, "", "")
		tag := first.Header().Get("Etag")
		if first.Code != http.StatusOK || tag == "" || len(rbIDs(t, first.Body.Bytes())) == 0 {
			t.Fatalf("%s: %d, tag %q, %s", target, first.Code, tag, first.Body)
		}
		if again := serveUp(s, "GET", target, "", ""); again.Body.String() != first.Body.String() || again.Header().Get("Etag") != tag {
			t.Errorf("%s: a second answer differs", target)
		}
		req := httptest.NewRequest("GET", target, nil)
		req.Header.Set("If-None-Match", tag)
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusNotModified {
			t.Errorf("%s with its tag: %d, want 304", target, rec.Code)
		}
	}
	if random := serveUp(s, "GET", "/json/stations?limit=3&order=random", "", ""); random.Code != http.StatusOK || random.Header().Get("Etag") != "" {
		t.Errorf("order=random: %d, tag %q", random.Code, random.Header().Get("Etag"))
	}
}

// TestRBAPIStreamsLongLists: a list longer than a chunk arrives whole
// and in order, and pages across chunk boundaries are the slices of it.
func TestRBAPIStreamsLongLists(t *testing.T) {
	var b strings.Builder
	const n = 2*rbapi.RBChunk + 345
	for i := range n {
		fmt.Fprintf(&b, `{"stationuuid":"00000000-0000-4000-8000-%012d","name":"Station %05d","url":"http://s.example/%d","lastcheckok":%d}`+"\n", i, i, i, i%2)
	}
	s := newBuiltServer(t, indexer.Input{Name: "long", R: strings.NewReader(b.String())}, time.Now())
	all := rbIDs(t, serveUp(s, "GET", "/json/stations", "", "").Body.Bytes())
	if len(all) != n {
		t.Fatalf("%d stations, want %d", len(all), n)
	}
	for i, id := range all {
		if want := fmt.Sprintf("00000000-0000-4000-8000-%012d", i); id != want {
			t.Fatalf("station %d is %s, want %s", i, id, want)
		}
	}
	page := rbIDs(t, serveUp(s, "GET", fmt.Sprintf("/json/stations?offset=%d&limit=%d", rbapi.RBChunk-1, rbapi.RBChunk+2), "", "").Body.Bytes())
	if !slices.Equal(page, all[rbapi.RBChunk-1:2*rbapi.RBChunk+1]) {
		t.Errorf("page across chunks: %d stations from %s", len(page), page[0])
	}
	plain := serveUp(s, "GET", "/json/stations", "", "").Body.Bytes()
	for _, accept := range []string{"gzip", "zstd", "br;q=1, gzip;q=0.5", "*"} {
		req := httptest.NewRequest("GET", "/json/stations", nil)
		req.Header.Set("Accept-Encoding", accept)
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		coding := rec.Header().Get("Content-Encoding")
		got, err := decodeBody(coding, rec.Body.Bytes())
		if err != nil || coding == "" || !bytes.Equal(got, plain) || !strings.Contains(rec.Header().Get("Vary"), "Accept-Encoding") {
			t.Errorf("Accept-Encoding %s: coding %q, %v, %d bytes for %d", accept, coding, err, len(got), len(plain))
		}
	}
	ok := rbIDs(t, serveUp(s, "GET", "/json/stations?hidebroken=true", "", "").Body.Bytes())
	if len(ok) != n/2 || ok[0] != all[1] {
		t.Errorf("hidebroken: %d stations, first %s", len(ok), ok[0])
	}
}

// TestRBAPIClickAndObjects: url/{uuid} names the resolved stream;
// byuuid answers the stations named, once each, in the order named.
func TestRBAPIClickAndObjects(t *testing.T) {
	s := newDemoServer(t, nil)
	const a, b = "cbbf6759-8124-405d-a884-3bd8732946bd", "428ea3f7-9072-4b6f-a73b-4277729fcfc0"
	var click rbapi.RBClick
	if err := json.Unmarshal(serveUp(s, "GET", "/json/url/"+strings.ToUpper(a), "", "").Body.Bytes(), &click); err != nil {
		t.Fatal(err)
	}
	if click != (rbapi.RBClick{OK: true, Message: "retrieved station url", StationUUID: a, Name: "Rádio Comercial Demo", URL: "https://stream.example.pt/comercial.mp3"}) {
		t.Errorf("click: %+v", click)
	}
	got := rbIDs(t, serveUp(s, "POST", "/json/stations/byuuid", "application/json", `{"uuids":["`+b+`","`+a+`","`+b+`","00000000-0000-4000-8000-000000000000"]}`).Body.Bytes())
	if !slices.Equal(got, []string{b, a}) {
		t.Errorf("byuuid: %v", got)
	}
	if got := rbIDs(t, serveUp(s, "GET", "/json/stations/byuuid/00000000-0000-4000-8000-000000000000", "", "").Body.Bytes()); len(got) != 0 {
		t.Errorf("unknown byuuid: %v", got)
	}
	id, _ := format.ParseUUID(a)
	ix, _ := demoIndex()
	js, err := ix.RBAPIJSON(id, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "[" + string(stationjson.Splice(nil, js, stationjson.EscapeBase(testBase))) + "]\n"
	if body := serveUp(s, "GET", "/json/stations/byuuid/"+a, "", "").Body.String(); body != want {
		t.Errorf("byuuid/{uuid}: %s\nwant %s", body, want)
	}
}

// TestRBAPILists: each list counts what filtering on its values finds.
func TestRBAPILists(t *testing.T) {
	s := newDemoServer(t, nil)
	var countries []rbapi.RBEntry
	if err := json.Unmarshal(serveUp(s, "GET", "/json/countries?order=stationcount&reverse=true", "", "").Body.Bytes(), &countries); err != nil {
		t.Fatal(err)
	}
	if len(countries) < 10 || countries[0].StationCount < countries[len(countries)-1].StationCount {
		t.Fatalf("countries: %+v", countries)
	}
	for _, c := range countries {
		got := rbIDs(t, serveUp(s, "GET", "/json/stations/bycountrycodeexact/"+c.ISO3166_1, "", "").Body.Bytes())
		if len(got) != c.StationCount {
			t.Errorf("country %s: %d stations listed, %d found", c.ISO3166_1, c.StationCount, len(got))
		}
	}
	var codecs []rbapi.RBEntry
	if err := json.Unmarshal(serveUp(s, "GET", "/json/codecs/m", "", "").Body.Bytes(), &codecs); err != nil {
		t.Fatal(err)
	}
	for _, c := range codecs {
		got := rbIDs(t, serveUp(s, "GET", "/json/stations/bycodecexact/"+c.Name, "", "").Body.Bytes())
		if !strings.Contains(strings.ToLower(c.Name), "m") || len(got) != c.StationCount {
			t.Errorf("codec %s: %d stations listed, %d found", c.Name, c.StationCount, len(got))
		}
	}
	requireLanguageCodes(t, s)
}

// requireLanguageCodes: every language has iso_639, its code (as
// iso.LanguageCode maps it) or null when it has none, as upstream sends
// it; no other list has the field.
func requireLanguageCodes(t *testing.T, s *Server) {
	t.Helper()
	var languages, tags []map[string]any
	if err := json.Unmarshal(serveUp(s, "GET", "/json/languages", "", "").Body.Bytes(), &languages); err != nil {
		t.Fatal(err)
	}
	nulls := 0
	for _, l := range languages {
		code, has := l["iso_639"]
		want, known := iso.LanguageCode(l["name"].(string))
		if !has || known && code != want || !known && code != nil {
			t.Errorf("language %v: iso_639 %v (given: %v), want %q", l["name"], code, has, want)
		}
		if code == nil {
			nulls++
		}
	}
	if nulls == 0 || nulls == len(languages) {
		t.Errorf("%d of %d languages without a code: the demo has both kinds", nulls, len(languages))
	}
	if err := json.Unmarshal(serveUp(s, "GET", "/json/tags", "", "").Body.Bytes(), &tags); err != nil || len(tags) == 0 {
		t.Fatal(err)
	}
	if _, has := tags[0]["iso_639"]; has {
		t.Errorf("tags have iso_639: %v", tags[0])
	}
}

// TestRBAPIWithoutItsSection: on an index built without -compat every
// /json/ path answers a 404 compat_not_indexed that says how to rebuild,
// never a 500; the query layer refuses with query.ErrNoRBAPI, and /api/
// is served as ever.
func TestRBAPIWithoutItsSection(t *testing.T) {
	s := newBuiltServerOpts(t, indexer.Input{Name: "demo", R: bytes.NewReader(demo.NDJSON)}, indexer.Options{SnapshotAt: demo.SnapshotAt})
	id := demoInput(t)[0]["stationuuid"].(string)
	for _, target := range []string{
		"/json/stations", "/json/stations/search?name=radio", "/json/stations/byuuid/" + id,
		"/json/stations/byurl?url=http://x/", "/json/stations/topvote/3", "/json/stations/bycountry/x",
		"/json/countries", "/json/tags", "/json/states", "/json/stats", "/json/servers", "/json/url/" + id,
	} {
		rec := serveUp(s, http.MethodGet, target, "", "")
		var body struct {
			Code    string `json:"error"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("%s: %d, body not JSON: %v: %s", target, rec.Code, err, rec.Body)
		}
		if rec.Code != http.StatusNotFound || body.Code != string(core.CodeRBAPINotIndexed) || !strings.Contains(body.Message, "stationdex index -compat") {
			t.Errorf("%s: %d %+v, want 404 %s naming stationdex index -compat", target, rec.Code, body, core.CodeRBAPINotIndexed)
		}
	}
	if rec := serveUp(s, http.MethodGet, "/api/stations?q=radio", "", ""); rec.Code != http.StatusOK {
		t.Errorf("/api/stations: %d", rec.Code)
	}
	ix, release := s.Acquire()
	defer release()
	if ix.HasRBAPI() {
		t.Fatal("HasRBAPI on a default build")
	}
	if _, err := ix.RBAPIStations(query.RBAPISelect{}); !errors.Is(err, query.ErrNoRBAPI) {
		t.Errorf("RBAPIStations: %v, want ErrNoRBAPI", err)
	}
}

// newBuiltServer indexes in (snapshot time at, or the input's when
// zero) with the Radio Browser API's section into a temporary file and serves it.
func newBuiltServer(t *testing.T, in indexer.Input, at time.Time) *Server {
	t.Helper()
	return newBuiltServerOpts(t, in, indexer.Options{SnapshotAt: at, Sections: format.SectionRBAPI})
}

func newBuiltServerOpts(t *testing.T, in indexer.Input, opts indexer.Options) *Server {
	t.Helper()
	path := filepath.Join(t.TempDir(), "built.idx")
	if _, err := indexer.Build(context.Background(), path, opts, in); err != nil {
		t.Fatal(err)
	}
	ix, err := query.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	return New(testConfig(nil), fixedSource{ix})
}

// nameHolds is the oracle of a name substring: the name with white space
// collapsed (the indexer cleans names so), folded, holds the folded text.
func nameHolds(name, text string) bool {
	return strings.Contains(fold.String(strings.Join(strings.Fields(name), " ")), fold.String(text))
}

// FuzzRBAPIRequest: no request under /json/ is answered with a 5xx
// other than 501 (not served yet), and every answer is JSON.
func FuzzRBAPIRequest(f *testing.F) {
	for _, seed := range []string{
		"/json/stations/search?name=a&order=votes&reverse=true&limit=3",
		"/json/stations/byuuid?uuids=cbbf6759-8124-405d-a884-3bd8732946bd,x",
		"/json/states/a/b?hidebroken=true&order=stationcount",
		"/json/stations/topvote/99999999999",
		"/json/stations/search?geo_lat=1e308&geo_long=-0&geo_distance=1",
		"/json/stations/bytag/%00?offset=18446744073709551616",
	} {
		f.Add(seed)
	}
	s := newDemoServer(f, nil)
	f.Fuzz(func(t *testing.T, target string) {
		req, err := http.NewRequest(http.MethodGet, "http://node.example"+target, nil)
		if err != nil || !strings.HasPrefix(req.URL.Path, core.PathRBAPI) {
			return
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code >= 500 && rec.Code != http.StatusNotImplemented || !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s: %d %.300s", target, rec.Code, rec.Body)
		}
	})
}

// TestRBAPIGeoDistance: with geo_lat and geo_long every station
// carries its distance in metres from there (null without a position:
// none given, one out of range, or the placeholder (0, 0), as the index
// keeps positions),
// and with geo_distance only those within it are listed, in the order
// asked for.
func TestRBAPIGeoDistance(t *testing.T) {
	s := newDemoServer(t, nil)
	const lat, lon = 38.7223, -9.1393 // Lisbon
	metres := func(r map[string]any) (float64, bool) {
		la, ok1 := r["geo_lat"].(float64)
		lo, ok2 := r["geo_long"].(float64)
		// a position out of range, or (0, 0), the placeholder, is none
		if !ok1 || !ok2 || la == 0 && lo == 0 || math.Abs(la) > 90 || math.Abs(lo) > 180 {
			return 0, false
		}
		// haversine on the mean radius, written apart from the engine's
		const rad, earth = math.Pi / 180, 6371008.8
		a := math.Pow(math.Sin((la-lat)*rad/2), 2) + math.Cos(lat*rad)*math.Cos(la*rad)*math.Pow(math.Sin((lo-lon)*rad/2), 2)
		return 2 * earth * math.Asin(math.Sqrt(min(1, a))), true
	}
	objects := func(target string) []map[string]any {
		rec := serveUp(s, "GET", target, "", "")
		var objs []map[string]any
		if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &objs) != nil {
			t.Fatalf("%s: %d %s", target, rec.Code, rec.Body)
		}
		return objs
	}
	all := objects("/json/stations/search?geo_lat=38.7223&geo_long=-9.1393&order=votes")
	if want := rbIDs(t, serveUp(s, "GET", "/json/stations?order=votes", "", "").Body.Bytes()); !slices.Equal(rbIDs(t, mustJSON(t, all)), want) {
		t.Fatalf("a position alone filtered or reordered the stations")
	}
	var within []string
	const radius = 300_000.0
	for _, r := range all {
		want, known := metres(r)
		got, isNum := r["geo_distance"].(float64)
		if known != isNum || known && math.Abs(got-want) > 1 {
			t.Errorf("%s: geo_distance %v, want %v (position known: %v)", r["name"], r["geo_distance"], want, known)
		}
		if known && want <= radius-1 {
			within = append(within, r["stationuuid"].(string))
		} else if known && want <= radius+1 {
			t.Fatalf("%s is %f m away: at the edge, choose another radius", r["name"], want)
		}
	}
	near := objects("/json/stations/search?geo_lat=38.7223&geo_long=-9.1393&geo_distance=300000&order=votes")
	if got := rbIDs(t, mustJSON(t, near)); !slices.Equal(got, within) || len(within) == 0 || len(within) == len(all) {
		t.Errorf("within %.0f m: %v, want %v", radius, got, within)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRBAPICodecExact: pyradios' stations_by_codec sends codecExact,
// which upstream ignores: a node takes it, as a flag that changes
// nothing, whatever its value (upstream: not even read).
func TestRBAPICodecExact(t *testing.T) {
	s := newDemoServer(t, nil)
	plain := rbIDs(t, serveUp(s, "GET", "/json/stations/search?codec=mp3&limit=50", "", "").Body.Bytes())
	if len(plain) == 0 {
		t.Fatal("no MP3 station in the demo")
	}
	for _, v := range []string{"true", "false"} {
		got := rbIDs(t, serveUp(s, "GET", "/json/stations/search?codec=mp3&limit=50&codecExact="+v, "", "").Body.Bytes())
		if !slices.Equal(got, plain) {
			t.Errorf("codecExact=%s: %d stations, without it %d", v, len(got), len(plain))
		}
	}
	if got := rbIDs(t, serveUp(s, "GET", "/json/stations/search?codec=mp3&limit=50&codecExact=yes", "", "").Body.Bytes()); !slices.Equal(got, plain) {
		t.Errorf("codecExact=yes: %d stations, without it %d", len(got), len(plain))
	}
}

package server

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"golang.org/x/net/http/httpguts"

	"stationdex/server/core"
)

// fuzzMethods are the methods FuzzHandler picks from: the ones the service
// takes, and some it must refuse.
var fuzzMethods = []string{"GET", "HEAD", "OPTIONS", "POST", "DELETE", "PROPFIND", "get"}

// FuzzHandler sends arbitrary request targets (path and query string) and
// Accept headers through the whole public handler on the demo index, parsed
// the way net/http's server parses them. Whatever the input: no panic
// (which the server would turn into a 500), no 5xx but 503, a JSON error
// body for every refusal under /api/, and redirects only to local paths.
func FuzzHandler(f *testing.F) {
	for _, seed := range []struct {
		method uint8
		target string
		accept string
	}{
		{0, "/api/stations?q=jazz&limit=5", ""},
		{0, "/api/stations?q=%FF&limit=99999999999999999999", "application/json"},
		{0, "/api/stations/cbbf6759-8124-405d-a884-3bd8732946bd", "text/html"},
		{1, "/api/stations/..%2f..%2fetc%2fpasswd", "*/*;q=0"},
		{0, "/search/?q=r%C3%A1dio&country=pt", "text/markdown"},
		{0, "/stations/cbbf6759-8124-405d-a884-3bd8732946bd/listen/index.md", ""},
		{0, "/genres/%2e%2e/", ""},
		{0, "/countries/de/?page=999999999999", ""},
		{0, "/sitemaps/stations-9223372036854775807.xml", ""},
		{0, "/data/stations.ndjson", ""},
		{0, "//evil.example/%2e%2e", ""},
		{3, "/api/stations", ""},
		{6, "/static/style.css/", ""},
		{0, "/api/stations?q=a&q=b&%zz", "application/*;q=0.5, */*;q=0"},
	} {
		f.Add(seed.method, seed.target, seed.accept)
	}
	s := newDemoServer(f, nil)
	f.Fuzz(func(t *testing.T, method uint8, target, accept string) {
		req, ok := fuzzRequest(fuzzMethods[int(method)%len(fuzzMethods)], target, accept)
		if !ok {
			t.Skip("net/http refuses this request before any handler")
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		checkFuzzResponse(t, req, rec)
	})
}

// fuzzRequest parses a request as net/http's server would, or reports that
// the server would refuse it itself (malformed, or a head over its limit).
func fuzzRequest(method, target, accept string) (*http.Request, bool) {
	if len(target) > 20<<10 || !httpguts.ValidHeaderFieldValue(accept) || strings.ContainsAny(target, " \r\n") {
		return nil, false
	}
	raw := method + " " + target + " HTTP/1.1\r\nHost: radio.example\r\n"
	if accept != "" {
		raw += "Accept: " + accept + "\r\n"
	}
	req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw + "\r\n")))
	if err != nil {
		return nil, false
	}
	req.RemoteAddr = "192.0.2.1:1234"
	return req, true
}

func checkFuzzResponse(t *testing.T, req *http.Request, rec *httptest.ResponseRecorder) {
	t.Helper()
	status := rec.Code
	if status >= 500 && status != http.StatusServiceUnavailable {
		t.Fatalf("%s %q: status %d: %.300s", req.Method, req.RequestURI, status, rec.Body)
	}
	if status/100 == 3 && status != http.StatusNotModified {
		loc := rec.Header().Get("Location")
		if !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, "/\\") {
			t.Fatalf("%s %q: redirect to %q, want a local path", req.Method, req.RequestURI, loc)
		}
	}
	if !core.IsAPIPath(req.URL.Path) || status < 400 || req.Method == http.MethodHead {
		return
	}
	var body core.ErrorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Message == "" {
		t.Fatalf("%s %q: status %d without a JSON error body: %.300s", req.Method, req.RequestURI, status, rec.Body)
	}
	if core.CodeStatus(body.Error) != status {
		t.Fatalf("%s %q: status %d with error code %q", req.Method, req.RequestURI, status, body.Error)
	}
}

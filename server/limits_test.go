package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"stationdex/server/core"
)

// The guard's rules one by one; the hostile corpus replays them over TCP.

func TestAcceptsJSON(t *testing.T) {
	for _, tc := range []struct {
		accept []string
		want   bool
	}{
		{nil, true},
		{[]string{""}, true},
		{[]string{" , ,"}, true},
		{[]string{"application/json"}, true},
		{[]string{"APPLICATION/JSON; charset=utf-8"}, true},
		{[]string{"*/*"}, true},
		{[]string{"application/*;q=0.1"}, true},
		{[]string{"text/html", "application/json"}, true},
		{[]string{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}, true}, // a browser
		{[]string{"application/json;q=0.001, */*;q=0"}, true},
		{[]string{"text/html"}, false},
		{[]string{"application/problem+json"}, false},
		{[]string{"application/json;q=0"}, false},
		{[]string{"application/json;q=0, */*"}, false},
		{[]string{"application/*;q=0, */*"}, false},
		{[]string{"*/*;q=0"}, false},
		{[]string{"text/*"}, false},
	} {
		if got := core.AcceptsJSON(tc.accept); got != tc.want {
			t.Errorf("acceptsJSON(%q) = %v, want %v", tc.accept, got, tc.want)
		}
	}
}

func TestRangeAcceptable(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   bool
	}{
		{"", true},
		{"bytes=0-", true},
		{"bytes=100-199", true},
		{"bytes=-500", true},
		{"bytes=0-0,5-9", true},
		{"items=0-1", true}, // not bytes: left to the resource, which ignores it
		{"bytes=" + strings.Repeat("0-1,", core.MaxRanges), true},
		{"bytes=" + strings.Repeat("0-1,", core.MaxRanges+1), false},
		{"bytes=-0", false},
		{"bytes=0-1, -000", false},
		{"bytes=-", false},
	} {
		if got := core.RangeAcceptable(tc.header); got != tc.want {
			t.Errorf("rangeAcceptable(%q) = %v, want %v", tc.header, got, tc.want)
		}
	}
}

func TestDotSegments(t *testing.T) {
	for path, want := range map[string]bool{
		"/": false, "/data/stations.json": false, "/genres/.../": false, "/genres/..a/": false, "/a.b/": false,
		"/..": true, "/data/../x": true, "/data/./x": true, "/genres/../": true, "/x/.": true,
	} {
		if got := core.HasDotSegment(path); got != want {
			t.Errorf("hasDotSegment(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestGuardAnswers: refusals under /api/ are JSON with CORS; elsewhere
// plain text; both are never cached.
func TestGuardAnswers(t *testing.T) {
	s := newEmptyServer(t)
	for _, tc := range []struct {
		target, accept string
		status         int
		json           bool
	}{
		{"/api/stations", "text/html", http.StatusNotAcceptable, true},
		{"/api/stations?q=" + strings.Repeat("a", core.MaxRequestURIBytes), "", http.StatusRequestURITooLong, true},
		{"/search/?q=" + strings.Repeat("a", core.MaxRequestURIBytes), "", http.StatusRequestURITooLong, false},
		{"/data/../go.mod", "", http.StatusNotFound, false},
		{"/api/stations/../x", "", http.StatusNotFound, true},
	} {
		req := httptest.NewRequest(http.MethodGet, tc.target, nil)
		req.Header.Set("Origin", "https://app.example")
		if tc.accept != "" {
			req.Header.Set("Accept", tc.accept)
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		h := rec.Header()
		isJSON := strings.HasPrefix(h.Get("Content-Type"), "application/json")
		if rec.Code != tc.status || isJSON != tc.json || h.Get("Cache-Control") != "no-store" {
			t.Errorf("%.60s: %d %q %q, want %d json=%v no-store", tc.target, rec.Code, h.Get("Content-Type"), h.Get("Cache-Control"), tc.status, tc.json)
		}
		if tc.json && h.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%.60s: API refusal without CORS", tc.target)
		}
	}
}

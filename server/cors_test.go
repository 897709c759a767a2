package server

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"stationdex/server/core"
)

func TestPreflight(t *testing.T) {
	s := newEmptyServer(t)
	for _, target := range []string{"/api/stations", "/api/stations/cbbf6759-8124-405d-a884-3bd8732946bd"} {
		rec := serve(s, http.MethodOptions, target,
			"Origin", "https://app.example",
			"Access-Control-Request-Method", "GET",
			"Access-Control-Request-Headers", "If-None-Match")
		if rec.Code != http.StatusNoContent || rec.Body.Len() != 0 {
			t.Errorf("%s: status %d body %q", target, rec.Code, rec.Body)
		}
		for name, want := range map[string]string{
			"Allow":                         "GET, HEAD, OPTIONS",
			"Access-Control-Allow-Origin":   "*",
			"Access-Control-Allow-Methods":  "GET, HEAD, OPTIONS",
			"Access-Control-Allow-Headers":  core.CorsAllowHeaders,
			"Access-Control-Max-Age":        "86400",
			"Access-Control-Expose-Headers": core.CorsExposeHeaders,
		} {
			if got := rec.Header().Get(name); got != want {
				t.Errorf("%s: %s = %q, want %q", target, name, got, want)
			}
		}
	}
}

// TestCORSOnEveryAPIResponse: errors carry CORS headers too, or a browser
// client could not read why its request failed.
func TestCORSOnEveryAPIResponse(t *testing.T) {
	s := newEmptyServer(t)
	for _, tc := range []struct{ method, target string }{
		{http.MethodGet, "/api/stations"},          // 503
		{http.MethodGet, "/api/stations?limit=99"}, // 400
		{http.MethodGet, "/api/stations/nope"},     // 404
		{http.MethodPost, "/api/stations"},         // 405
		{http.MethodGet, "/api/nothing"},           // 404 from the router
	} {
		rec := serve(s, tc.method, tc.target, "Origin", "https://app.example")
		if got := rec.Header().Get("Access-Control-Allow-Origin"); got != "*" {
			t.Errorf("%s %s (%d): Access-Control-Allow-Origin %q", tc.method, tc.target, rec.Code, got)
		}
	}
}

// TestCORSOnlyWithOrigin: a request with Origin gets the CORS headers, one
// without gets none, and otherwise the two answers are the same; both say
// Vary: Origin (beside Accept-Encoding when the answer is compressible),
// so a shared cache never hands one to the other.
func TestCORSOnlyWithOrigin(t *testing.T) {
	s := newDemoServer(t, nil)
	for _, target := range []string{
		"/api/stations?q=radio",
		"/api/stations/cbbf6759-8124-405d-a884-3bd8732946bd",
		"/api/stations?limit=99",
		"/api/stations/nope",
		"/openapi.json",
	} {
		for _, ae := range []string{"", "gzip"} {
			plain := serve(s, http.MethodGet, target, "Accept-Encoding", ae)
			browser := serve(s, http.MethodGet, target, "Accept-Encoding", ae, "Origin", "https://app.example")
			if plain.Code != browser.Code || plain.Body.String() != browser.Body.String() {
				t.Errorf("%s %q: %d without Origin, %d with it, or bodies differ", target, ae, plain.Code, browser.Code)
			}
			for name, want := range map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": core.CorsExposeHeaders} {
				if got := browser.Header().Get(name); got != want {
					t.Errorf("%s %q with Origin: %s %q, want %q", target, ae, name, got, want)
				}
				if got, ok := plain.Header()[name]; ok {
					t.Errorf("%s %q without Origin: %s %q, want none", target, ae, name, got)
				}
			}
			for _, rec := range []*httptest.ResponseRecorder{plain, browser} {
				vary := varyFields(rec.Header())
				if !slices.Contains(vary, "Origin") {
					t.Errorf("%s %q: Vary %q does not name Origin", target, ae, vary)
				}
				if rec.Header().Get("Content-Encoding") != "" && !slices.Contains(vary, "Accept-Encoding") {
					t.Errorf("%s %q: compressed, Vary %q does not name Accept-Encoding", target, ae, vary)
				}
			}
		}
	}
}

// varyFields lists the field names of every Vary line of h.
func varyFields(h http.Header) []string {
	var names []string
	for _, line := range h.Values("Vary") {
		for name := range strings.SplitSeq(line, ",") {
			names = append(names, strings.TrimSpace(name))
		}
	}
	return names
}

package server

import (
	"net/http"
	"testing"
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
			"Access-Control-Allow-Headers":  corsAllowHeaders,
			"Access-Control-Max-Age":        "86400",
			"Access-Control-Expose-Headers": corsExposeHeaders,
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

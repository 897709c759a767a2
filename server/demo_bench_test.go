package server

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"stationdex/query"
	"stationdex/server/core"
)

// Micro-benchmarks of whole responses on the embedded demo snapshot, from
// request to the last byte in a recorder: routing, parameters, the engine,
// encoding and headers. They need no real data, so make bench-compare runs
// them against a base commit under benchstat.

var demoBenchTargets = []struct{ name, target, accept string }{
	{"api_search", "/api/stations?q=radio&limit=20", ""},
	{"api_search_filters", "/api/stations?q=radio&country=de&genre=pop", ""},
	{"api_station", "", ""}, // the first station of the search above
	{"api_not_modified", "", ""},
	{"page_search", "/search/?q=radio", ""},
	{"page_search_markdown", "/search/?q=radio", "text/markdown"},
	{"page_genre", "/genres/pop/", ""},
	{"page_home", "/", ""},
}

// BenchmarkDemoResponses builds every answer (the response cache is off),
// so it measures the whole response path and compares with commits from
// before the cache; BenchmarkDemoResponsesCached answers from the cache,
// identity and gzip.
func BenchmarkDemoResponses(b *testing.B) {
	benchDemoResponses(b, -1, "")
}

func BenchmarkDemoResponsesCached(b *testing.B) {
	for _, coding := range []string{"identity", "gzip"} {
		b.Run(coding, func(b *testing.B) { benchDemoResponses(b, 0, coding) })
	}
}

func benchDemoResponses(b *testing.B, cacheBytes int64, acceptEncoding string) {
	s := newServerWithCache(b, fixedSource{demoIx(b)}, cacheBytes)
	station := firstStationPath(b, s)
	etag := serve(s, http.MethodGet, station).Header().Get("ETag")
	for _, bt := range demoBenchTargets {
		target, header := bt.target, http.Header{}
		switch bt.name {
		case "api_station":
			target = station
		case "api_not_modified":
			target = station
			header.Set("If-None-Match", etag)
		}
		if bt.accept != "" {
			header.Set("Accept", bt.accept)
		}
		if acceptEncoding != "" {
			header.Set("Accept-Encoding", acceptEncoding)
		}
		b.Run(bt.name, func(b *testing.B) { benchResponse(b, s, target, header) })
	}
}

func benchResponse(b *testing.B, s *Server, target string, header http.Header) {
	h := s.Handler()
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, target, nil)
		req.Header = header
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK && rec.Code != http.StatusNotModified {
			b.Fatalf("%s: status %d", target, rec.Code)
		}
	}
}

// firstStationPath is the API path of the first station a search finds.
func firstStationPath(b *testing.B, s *Server) string {
	res, err := demoIx(b).Search(query.Query{Q: "radio", Limit: 1})
	if err != nil || len(res.Stations) == 0 {
		b.Fatalf("no station to read: %v", err)
	}
	return core.PathStation + res.Stations[0].ID.String()
}

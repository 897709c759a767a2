package server

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"stationdex/query"
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

func BenchmarkDemoResponses(b *testing.B) {
	s := serverAt(b, demoIx(b), testBase)
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
	return pathStation + res.Stations[0].ID.String()
}

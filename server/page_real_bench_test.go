package server

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"stationdex/internal/format"
	"stationdex/query"
	"stationdex/server/core"
)

// BenchmarkRealPages answers pages of the real snapshot as a crawler asks
// for them, each kind in turn (a sample of 1,000 of each, cycled), through
// the whole handler with the response cache off, so that every answer is
// built: the cost a crawl pays per page, less the connection's. Compare
// commits with
//
//	go test ./server -run '^$' -bench RealPages -benchmem -count 6 | benchstat
func BenchmarkRealPages(b *testing.B) {
	ix := realIx(b)
	u, err := url.Parse(testBase)
	if err != nil {
		b.Fatal(err)
	}
	s := New(Config{BaseURL: u, CacheBytes: -1}, fixedSource{ix})
	b.Cleanup(func() { _ = s.Close() })
	kinds := crawlKinds(b, s)
	h := s.Handler()
	for _, k := range []string{"station", "listen", "value", "directory"} {
		for _, md := range []bool{false, true} {
			targets := kinds[k]
			name := k
			if md {
				name += "_md"
			}
			reqs := make([]*http.Request, len(targets))
			for i, t := range targets {
				if md {
					t += core.MarkdownIndex
				}
				reqs[i] = httptest.NewRequest(http.MethodGet, t, nil)
			}
			b.Run(name, func(b *testing.B) { answerInTurn(b, h, reqs, &discardWriter{h: http.Header{}}) })
		}
	}
}

// crawlKinds samples the sitemap's pages by kind: station pages, their
// listening pages, directory values and directory indexes (at most 1,000
// of each, spread over the whole list).
func crawlKinds(b *testing.B, s *Server) map[string][]string {
	all := map[string][]string{}
	for _, u := range sitemapURLs(b, s, testBase) {
		t := local(b, testBase, u)
		switch segs := strings.Count(strings.Trim(t, "/"), "/"); {
		case strings.HasPrefix(t, "/stations/") && segs == 1:
			all["station"] = append(all["station"], t)
			all["listen"] = append(all["listen"], t+"listen/")
		case strings.HasPrefix(t, "/stations/"), strings.HasPrefix(t, "/guide/"), t == "/", strings.Contains(t, "?"):
		case segs == 1:
			all["value"] = append(all["value"], t)
		case segs == 0:
			all["directory"] = append(all["directory"], t)
		}
	}
	for k, ts := range all {
		if len(ts) == 0 {
			b.Fatalf("no %s pages in the sitemap", k)
		}
		step := max(len(ts)/1000, 1)
		var sample []string
		for i := 0; i < len(ts) && len(sample) < 1000; i += step {
			sample = append(sample, ts[i])
		}
		all[k] = sample
	}
	return all
}

// discardWriter is a ResponseWriter that keeps the status only.
type discardWriter struct {
	h    http.Header
	code int
}

func (w *discardWriter) Header() http.Header { return w.h }

func (w *discardWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *discardWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return len(p), nil
}

func (w *discardWriter) reset() {
	clear(w.h)
	w.code = 0
}

// BenchmarkRealSearchPage answers the search page of the real snapshot
// with its defaults, beside the API's search, over the same searches
// (words of station names, some with a country): hot, every answer from
// the response cache (asked for once before the loop), as the bench
// suite's Zipf mixes mostly are; and cold, the search page built for each
// request with the cache off. A page's hit should cost about what the
// API's does.
func BenchmarkRealSearchPage(b *testing.B) {
	ix := realIx(b)
	u, err := url.Parse(testBase)
	if err != nil {
		b.Fatal(err)
	}
	searches := realSearches(b, ix, 500)
	for _, bc := range []struct {
		name  string
		cache int64
		path  string
	}{
		{"api_hot", 0, "/api/stations?limit=20&"},
		{"page_hot", 0, "/search/?"},
		{"page_cold", -1, "/search/?"},
	} {
		s := New(Config{BaseURL: u, CacheBytes: bc.cache, CacheMinUses: 1}, fixedSource{ix})
		b.Cleanup(func() { _ = s.Close() })
		h := s.Handler()
		reqs := make([]*http.Request, len(searches))
		w := &discardWriter{h: http.Header{}}
		for i, q := range searches {
			reqs[i] = httptest.NewRequest(http.MethodGet, bc.path+q, nil)
			w.reset()
			h.ServeHTTP(w, reqs[i])
			if w.code != http.StatusOK {
				b.Fatalf("%s: status %d", reqs[i].URL, w.code)
			}
		}
		b.Run(bc.name, func(b *testing.B) { answerInTurn(b, h, reqs, w) })
	}
}

// realSearches are n queries of the search form made from words of the
// snapshot's station names, every third with the station's country.
func realSearches(b *testing.B, ix *query.Index, n int) []string {
	var out []string
	seen := map[string]bool{}
	step := max(ix.Meta().Stations/(2*n), 1)
	err := ix.EachStationID(0, ix.Meta().Stations, func(id format.UUID) error {
		step--
		if len(out) == n || step > 0 {
			return nil
		}
		step = max(ix.Meta().Stations/(2*n), 1)
		rec, err := ix.Station(id)
		if err != nil {
			return err
		}
		words := strings.Fields(strings.ToLower(rec.Name))
		if len(words) == 0 {
			return nil
		}
		v := url.Values{"q": {words[len(out)%len(words)]}}
		if len(out)%3 == 0 && rec.CountryCode != "" {
			v.Set("country", rec.CountryCode)
		}
		if q := v.Encode(); !seen[q] {
			seen[q] = true
			out = append(out, q)
		}
		return nil
	})
	if err != nil || len(out) == 0 {
		b.Fatalf("%d searches: %v", len(out), err)
	}
	return out
}

// answerInTurn is a benchmark's loop: reqs answered in turn by h into w,
// each of which must answer 200.
func answerInTurn(b *testing.B, h http.Handler, reqs []*http.Request, w *discardWriter) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		w.reset()
		h.ServeHTTP(w, reqs[i%len(reqs)])
		if w.code != http.StatusOK {
			b.Fatalf("%s: status %d", reqs[i%len(reqs)].URL, w.code)
		}
		i++
	}
}

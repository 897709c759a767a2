package server

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

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
			b.Run(name, func(b *testing.B) {
				w := &discardWriter{h: http.Header{}}
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
			})
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

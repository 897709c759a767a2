package server

import (
	"testing"

	"stationdex/server/pages"
)

// Benchmarks of one HTML page per kind on the demo: built from the index
// and rendered (BenchmarkPage), or rendered alone from a built model
// (BenchmarkPageRender, with its Markdown twin as BenchmarkMarkdownRender),
// into a reused buffer as the response path does.
// Compare commits with
//
//	go test ./server -run '^$' -bench Page -benchmem -count 10 | benchstat

// pageKinds are one demo page of each kind.
var pageKinds = []struct{ name, target string }{
	{"home", "/"},
	{"search", "/search/?q=radio"},
	{"station", "/stations/" + demoStationID + "/"},
	{"listen", "/stations/" + demoStationID + "/listen/"},
	{"directory", "/countries/"},
	{"directory_entry", "/genres/pop/"},
	{"guide", "/guide/"},
}

func BenchmarkPage(b *testing.B) {
	s, ix := newDemoServer(b, nil), demoIx(b)
	for _, k := range pageKinds {
		b.Run(k.name, func(b *testing.B) {
			var dst []byte
			b.ReportAllocs()
			for b.Loop() {
				p, f := builtPage(b, s, ix, k.target)
				dst = renderHTML(b, s, dst[:0], p, f)
			}
		})
	}
}

func BenchmarkPageRender(b *testing.B) { benchmarkRender(b, (*pages.Server).AppendHTML) }

func BenchmarkMarkdownRender(b *testing.B) { benchmarkRender(b, (*pages.Server).AppendMarkdown) }

// benchmarkRender times write, one of the page writers, on each kind of
// page built once.
func benchmarkRender(b *testing.B, write func(*pages.Server, []byte, *pages.Page, pages.Footer) []byte) {
	s, ix := newDemoServer(b, nil), demoIx(b)
	for _, k := range pageKinds {
		b.Run(k.name, func(b *testing.B) {
			p, f := builtPage(b, s, ix, k.target)
			var dst []byte
			b.ReportAllocs()
			for b.Loop() {
				dst = write(s.pages, dst[:0], p, f)
			}
		})
	}
}

// renderHTML is p as an HTML page appended to dst.
func renderHTML(t testing.TB, s *Server, dst []byte, p *pages.Page, f pages.Footer) []byte {
	return s.pages.AppendHTML(dst, p, f)
}

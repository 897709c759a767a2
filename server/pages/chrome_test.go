package pages

import (
	"testing"
	"time"

	"stationdex/internal/format"
	"stationdex/server/core"
)

// TestChromeFollowsBaseAndSnapshot: the parts every page writes the same
// (navigation, head links, footer), kept once written, are those of the
// page's own base URL and snapshot, in HTML and Markdown, whatever was
// written before: each page equals the page written with nothing kept,
// as servers of other bases and footers of other snapshots take turns.
func TestChromeFollowsBaseAndSnapshot(t *testing.T) {
	at := time.Date(2025, 2, 27, 12, 0, 0, 0, time.UTC)
	footers := []Footer{
		{SnapshotAt: at, Source: "radio-browser.info"},
		{SnapshotAt: at.In(time.FixedZone("x", 3600)), Source: "radio-browser.info"}, // the same instant
		{SnapshotAt: at.Add(time.Second), Source: "radio-browser.info"},
		{SnapshotAt: at, Source: format.DemoSource},
		{},
	}
	bases := []string{"https://radio.example/dex", "http://127.0.0.1:8080", "https://other.example/a'b (c)"}
	p := &Page{Title: "T", Heading: "H", Path: "/genres/", Query: "page=2", Blocks: []Block{{Text: []string{"text"}}},
		Pager: &Pager{Summary: "s", Prev: "https://radio.example/dex/genres/"}}
	fresh := func(s *Server, f Footer, md bool) string {
		chrome.Store(nil)
		footer.Store(nil)
		mdFooterKept.Store(nil)
		return string(write(s, f, p, md))
	}
	for _, md := range []bool{false, true} {
		for i := range 3 * len(bases) * len(footers) {
			s := &Server{&core.Server{Base: bases[i%len(bases)]}}
			f := footers[(i/len(bases)+i)%len(footers)]
			got := string(write(s, f, p, md))
			if want := fresh(s, f, md); got != want {
				t.Fatalf("%s, %+v (Markdown %v), after other pages:\n%s\nwith nothing kept:\n%s", s.Base, f, md, got, want)
			}
			other := &Server{&core.Server{Base: bases[(i+1)%len(bases)]}}
			write(other, footers[(i+2)%len(footers)], p, md)
		}
	}
}

func write(s *Server, f Footer, p *Page, md bool) []byte {
	if md {
		return s.AppendMarkdown(nil, p, f)
	}
	return s.AppendHTML(nil, p, f)
}

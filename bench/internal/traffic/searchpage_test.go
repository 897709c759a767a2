package traffic

import (
	"net/url"
	"strings"
	"testing"

	"stationdex/bench/internal/mix"
)

// TestSearchPagePath: the page's path keeps the form's fields, leaves
// the limit to the page and puts the offset on a page boundary, so
// searches that differ only there are one page.
func TestSearchPagePath(t *testing.T) {
	qs := []mix.Query{
		{Q: "jazz fm", Country: "DE", Limit: 50, Offset: 130},
		{Q: "jazz fm", Country: "DE", Limit: 10, Offset: 120},
		{Genre: "rock", Language: "de", Limit: 20},
		{Genre: "rock", Language: "de", Limit: 20, Offset: 19},
		{Q: "a&b", Limit: 20, Offset: 20},
	}
	paths, page := SearchPages(qs)
	want := []string{"/search/?country=DE&offset=120&q=jazz+fm", "/search/?genre=rock&language=de", "/search/?offset=20&q=a%26b"}
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Errorf("pages %q, want %q", paths, want)
	}
	if got := page; got[0] != 0 || got[1] != 0 || got[2] != 1 || got[3] != 1 || got[4] != 2 {
		t.Errorf("each search's page %v, want [0 0 1 1 2]", got)
	}
	for _, p := range paths {
		u, err := url.Parse(p)
		if err != nil || u.Path != "/search/" || u.Query().Has("limit") {
			t.Errorf("%s: not the search page without a limit (%v)", p, err)
		}
	}
}

// TestHotSearchPages: the hot sequence asked of the search page keeps
// its length and its order, each request the page of its search.
func TestHotSearchPages(t *testing.T) {
	h, err := NewHot(tiny(), 3, 60, 2000, 1.1)
	if err != nil {
		t.Fatal(err)
	}
	seq := h.SearchPagePaths()
	if len(seq) != len(h.Seq) {
		t.Fatalf("%d page requests for a sequence of %d", len(seq), len(h.Seq))
	}
	for i, k := range h.Seq {
		if seq[i] != SearchPagePath(h.Queries[k]) {
			t.Fatalf("request %d: %s, want the page of %s", i, seq[i], h.Queries[k].Path())
		}
	}
}

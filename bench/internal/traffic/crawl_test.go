package traffic

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// smallSite has 3 stations, one country with 120 stations (3 pages),
// 251 genres (3 index pages per order) of one station each, one of them
// without a page.
func smallSite() Site {
	genres := Directory{Kind: "genres"}
	for i := range 250 {
		genres.Values = append(genres.Values, Value{fmt.Sprintf("g%03d", i), 1})
	}
	genres.Values = append(genres.Values, Value{"", 1}) // listed, no page
	countries := Directory{Kind: "countries", Values: []Value{{"de", 120}}}
	return Site{Stations: []string{"a", "b", "c"}, Directories: []Directory{countries, genres}}
}

// TestCrawlDistinctAndComplete: every page once, every kind of page
// present, both orders and later pages of lists asked for, Markdown twins
// of each.
func TestCrawlDistinctAndComplete(t *testing.T) {
	pages := Crawl(smallSite(), 1)
	// 3 stations x 4; countries: 2 orders x 1 page x 2 + 3 value pages x 2;
	// genres: 2 orders x 3 pages x 2 + 250 values with a page x 2.
	if want := 12 + 4 + 6 + 12 + 500; len(pages) != want {
		t.Fatalf("%d pages, want %d", len(pages), want)
	}
	seen := map[string]bool{}
	kinds := map[string]int{}
	for _, p := range pages {
		if seen[p.Path] {
			t.Fatalf("%s twice", p.Path)
		}
		seen[p.Path] = true
		kinds[p.Kind]++
		if md := strings.Contains(p.Path, "index.md"); md != p.Markdown() {
			t.Fatalf("%s is of kind %s", p.Path, p.Kind)
		}
	}
	for _, k := range PageKinds {
		if kinds[k] == 0 {
			t.Errorf("no page of kind %s", k)
		}
	}
	for _, path := range []string{
		"/stations/b/", "/stations/b/index.md", "/stations/b/listen/", "/stations/b/listen/index.md",
		"/countries/", "/countries/?order=name", "/countries/index.md?order=name", "/countries/de/",
		"/countries/de/?page=3", "/countries/de/index.md?page=2", "/genres/?page=3", "/genres/?order=name&page=2",
		"/genres/index.md?order=name&page=3", "/genres/g249/", "/genres/g000/index.md",
	} {
		if !seen[path] {
			t.Errorf("no %s", path)
		}
	}
	for _, path := range []string{"/countries/?page=2", "/countries/de/?page=4", "/genres/?page=4", "/countries/?page=1", "/genres/g000/?page=2", "/genres//"} {
		if seen[path] {
			t.Errorf("%s asked for: past the end of its list, or page 1 not canonical", path)
		}
	}
}

// TestCrawlDeterministic: the same seed gives the same order, another
// seed another order of the same pages.
func TestCrawlDeterministic(t *testing.T) {
	a, b, c := Crawl(smallSite(), 5), Crawl(smallSite(), 5), Crawl(smallSite(), 6)
	if !slices.Equal(a, b) {
		t.Fatal("same seed, different crawl")
	}
	if slices.Equal(a, c) {
		t.Fatal("another seed, the same order")
	}
	sortPaths := func(p []Page) []string { s := CrawlPaths(p); slices.Sort(s); return s }
	if !slices.Equal(sortPaths(a), sortPaths(c)) {
		t.Fatal("another seed, other pages")
	}
}

package traffic

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// Site is what a crawler reaches on a node, read from its index: every
// station and, per directory kind, every value that has a page.
type Site struct {
	Stations    []string // station ids as in the URLs
	Directories []Directory
}

// Directory is one kind of directory page (countries, languages, genres,
// locations) with its values.
type Directory struct {
	Kind   string // the first path segment
	Values []Value
}

// Value is one directory value: its path segment (escaped, as the pages
// link it; "" for a value listed without a page of its own) and its
// number of stations, which says how many pages its list has.
type Value struct {
	Segment  string
	Stations int
}

// Page sizes of the directory lists, as server/page_directory.go pages
// them (valuesPerPage, stationsPerPage = query.MaxLimit). The suite asks
// for every crawl path before the load and wants 200: a page past the end
// of a list, after a change of either size, fails there.
const (
	ValuesPerPage   = 100
	StationsPerPage = 50
)

// Kinds of crawled pages, each with its Markdown twin as a kind of its own.
const (
	PageStation   = "station"
	PageListen    = "listen"
	PageDirectory = "directory" // an index of values, both orders, every page
	PageValue     = "value"     // one value's stations, every page
	markdownTwin  = "_md"
)

// PageKinds lists every kind of crawled page.
var PageKinds = []string{
	PageStation, PageStation + markdownTwin, PageListen, PageListen + markdownTwin,
	PageDirectory, PageDirectory + markdownTwin, PageValue, PageValue + markdownTwin,
}

// Page is one crawled request path and its kind.
type Page struct {
	Kind, Path string
}

// Markdown reports whether the page is a Markdown twin.
func (p Page) Markdown() bool { return strings.HasSuffix(p.Kind, markdownTwin) }

// Crawl lists every page of the site once, HTML and Markdown, in an order
// shuffled by seed, so that any slice of it has the kinds in their
// proportions (a crawler's queue mixes them too) and no two slices share a
// page.
func Crawl(site Site, seed uint64) []Page {
	var pages []Page
	for _, id := range site.Stations {
		station := "/stations/" + id + "/"
		pages = withTwin(pages, PageStation, station, "")
		pages = withTwin(pages, PageListen, station+"listen/", "")
	}
	for _, d := range site.Directories {
		pages = directoryPages(pages, d)
	}
	rng := rand.New(rand.NewPCG(seed, 0xc4a71))
	rng.Shuffle(len(pages), func(i, k int) { pages[i], pages[k] = pages[k], pages[i] })
	return pages
}

// directoryPages appends a directory's index (most stations first and
// ?order=name, every page of each) and every page of every value's list.
func directoryPages(pages []Page, d Directory) []Page {
	index := "/" + d.Kind + "/"
	for _, order := range []string{"", "order=name"} {
		for n := 1; n <= pagesOf(len(d.Values), ValuesPerPage); n++ {
			pages = withTwin(pages, PageDirectory, index, pageQuery(order, n))
		}
	}
	for _, v := range d.Values {
		if v.Segment == "" {
			continue
		}
		for n := 1; n <= pagesOf(v.Stations, StationsPerPage); n++ {
			pages = withTwin(pages, PageValue, index+v.Segment+"/", pageQuery("", n))
		}
	}
	return pages
}

// withTwin appends the page at dir (a path ending in '/') with its query,
// and its Markdown twin (dir + "index.md", same query).
func withTwin(pages []Page, kind, dir, query string) []Page {
	if query != "" {
		query = "?" + query
	}
	return append(pages, Page{kind, dir + query}, Page{kind + markdownTwin, dir + "index.md" + query})
}

// pagesOf is the number of pages of a list of n items; an empty list has
// one (empty) page.
func pagesOf(n, size int) int { return max(1, (n+size-1)/size) }

// pageQuery is the query of page n of a list in an order, as the pager
// links it (server/pages.go pageParam, unexported there): the order
// first, page left out on the first page.
func pageQuery(order string, n int) string {
	switch {
	case n == 1:
		return order
	case order == "":
		return "page=" + strconv.Itoa(n)
	}
	return order + "&page=" + strconv.Itoa(n)
}

// CrawlPaths is the request paths of pages, in order.
func CrawlPaths(pages []Page) []string {
	out := make([]string, len(pages))
	for i, p := range pages {
		out[i] = p.Path
	}
	return out
}

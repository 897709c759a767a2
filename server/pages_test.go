package server

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"stationdex/server/api"
	"stationdex/server/core"
)

// demoStationID is a full record of the demo (Rádio Comercial).
const demoStationID = "cbbf6759-8124-405d-a884-3bd8732946bd"

// TestPagesDemo: every kind of page answers 200 in HTML and as its
// Markdown twin, each checked structurally.
func TestPagesDemo(t *testing.T) {
	s := newDemoServer(t, nil)
	ext := externalOf(t, demoIx(t), demoStationID)
	for _, target := range []string{
		"/", "/search/", "/search/?q=radio", "/search/?q=radio&country=&language=&genre=&limit=3&offset=3",
		"/guide/", "/countries/", "/languages/", "/genres/", "/genres/?page=2", "/locations/",
		"/countries/pt/", "/languages/portuguese/", "/genres/jazz/", "/locations/lisboa/",
		"/stations/" + demoStationID + "/", "/stations/" + demoStationID + "/listen/",
	} {
		t.Run(target, func(t *testing.T) {
			rec := fetchOK(t, s, target)
			p := checkHTMLPage(t, rec, testBase, ext)
			path, query, _ := strings.Cut(target, "?")
			twin := path + core.MarkdownIndex
			if query != "" {
				twin += "?" + query
			}
			alt := findAll(p.root, "link", func(n *html.Node) bool { return attr(n, "type") == "text/markdown" })
			if got := local(t, testBase, attr(alt[0], "href")); got != twin && !strings.HasPrefix(target, "/search/?") {
				t.Errorf("markdown alternate %q, want %q", got, twin)
			}
			md := checkMarkdownPage(t, fetchOK(t, s, twin), testBase, ext)
			if mdUnescape(md.headings[1][0]) != p.h1[0] {
				t.Errorf("twin heading %q, page heading %q", md.headings[1], p.h1)
			}
		})
	}
}

// TestMarkdownHome: /text/index.md is the Markdown home page.
func TestMarkdownHome(t *testing.T) {
	s := newDemoServer(t, nil)
	for _, target := range []string{"/text/index.md", "/index.md"} {
		d := checkMarkdownPage(t, fetchOK(t, s, target), testBase, nil)
		if !strings.Contains(d.headings[1][0], "stationdex") || len(d.links) < 10 {
			t.Errorf("%s: heading %q, %d links", target, d.headings[1], len(d.links))
		}
	}
}

// TestMarkdownNegotiation: Accept: text/markdown on a page URL gets the
// twin, browsers get HTML, and both say Vary: Accept.
func TestMarkdownNegotiation(t *testing.T) {
	s := newDemoServer(t, nil)
	browser := "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	for _, tc := range []struct {
		accept string
		md     bool
	}{
		{"text/markdown", true},
		{"text/markdown, text/html;q=0.5", true},
		{"text/markdown, */*", true},
		{"text/html, text/markdown", false},
		{"text/markdown;q=0", false},
		{browser, false},
		{"", false},
	} {
		for _, target := range []string{"/", "/stations/" + demoStationID + "/", "/genres/jazz/", "/search/?q=jazz"} {
			rec := fetchOK(t, s, target, "Accept", tc.accept)
			ct := rec.Header().Get("Content-Type")
			if (ct == core.MarkdownMediaType) != tc.md || !strings.Contains(rec.Header().Get("Vary"), "Accept") {
				t.Errorf("Accept %q on %s: %s, Vary %q", tc.accept, target, ct, rec.Header().Get("Vary"))
			}
		}
	}
}

// TestPageErrors: bad input is a readable page with the right status, in
// both representations.
func TestPageErrors(t *testing.T) {
	s := newDemoServer(t, nil)
	for _, tc := range []struct {
		target string
		status int
		says   string
	}{
		{"/search/?q=jazz&limit=99", 400, "limit must be a whole number"},
		{"/search/?country=xyz", 400, "country must be a two-letter"},
		{"/search/?order=name", 400, "unknown parameter"},
		{"/search/?q=a&q=b", 400, "more than once"},
		{"/genres/?page=x", 400, "page must be a whole number"},
		{"/genres/?page=999", 404, "no page 999"},
		{"/genres/no-such-genre-here/", 404, "no station in this snapshot has this genre"},
		{"/countries/zz/", 404, "no station"},
		{"/stations/00000000-0000-0000-0000-000000000000/", 404, "no station with this id"},
		{"/stations/not-a-uuid/listen/", 404, "no station with this id"},
		// Paths that name no page get the same page, not Go's plain text.
		{"/nothing-here/", 404, "there is no page at this address"},
		{"/stations/", 404, "there is no page at this address"},
		{"/genres/a/b/", 404, "there is no page at this address"},
		{"/stations/" + demoStationID + "/other/", 404, "there is no page at this address"},
	} {
		for _, md := range []bool{false, true} {
			target := tc.target
			if md {
				path, query, _ := strings.Cut(target, "?")
				target = path + core.MarkdownIndex
				if query != "" {
					target += "?" + query
				}
			}
			rec := serve(s, http.MethodGet, target)
			if rec.Code != tc.status || !strings.Contains(mdUnescape(rec.Body.String()), tc.says) {
				t.Errorf("%s: status %d, want %d saying %q: %.200s", target, rec.Code, tc.status, tc.says, rec.Body)
				continue
			}
			if md {
				checkMarkdownPage(t, rec, testBase, nil)
			} else {
				p := checkHTMLPage(t, rec, testBase, nil)
				if len(findAll(p.root, "p", func(n *html.Node) bool { return attr(n, "role") == "alert" })) != 1 {
					t.Errorf("%s: no alert paragraph", target)
				}
			}
		}
	}
	for _, tc := range []struct{ target, accept, contentType string }{
		{"/nothing-here", "text/html", core.HTMLType},
		{"/nothing-here", "text/markdown", core.MarkdownMediaType},
		{"/static/none.css", "", core.HTMLType},
		{"/sitemaps/none.xml", "", core.HTMLType},
		{"/data/none.json", "", core.HTMLType},
		{"/x/y/index.md", "", core.MarkdownMediaType},
	} {
		rec := serve(s, http.MethodGet, tc.target, "Accept", tc.accept)
		if rec.Code != http.StatusNotFound || rec.Header().Get("Content-Type") != tc.contentType ||
			!strings.Contains(rec.Body.String(), "no page at this address") {
			t.Errorf("%s (Accept %s): %d %q %.100q; want the not-found page as %s", tc.target, tc.accept, rec.Code,
				rec.Header().Get("Content-Type"), rec.Body.String(), tc.contentType)
		}
	}
	rec := serve(s, http.MethodGet, "/stations/"+demoStationID+"?x=1")
	if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/stations/"+demoStationID+"/?x=1" {
		t.Errorf("missing slash: %d %q", rec.Code, rec.Header().Get("Location"))
	}
}

// TestNoIndexPages: pages answer 503 without an index, like the API.
func TestNoIndexPages(t *testing.T) {
	s := newEmptyServer(t)
	for _, target := range []string{"/", "/search/?q=x", "/genres/", "/stations/" + demoStationID + "/index.md", "/data/stations.json", "/sitemap.xml", "/llms.txt", "/data/catalog.json"} {
		rec := serve(s, http.MethodGet, target)
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || strings.Contains(rec.Body.String(), "0001-01-01") {
			t.Errorf("%s: status %d: %.300s", target, rec.Code, rec.Body)
		}
	}
}

// TestSearchPageIsTheAPISearch: the search page lists the API's results
// in the API's order, and its previous/next links page like the API's.
func TestSearchPageIsTheAPISearch(t *testing.T) {
	s := newDemoServer(t, nil)
	query := "q=radio&limit=4&offset=4"
	var env api.SearchEnvelope
	if err := json.Unmarshal(fetchOK(t, s, "/api/stations?"+query).Body.Bytes(), &env); err != nil {
		t.Fatal(err)
	}
	p := parseHTMLPage(t, fetchOK(t, s, "/search/?"+query).Body.Bytes())
	var pages []string
	for _, u := range p.urls {
		if strings.Contains(u, "/stations/") {
			pages = append(pages, u)
		}
	}
	if len(pages) != len(env.Results) {
		t.Fatalf("%d station links, API has %d results", len(pages), len(env.Results))
	}
	for i, st := range env.Results {
		if pages[i] != st.PageURL {
			t.Errorf("result %d: %s, API %s", i, pages[i], st.PageURL)
		}
	}
	prev := findAll(p.root, "a", func(n *html.Node) bool { return attr(n, "rel") == "prev" })
	next := findAll(p.root, "a", func(n *html.Node) bool { return attr(n, "rel") == "next" })
	if len(prev) != 1 || attr(prev[0], "href") != testBase+"/search/?q=radio&limit=4&offset=0" {
		t.Errorf("prev %v", prev)
	}
	if env.Next == nil || len(next) != 1 || attr(next[0], "href") != strings.Replace(*env.Next, "/api/stations?", "/search/?", 1) {
		t.Errorf("next %v, API next %v", next, env.Next)
	}
	if !strings.Contains(p.text, "Stations 5–8 of") {
		t.Errorf("no result summary")
	}
}

// TestEveryStationURLResolves: on the demo, every URL field of every
// station, and every URL of every sitemap, answers 200.
func TestEveryStationURLResolves(t *testing.T) {
	s := newDemoServer(t, nil)
	for _, id := range allStationIDs(t, demoIx(t)) {
		st := stationOf(t, s, id)
		for _, u := range stationURLs(&st) {
			fetchOK(t, s, local(t, testBase, u))
		}
	}
	urls := sitemapURLs(t, s, testBase)
	if len(urls) < 100 {
		t.Fatalf("only %d sitemap URLs", len(urls))
	}
	for _, u := range urls {
		fetchOK(t, s, local(t, testBase, u))
	}
}

// TestDirectoryOrders: an index lists most stations first by default and
// A–Z a link away, with the pager keeping the order; a bad order is 400.
func TestDirectoryOrders(t *testing.T) {
	s := newDemoServer(t, nil)
	first := func(target string) []string {
		p := parseHTMLPage(t, fetchOK(t, s, target).Body.Bytes())
		var names []string
		for _, a := range findAll(p.root, "a", func(n *html.Node) bool { return strings.Contains(attr(n, "href"), "/countries/") }) {
			names = append(names, textOf(a))
		}
		return names
	}
	byCount := first("/countries/")
	if !slices.Contains(byCount, "A to Z") {
		t.Fatalf("no A to Z link: %q", byCount)
	}
	if i := slices.Index(byCount, "United States"); i < 0 || i > slices.Index(byCount, "Argentina") {
		t.Errorf("most stations first: United States (6) should lead, got %q", byCount)
	}
	az := first("/countries/?order=name")
	if i, j, k := slices.Index(az, "Argentina"), slices.Index(az, "Australia"), slices.Index(az, "Austria"); i < 0 || i > j || j > k {
		t.Errorf("A to Z by English name: %q", az)
	}
	rec := fetchOK(t, s, "/genres/?order=name")
	p := parseHTMLPage(t, rec.Body.Bytes())
	next := findAll(p.root, "a", func(n *html.Node) bool { return attr(n, "rel") == "next" })
	if len(next) != 1 || !strings.HasSuffix(attr(next[0], "href"), "/genres/?order=name&page=2") {
		t.Errorf("A to Z pager: %v", next)
	}
	fetchOK(t, s, "/genres/?order=name&page=2")
	for _, bad := range []string{"/countries/?order=size", "/countries/?order=name&order=name"} {
		if rec := serve(s, http.MethodGet, bad); rec.Code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", bad, rec.Code)
		}
	}
}

// TestResultsTellLookAlikesApart: stations sharing a name differ in the
// line under each result (place, codec, bitrate), in HTML and Markdown.
func TestResultsTellLookAlikesApart(t *testing.T) {
	s := newDemoServer(t, nil)
	p := parseHTMLPage(t, fetchOK(t, s, "/search/?q=jazz+corner+fm").Body.Bytes())
	notes := map[string]bool{}
	for _, n := range findAll(p.root, "span", func(n *html.Node) bool { return attr(n, "class") == "note" }) {
		notes[textOf(n)] = true
	}
	if len(notes) < 3 || !notes["New Orleans, United States · MP3 · 128 kbps"] {
		t.Errorf("notes of the three Jazz Corner FM: %v", notes)
	}
	md := fetchOK(t, s, "/search/index.md?q=jazz+corner+fm").Body.String()
	if !strings.Contains(md, "— New Orleans, United States · MP3 · 128 kbps") {
		t.Errorf("Markdown results lack the note:\n%s", md)
	}
}

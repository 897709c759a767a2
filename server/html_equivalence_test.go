package server

import (
	"bytes"
	"math"
	"net/http"
	"testing"
	"time"

	"stationdex/internal/format"
	"stationdex/query"
	"stationdex/server/pages"
	"stationdex/server/params"
)

// The hand-written pages against the template they replace
// (html_reference_test.go): every kind of page on the demo, on the real
// snapshot and with hostile strings in every place a value goes, and
// fuzzed stations, each written both ways and compared byte for byte.

// TestPagesWrittenAsTemplateDemo: every page of the demo (every station,
// every directory value and every page of every directory index, searches
// with results, errors and suggestions, the guide, not-found pages) is
// what the template wrote; and each is the page the handler serves.
func TestPagesWrittenAsTemplateDemo(t *testing.T) {
	s, ix := newDemoServer(t, nil), demoIx(t)
	targets := pageTargets(t, ix, 1)
	t.Logf("%d pages", len(targets))
	for _, target := range targets {
		p, f := builtPage(t, s, ix, target)
		requireSameHTML(t, s.pages, target, p, f)
		if served := serve(s, http.MethodGet, target).Body.Bytes(); !bytes.Equal(served, s.pages.AppendHTML(nil, p, f)) {
			t.Fatalf("%s: the page built here is not the page served%s", target, htmlDifference(served, s.pages.AppendHTML(nil, p, f)))
		}
	}
}

// TestPagesWrittenAsTemplateAwkward: the same on the awkward fixture
// (links_test.go), whose tags put '#', '%', quotes, slashes, spaces and
// non-Latin scripts into directory URLs and link texts, served under a
// base URL with a space and a non-ASCII letter in its path.
func TestPagesWrittenAsTemplateAwkward(t *testing.T) {
	ix := awkwardIndex(t)
	s := serverAt(t, ix, "https://radio.example/d%20ex/m%C3%BAsica")
	for _, target := range pageTargets(t, ix, 1) {
		p, f := builtPage(t, s, ix, target)
		requireSameHTML(t, s.pages, target, p, f)
	}
}

// TestPagesWrittenAsTemplateReal: the same on the real snapshot, for every
// page of every directory index, every 20th directory value and every
// 20th station.
func TestPagesWrittenAsTemplateReal(t *testing.T) {
	t.Parallel() // one of the long tests, run beside each other (server_test.go)
	ix := realIx(t)
	s := serverAt(t, ix, testBase)
	targets := pageTargets(t, ix, 20)
	for _, target := range targets {
		p, f := builtPage(t, s, ix, target)
		requireSameHTML(t, s.pages, target, p, f)
	}
	t.Logf("%d pages", len(targets))
}

// TestPagesWrittenAsTemplateHostile: hostile strings (markup, quotes,
// NUL, invalid UTF-8, bidi controls, javascript: and mailto: URLs, broken
// and valid percent escapes, numbers fmt writes with an exponent) in every
// text, attribute and URL of a page, with and without a snapshot.
func TestPagesWrittenAsTemplateHostile(t *testing.T) {
	for _, text := range hostileStrings {
		for _, href := range hostileStrings {
			for _, num := range hostileNumbers {
				s := pagesAt(href)
				f := pages.Footer{SnapshotAt: time.Date(2025, 2, 27, 12, 0, 0, 0, time.UTC), Source: text}
				requireSameHTML(t, s, text+" "+href, hostilePage(text, href, num), f)
			}
		}
		requireSameHTML(t, pagesAt(testBase), text, hostilePage(text, text, 0), pages.Footer{Source: text})
	}
}

var hostileStrings = []string{
	"", "ok", "<script>alert('x')</script>", `"'&+<>=` + "`", "\x00", "a\x00b", "\xff\xfe not UTF-8 \xc3",
	"\uFFFD\uFFFE\uFDD0", "\u202Eevil\u2066", "javascript:alert(1)", "JaVaScRiPt:x", "mailto:a@b.example",
	"HTTP://EXAMPLE.com/a b?c=d&e=f+g#h", "https://ex.example/%41%zz%4", "%", "%4", "%41", "%%41", "/path:with?colon",
	"data:text/html,<x>", "//evil.example/", "http://ex.example/ü?q=ä€", "a:b/c", "a/b:c", "{{.}}", "1e+06",
	" \t\n\r\f ", "\u2028\u2029", "&amp;&#34;", "(x)'y'[z]{}|\\^~!*$,;@",
}

var hostileNumbers = []float64{0, 1, 0.5, -3, 1e6, 1e21, 1e-7, math.NaN(), math.Inf(1), math.Inf(-1)}

// hostilePage puts text in every text and attribute of a page and href in
// every URL, whatever the page model would let through.
func hostilePage(text, href string, num float64) *pages.Page {
	links := []pages.Link{{Text: text, Href: href, Note: text}, {Text: text, Href: href, Internal: true}, {Text: text}}
	in := pages.FormInput{Name: text, FormField: &params.FormField{Label: text, Type: "number", Placeholder: text}, Value: text,
		MaxLength: len(text), Min: num, Max: -num}
	sel := pages.FormInput{Name: text, FormField: &params.FormField{Label: text, Type: "select", Options: []string{text, href}}, Value: href}
	named, namedField := sel, *sel.FormField
	namedField.OptionText = []string{href, text}
	named.FormField = &namedField
	other := pages.FormInput{Name: href, FormField: &params.FormField{Label: text, Type: text, Size: len(href)}, Value: text}
	return &pages.Page{
		Title: text, Heading: text, Path: href, Query: text, Error: text, Description: text,
		Form: &pages.SearchForm{Action: href, Fields: []pages.FormInput{in, sel}, More: []pages.FormInput{named, other}, Open: num > 0},
		Blocks: []pages.Block{
			{Heading: text, Text: []string{text, "", href}, Notice: text, Facts: []pages.Fact{{Name: text, Values: links}, {Name: href}},
				Links: links, Code: text, Audio: href},
			{},
			{Text: []string{text}},
		},
		Pager: &pages.Pager{Summary: text, Prev: href, Next: text},
	}
}

// FuzzPageWriter builds the station, listening and result pages of a
// fuzzed station, and a page with its strings in every place, and
// compares the writer with the template.
func FuzzPageWriter(f *testing.F) {
	f.Add("Rádio <b>Comercial</b>", "rock & roll", "https://ex.example/a?b=c&d=e+f", uint32(128), 0.5)
	f.Add("\u202Ebidi\x00", "\xff", "javascript:alert(1)", uint32(0), 1e21)
	f.Add("'\"", "%zz", "HTTP://X/%41%4", uint32(1<<31), math.Inf(-1))
	s := newDemoServer(f, nil)
	f.Fuzz(func(t *testing.T, name, tag, address string, bitrate uint32, num float64) {
		rec := fuzzedRecord(name, tag, address, bitrate)
		at := pages.Footer{SnapshotAt: time.Unix(int64(bitrate), 0), Source: tag}
		results := pages.Block{Heading: name, Links: s.pages.StationLinks([]format.Record{rec})}
		requireSameHTML(t, s.pages, "station page", s.pages.StationPageOf(&rec, results, pages.Block{Heading: "Also listed as", Links: results.Links}), at)
		requireSameHTML(t, s.pages, "listening page", s.pages.ListenPageOf(&rec), at)
		requireSameHTML(t, pagesAt(address), "hostile page", hostilePage(name, address, num), at)
		requireSameHTML(t, pagesAt(tag), "hostile page", hostilePage(tag, name, num), pages.Footer{})
	})
}

// fuzzedRecord is a station record made of fuzzed text, unchecked: the
// indexer would clean most of it, the writers must not rely on that.
func fuzzedRecord(name, tag, address string, bitrate uint32) format.Record {
	var id format.UUID
	copy(id[:], name)
	return format.Record{ID: id, Name: name, CountryCode: tag[:min(2, len(tag))], Country: tag, Location: tag,
		Languages: []string{tag, name}, LanguageCodes: []string{tag}, Genres: []string{name, tag}, BitrateKbps: bitrate,
		OfficialURL: address, StreamURL: address, Codec: tag}
}

// pageTargets are pages of every kind on ix: fixed pages and searches,
// every page of every directory index in both orders, the first page of
// every step-th value of each directory (and its second, if it has one),
// and the station and listening pages of every step-th station.
func pageTargets(t testing.TB, ix *query.Index, step int) []string {
	targets := append([]string{}, fixedPageTargets...)
	for _, d := range pages.Directories {
		targets = append(targets, directoryTargets(t, ix, d, step)...)
	}
	for i, id := range allStationIDs(t, ix) {
		if i%step == 0 {
			targets = append(targets, "/stations/"+id+"/", "/stations/"+id+"/listen/")
		}
	}
	return targets
}

// fixedPageTargets: the home page, the guide, the search page empty, with
// results, later pages, facets, suggestions, no result, hostile words and
// invalid parameters, and error pages.
var fixedPageTargets = []string{
	"/", "/guide/", "/search/", "/search/?q=radio", "/search/?q=radio&limit=5&offset=5", "/search/?q=jaz+cornr",
	"/search/?q=radio&https=true&bitrate_max=320&country=&genre=", "/search/?q=zzzzqqq", "/search/?q=markup",
	"/search/?near=48.2082,16.3738&radius_km=300&codec=MP3&bitrate_min=64", "/search/?q=%3Cscript%3E&genre=%22%27%2B%26",
	"/search/?q=%00%EF%BF%BE%FF", "/search/?q=radio&limit=99", "/search/?country=xyz", "/search/?q=a&q=b",
	"/search/?sort=name", "/countries/?page=999", "/countries/?order=size", "/genres/no-such-genre/",
	"/stations/00000000-0000-0000-0000-000000000000/", "/stations/not-a-uuid/listen/", "/no/such/page/",
}

// directoryTargets: every page of d's index in both orders, and step-th
// values of d.
func directoryTargets(t testing.TB, ix *query.Index, d pages.Directory, step int) []string {
	t.Helper()
	index := "/" + d.Kind + "/"
	total, vals, err := ix.Listings(d.Facet, query.ByName, 0, math.MaxInt32)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for n := 1; (n-1)*pages.ValuesPerPage < total; n++ {
		out = append(out, index+"?"+pages.PageParam("", n), index+"?"+pages.PageParam(pages.OrderQuery(query.ByName), n))
	}
	for i, v := range vals {
		if i%step != 0 {
			continue
		}
		u := d.ValueURL("", v.Key)
		out = append(out, u)
		if v.Stations > pages.StationsPerPage {
			out = append(out, u+"?page=2")
		}
	}
	return out
}

package server

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"stationdex/indexer"
	"stationdex/internal/fold"
	"stationdex/internal/stationjson"
	"stationdex/server/api"
	"stationdex/server/files"
	"stationdex/server/pages"
)

// Output safety beyond the HTML and Markdown pages of stations and facet
// values (pages_adversarial_test.go): the JSON API, the data dumps, the
// sitemaps, the directory lists and the text indexes, each parsed as its
// consumer would, over the demo's adversarial stations (markup, script,
// javascript: URLs, Markdown and XML metacharacters, bidi controls, a line
// break in a name, a 990-character tag, 125 tags on one station).

// TestSafeJSONAPI: every station, read alone and found by search, is
// strict JSON that no HTML context can mistake for markup, with only
// absolute http(s) URLs, the service's under its base.
func TestSafeJSONAPI(t *testing.T) {
	s := newDemoServer(t, nil)
	ids := allStationIDs(t, demoIx(t))
	for _, id := range ids {
		body := fetchOK(t, s, "/api/stations/"+id).Body.Bytes()
		checkSafeJSONBytes(t, "/api/stations/"+id, body)
		var env api.StationEnvelope
		decodeStrict(t, body, &env)
		checkSafeStation(t, &env.Station.Station)
		for _, word := range fold.Tokens(env.Station.Name)[:min(2, len(fold.Tokens(env.Station.Name)))] {
			checkSafeSearch(t, s, "/api/stations?limit=50&q="+url.QueryEscape(word))
		}
	}
	for offset := 0; offset < len(ids); offset += 50 {
		checkSafeSearch(t, s, "/api/stations?limit=50&offset="+strconv.Itoa(offset))
	}
}

// TestSafeManyTags: the station with 125 tags (and the 990-character one)
// keeps the indexer's maximum of them, each with a URL that answers.
func TestSafeManyTags(t *testing.T) {
	s := newDemoServer(t, nil)
	var env api.SearchEnvelope
	decodeStrict(t, fetchOK(t, s, "/api/stations?q=overflow").Body.Bytes(), &env)
	if len(env.Results) == 0 {
		t.Fatal("the many-tags station is not in the demo")
	}
	st := env.Results[0]
	if len(st.Genres) != indexer.MaxGenres || len(st.GenreURLs) != indexer.MaxGenres {
		t.Fatalf("%d genres, %d genre URLs; want %d of each", len(st.Genres), len(st.GenreURLs), indexer.MaxGenres)
	}
	for _, u := range st.GenreURLs {
		fetchOK(t, s, local(t, testBase, u))
	}
}

func checkSafeSearch(t *testing.T, s *Server, target string) {
	t.Helper()
	body := fetchOK(t, s, target).Body.Bytes()
	checkSafeJSONBytes(t, target, body)
	var env api.SearchEnvelope
	decodeStrict(t, body, &env)
	for i := range env.Results {
		checkSafeStation(t, &env.Results[i])
	}
	if env.Next != nil {
		checkURL(t, *env.Next, testBase, nil)
	}
}

// checkSafeJSONBytes: valid UTF-8, and none of the characters that end a
// string or start markup where JSON is embedded in HTML or JavaScript
// (encoding/json escapes them: \u003c, \u2028), and no raw control bytes.
func checkSafeJSONBytes(t testing.TB, what string, body []byte) {
	t.Helper()
	if !utf8.Valid(body) {
		t.Errorf("%s: invalid UTF-8", what)
	}
	if i := bytes.IndexAny(body, "<>&\u2028\u2029"); i >= 0 {
		t.Errorf("%s: raw %q in JSON at %d: %.80q", what, body[i], i, body[max(0, i-30):])
	}
	if i := bytes.IndexFunc(body, func(r rune) bool { return r < 0x20 && r != '\n' || r == 0x7f }); i >= 0 {
		t.Errorf("%s: raw control byte %#x in JSON at %d", what, body[i], i)
	}
}

// checkSafeStation: every URL absolute http(s), the service's under base;
// the broadcaster's address only http(s) or null (the fixture's
// javascript: homepage must not survive); text without control characters.
func checkSafeStation(t testing.TB, st *stationjson.Station) {
	t.Helper()
	for _, u := range stationURLs(st) {
		checkURL(t, u, testBase, nil)
	}
	if st.OfficialURL != nil && !pages.IsWebURL(*st.OfficialURL) {
		t.Errorf("station %s: official_url %q", st.ID, *st.OfficialURL)
	}
	texts := append([]string{st.Name, st.Country, st.CountryCode, st.Location, st.PageTitle}, st.Languages...)
	for _, text := range append(texts, st.Genres...) {
		if strings.ContainsFunc(text, func(r rune) bool { return r < 0x20 || r >= 0x7f && r < 0xa0 }) {
			t.Errorf("station %s: control character in %q", st.ID, text)
		}
	}
}

func decodeStrict(t testing.TB, body []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decode %.80q: %v", body, err)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value in %.80q", body)
	}
}

// TestSafeDumps: the JSON dump is one strict array of stations, the NDJSON
// dump exactly one station a line (no name breaks a line), both with the
// API's escaping and URLs.
func TestSafeDumps(t *testing.T) {
	s := newDemoServer(t, nil)
	want := demoIx(t).Meta().Stations
	body := fetchOK(t, s, "/data/stations.json").Body.Bytes()
	checkSafeJSONBytes(t, "stations.json", body)
	var all []stationjson.Station
	decodeStrict(t, body, &all)
	if len(all) != want {
		t.Errorf("stations.json: %d stations, want %d", len(all), want)
	}
	for i := range all {
		checkSafeStation(t, &all[i])
	}
	body = fetchOK(t, s, "/data/stations.ndjson").Body.Bytes()
	checkSafeJSONBytes(t, "stations.ndjson", body)
	lines := bytes.Split(bytes.TrimSuffix(body, []byte("\n")), []byte("\n"))
	if len(lines) != want {
		t.Errorf("stations.ndjson: %d lines, want one per station (%d)", len(lines), want)
	}
	for _, line := range lines {
		var st stationjson.Station
		decodeStrict(t, line, &st)
		checkSafeStation(t, &st)
	}
}

// TestSafeSitemaps: the sitemap index and every sitemap are well-formed
// XML of the sitemap protocol's elements only (no DOCTYPE, entity,
// processing instruction or attribute a station could have brought in),
// and every location is an absolute URL under the base, within the
// protocol's 2,048 characters.
func TestSafeSitemaps(t *testing.T) {
	s := newDemoServer(t, nil)
	children := sitemapLocs(t, s, "/sitemap.xml", "sitemapindex", "sitemap")
	pages := 0
	for _, child := range children {
		pages += len(sitemapLocs(t, s, local(t, testBase, child), "urlset", "url"))
	}
	if stations := demoIx(t).Meta().Stations; pages < stations {
		t.Errorf("the sitemaps list %d pages for %d stations", pages, stations)
	}
}

// sitemapLocs parses one sitemap document and returns its locations.
func sitemapLocs(t *testing.T, s *Server, target, root, item string) []string {
	t.Helper()
	rec := fetchOK(t, s, target)
	if ct := rec.Header().Get("Content-Type"); ct != files.XMLType {
		t.Errorf("%s: Content-Type %q", target, ct)
	}
	allowed := map[string]bool{root: true, item: true, "loc": true, "lastmod": true}
	dec := xml.NewDecoder(rec.Body)
	dec.Strict = true
	var locs []string
	var inLoc bool
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed XML: %v", target, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if !allowed[tok.Name.Local] || tok.Name.Space != files.SitemapNS || len(tok.Attr) > 1 ||
				len(tok.Attr) == 1 && tok.Attr[0].Name.Local != "xmlns" {
				t.Errorf("%s: element %v with attributes %v", target, tok.Name, tok.Attr)
			}
			inLoc = tok.Name.Local == "loc"
		case xml.EndElement:
			inLoc = false
		case xml.CharData:
			if inLoc {
				loc := string(tok)
				checkURL(t, loc, testBase, nil)
				if len(loc) > 2048 {
					t.Errorf("%s: a location of %d characters", target, len(loc))
				}
				locs = append(locs, loc)
			}
		case xml.ProcInst:
			if tok.Target != "xml" {
				t.Errorf("%s: processing instruction %q", target, tok.Target)
			}
		case xml.Directive, xml.Comment:
			t.Errorf("%s: %T %q", target, tok, tok)
		}
	}
	return locs
}

// TestSafeDirectoryLists: the lists of every country, language, genre and
// location, where every adversarial tag and place is a line, in HTML and
// Markdown, page by page; and the text indexes.
func TestSafeDirectoryLists(t *testing.T) {
	s := newDemoServer(t, nil)
	for _, d := range pages.Directories {
		for page := 1; ; page++ {
			target := "/" + d.Kind + "/?page=" + strconv.Itoa(page)
			if rec := serve(s, http.MethodGet, target); rec.Code != http.StatusOK {
				if page == 1 {
					t.Errorf("%s: status %d", target, rec.Code)
				}
				break
			}
			checkHTMLPage(t, fetchOK(t, s, target), testBase, nil)
			checkMarkdownPage(t, fetchOK(t, s, "/"+d.Kind+"/index.md?page="+strconv.Itoa(page)), testBase, nil)
		}
	}
	checkMarkdownPage(t, fetchOK(t, s, "/text/index.md"), testBase, nil)
	llms := parseMarkdown(t, fetchOK(t, s, "/llms.txt").Body.Bytes())
	if llms.rawHTML+llms.images+llms.autolinks > 0 {
		t.Errorf("llms.txt: raw HTML %d, images %d, autolinks %d", llms.rawHTML, llms.images, llms.autolinks)
	}
	for _, l := range llms.links {
		checkURL(t, l, testBase, nil)
	}
}

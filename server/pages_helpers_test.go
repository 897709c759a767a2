package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	gmtext "github.com/yuin/goldmark/text"
	"golang.org/x/net/html"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/query"
	"stationdex/server/api"
	"stationdex/server/core"
	"stationdex/server/pages"
)

// Helpers of the page, file and sitemap tests: fetching through the
// handler, and parsing every output format for real (x/net/html for HTML,
// goldmark with GFM for Markdown) so that assertions are about structure,
// not substrings.

// testDirs are temporary directories to remove when the test binary ends.
var testDirs struct {
	sync.Mutex
	list []string
}

func removeTestDirs() {
	testDirs.Lock()
	defer testDirs.Unlock()
	for _, d := range testDirs.list {
		os.RemoveAll(d)
	}
}

func tempDir(t testing.TB) string {
	dir, err := os.MkdirTemp("", "stationdex-pages-test-")
	if err != nil {
		t.Fatal(err)
	}
	removeAtExit(dir)
	return dir
}

// removeAtExit has TestMain remove dir: for directories shared by every
// test of the binary (built once), which no one test's cleanup owns.
func removeAtExit(dir string) {
	testDirs.Lock()
	testDirs.list = append(testDirs.list, dir)
	testDirs.Unlock()
}

// serverAt is a Server over ix with base as its public base URL.
func serverAt(t testing.TB, ix *query.Index, base string) *Server {
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{BaseURL: u}, fixedSource{ix})
	t.Cleanup(func() { s.Close() })
	return s
}

func demoIx(t testing.TB) *query.Index {
	ix, err := demoIndex()
	if err != nil {
		t.Fatalf("demo index: %v", err)
	}
	return ix
}

// local turns an absolute URL under base into the request target the
// handler sees (a proxy strips the base path in production).
func local(t testing.TB, base, u string) string {
	t.Helper()
	rest, ok := strings.CutPrefix(u, base)
	if !ok {
		t.Fatalf("%q is not under %q", u, base)
	}
	if rest == "" {
		rest = "/"
	}
	return rest
}

// fetchOK serves target and fails unless it is a 200.
func fetchOK(t testing.TB, s *Server, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	rec := serve(s, http.MethodGet, target, header...)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: status %d: %.300s", target, rec.Code, rec.Body)
	}
	return rec
}

// htmlPage is a parsed page and what the checks collect from it.
type htmlPage struct {
	root     *html.Node
	elements map[string]int
	urls     []string // every href, src and action, in document order
	h1       []string
	text     string
}

// allowedElements are the elements the page writers (html.go) can produce. Any
// other element in a page was injected.
var allowedElements = map[string]bool{
	"html": true, "head": true, "meta": true, "title": true, "link": true, "body": true,
	"header": true, "nav": true, "ul": true, "li": true, "a": true, "main": true, "h1": true, "h2": true,
	"section": true, "p": true, "dl": true, "dt": true, "dd": true, "bdi": true, "span": true, "details": true, "summary": true,
	"form": true, "label": true, "input": true, "select": true, "option": true, "button": true, "strong": true, "audio": true,
	"pre": true, "code": true, "footer": true, "time": true,
}

func parseHTMLPage(t testing.TB, body []byte) *htmlPage {
	t.Helper()
	root, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse HTML: %v", err)
	}
	p := &htmlPage{root: root, elements: map[string]int{}}
	var text strings.Builder
	var walk func(n *html.Node, inH1 bool)
	walk = func(n *html.Node, inH1 bool) {
		switch n.Type {
		case html.ElementNode:
			p.elements[n.Data]++
			for _, a := range n.Attr {
				if a.Key == "href" || a.Key == "src" || a.Key == "action" {
					p.urls = append(p.urls, a.Val)
				}
			}
			if n.Data == "h1" {
				p.h1 = append(p.h1, textOf(n))
			}
		case html.TextNode:
			text.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inH1)
		}
	}
	walk(root, false)
	p.text = text.String()
	return p
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// findAll returns the elements named tag for which match holds.
func findAll(n *html.Node, tag string, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == tag && (match == nil || match(n)) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// checkHTMLPage asserts what every HTML page promises: headers, language,
// one h1, a Markdown alternate, labelled inputs, the snapshot and source,
// only the layout's elements, no event attributes, and only http(s) URLs,
// internal ones under base and external ones listed in external.
func checkHTMLPage(t testing.TB, rec *httptest.ResponseRecorder, base string, external map[string]bool) *htmlPage {
	t.Helper()
	h := rec.Header()
	if h.Get("Content-Type") != core.HTMLType || h.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(h.Get("Vary"), "Accept") {
		t.Errorf("headers %v", h)
	}
	csp := h.Get("Content-Security-Policy")
	for _, d := range []string{"default-src 'none'", "style-src 'self'", "img-src 'self'", "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, d) {
			t.Errorf("CSP %q lacks %q", csp, d)
		}
	}
	p := parseHTMLPage(t, rec.Body.Bytes())
	if htmlEl := findAll(p.root, "html", nil); len(htmlEl) != 1 || attr(htmlEl[0], "lang") != "en" {
		t.Errorf("no <html lang=en>")
	}
	if len(p.h1) != 1 {
		t.Errorf("%d h1 elements", len(p.h1))
	}
	if d := findAll(p.root, "meta", func(n *html.Node) bool { return attr(n, "name") == "description" }); len(d) != 1 || attr(d[0], "content") == "" {
		t.Errorf("no meta description")
	}
	alt := findAll(p.root, "link", func(n *html.Node) bool { return attr(n, "rel") == "alternate" && attr(n, "type") == "text/markdown" })
	if len(alt) != 1 || !strings.Contains(attr(alt[0], "href"), "/index.md") {
		t.Errorf("markdown alternate %v", alt)
	}
	for _, in := range findAll(p.root, "input", nil) {
		id := attr(in, "id")
		if id == "" || len(findAll(p.root, "label", func(l *html.Node) bool { return attr(l, "for") == id })) != 1 {
			t.Errorf("input %q has no label", attr(in, "name"))
		}
	}
	if !strings.Contains(p.text, "Data snapshot taken") || !strings.Contains(p.text, "from ") {
		t.Errorf("page does not state the snapshot and source")
	}
	checkHTMLSafe(t, p, base, external)
	return p
}

// checkHTMLSafe: nothing injected. Element set, attributes, URLs, text.
func checkHTMLSafe(t testing.TB, p *htmlPage, base string, external map[string]bool) {
	t.Helper()
	for el := range p.elements {
		if !allowedElements[el] {
			t.Errorf("unexpected element <%s>", el)
		}
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				if strings.HasPrefix(strings.ToLower(a.Key), "on") || a.Key == "style" {
					t.Errorf("<%s %s=%q>", n.Data, a.Key, a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(p.root)
	for _, u := range p.urls {
		checkURL(t, u, base, external)
	}
	if strings.ContainsFunc(p.text, pages.IsBidiControl) {
		t.Errorf("bidi control characters in the page text")
	}
}

// checkURL: http(s) only; ours under base, others only if expected.
func checkURL(t testing.TB, u, base string, external map[string]bool) {
	t.Helper()
	if !pages.IsWebURL(u) {
		t.Errorf("URL %q is not absolute http(s)", u)
		return
	}
	if !strings.HasPrefix(u, base+"/") && u != base && !external[u] {
		t.Errorf("URL %q is neither under %s nor an expected external address", u, base)
	}
}

// mdDoc is a parsed Markdown document.
type mdDoc struct {
	headings  map[int][]string
	links     []string
	autolinks int
	images    int
	rawHTML   int
	text      string
}

var markdownParser = goldmark.New(goldmark.WithExtensions(extension.GFM))

func parseMarkdown(t testing.TB, src []byte) *mdDoc {
	t.Helper()
	root := markdownParser.Parser().Parse(gmtext.NewReader(src))
	d := &mdDoc{headings: map[int][]string{}}
	var text strings.Builder
	err := ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			d.headings[n.Level] = append(d.headings[n.Level], inlineText(n, src))
		case *ast.Link:
			d.links = append(d.links, string(n.Destination))
		case *ast.AutoLink:
			d.autolinks++
		case *ast.Image:
			d.images++
		case *ast.RawHTML, *ast.HTMLBlock:
			d.rawHTML++
		case *ast.Text:
			text.Write(n.Segment.Value(src))
			text.WriteByte(' ')
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	d.text = text.String()
	return d
}

// checkMarkdownPage asserts the Markdown twin's structure: its type, one
// H1 first, no raw HTML, images or autolinks, links only to http(s) URLs
// under base or expected, the snapshot stated, no bidi controls.
func checkMarkdownPage(t testing.TB, rec *httptest.ResponseRecorder, base string, external map[string]bool) *mdDoc {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != core.MarkdownMediaType {
		t.Errorf("Content-Type %q", ct)
	}
	body := rec.Body.Bytes()
	if !bytes.HasPrefix(body, []byte("# ")) {
		t.Errorf("does not start with an H1: %.80q", body)
	}
	d := parseMarkdown(t, body)
	if len(d.headings[1]) != 1 {
		t.Errorf("%d H1 headings: %q", len(d.headings[1]), d.headings[1])
	}
	if d.rawHTML+d.images+d.autolinks > 0 {
		t.Errorf("raw HTML %d, images %d, autolinks %d", d.rawHTML, d.images, d.autolinks)
	}
	for _, l := range d.links {
		checkURL(t, l, base, external)
	}
	if !strings.Contains(d.text, "Data snapshot taken") {
		t.Errorf("Markdown does not state the snapshot")
	}
	if strings.ContainsFunc(string(body), func(r rune) bool { return pages.IsBidiControl(r) || unicode.IsControl(r) && r != '\n' }) {
		t.Errorf("control or bidi characters in Markdown")
	}
	return d
}

// stationOf reads one station from the JSON API, as a client would.
func stationOf(t testing.TB, s *Server, id string) stationjson.Station {
	t.Helper()
	rec := fetchOK(t, s, "/api/stations/"+id)
	var env api.StationEnvelope
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
		t.Fatal(err)
	}
	return env.Station.Station
}

// stationURLs are every URL field of a Station.
func stationURLs(st *stationjson.Station) []string {
	urls := []string{st.PageURL, st.ListenURL}
	if st.CountryURL != "" {
		urls = append(urls, st.CountryURL)
	}
	urls = append(urls, st.LanguageURLs...)
	urls = append(urls, st.GenreURLs...)
	if st.LocationURL != nil {
		urls = append(urls, *st.LocationURL)
	}
	return urls
}

// externalOf are the addresses from the data a station's pages may link.
func externalOf(t testing.TB, ix *query.Index, id string) map[string]bool {
	t.Helper()
	rec, err := pages.StationRecord(ix, id)
	if err != nil {
		t.Fatal(err)
	}
	ext := map[string]bool{}
	for _, u := range []string{rec.OfficialURL, rec.StreamURL} {
		if u != "" {
			ext[u], ext[hrefOf(u)] = true, true
		}
	}
	return ext
}

// hrefOf is u as a page's href reads once parsed: written by appendURL
// (bytes outside RFC 3986's characters percent-encoded), entities decoded.
func hrefOf(u string) string {
	return html.UnescapeString(string(pages.AppendURL(nil, u)))
}

// allStationIDs lists the ids of an index through the query API.
func allStationIDs(t testing.TB, ix *query.Index) []string {
	t.Helper()
	var ids []string
	if err := ix.EachStationID(0, -1, func(id format.UUID) error {
		ids = append(ids, id.String())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return ids
}

// asciiPunct is what CommonMark lets a backslash escape.
const asciiPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// mdUnescape undoes mdText's backslash escapes, to compare text.
func mdUnescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(asciiPunct, s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// inlineText is the literal text of a node's inline descendants.
func inlineText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

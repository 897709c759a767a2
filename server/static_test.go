package server

import (
	"bytes"
	"encoding/binary"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"stationdex/server/core"
	"stationdex/server/files"
	"stationdex/server/pages"
)

// TestStyleSheetFingerprinted: pages link the style sheet under a name
// carrying its digest, served immutable for a year with an ETag and 304;
// the plain name and other fingerprints still answer, cached for a day.
func TestStyleSheetFingerprinted(t *testing.T) {
	s := newDemoServer(t, nil)
	p := parseHTMLPage(t, fetchOK(t, s, "/").Body.Bytes())
	sheets := findAll(p.root, "link", func(n *html.Node) bool { return attr(n, "rel") == "stylesheet" })
	if len(sheets) != 1 {
		t.Fatalf("%d style sheets", len(sheets))
	}
	target := local(t, testBase, attr(sheets[0], "href"))
	if target != pages.StylePath || !strings.Contains(target, ".css") || target == "/static/style.css" {
		t.Fatalf("style sheet at %q, want the fingerprinted %q", target, pages.StylePath)
	}
	rec := fetchOK(t, s, target)
	h := rec.Header()
	if h.Get("Cache-Control") != files.ImmutableAge || h.Get("Content-Type") != "text/css; charset=utf-8" || !bytes.Equal(rec.Body.Bytes(), pages.StyleCSS) {
		t.Fatalf("fingerprinted sheet: %v", h)
	}
	if got := serve(s, http.MethodGet, target, "If-None-Match", h.Get("ETag")); got.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: %d, want 304", got.Code)
	}
	for _, other := range []string{"/static/style.css", "/static/style.0123456789abcdef.css"} {
		if got := fetchOK(t, s, other); got.Header().Get("Cache-Control") != files.DailyAge || !bytes.Equal(got.Body.Bytes(), pages.StyleCSS) {
			t.Errorf("%s: %v", other, got.Header())
		}
	}
	if got := serve(s, http.MethodGet, "/static/other.js"); got.Code != http.StatusNotFound {
		t.Errorf("/static/other.js: %d, want 404", got.Code)
	}
}

// TestFavicon: the SVG icon the pages link, and /favicon.ico as a real ICO
// holding a PNG, for clients that ask for it by name.
func TestFavicon(t *testing.T) {
	s := newDemoServer(t, nil)
	if rec := fetchOK(t, s, core.PathFaviconSVG); rec.Header().Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(rec.Body.String(), "<svg") {
		t.Errorf("favicon.svg: %v", rec.Header())
	}
	ico := fetchOK(t, s, core.PathFaviconICO).Body.Bytes()
	if len(ico) < 22 || binary.LittleEndian.Uint16(ico[2:]) != 1 || binary.LittleEndian.Uint16(ico[4:]) != 1 {
		t.Fatalf("favicon.ico header % x", ico[:min(len(ico), 22)])
	}
	size, offset := binary.LittleEndian.Uint32(ico[14:]), binary.LittleEndian.Uint32(ico[18:])
	if int(offset)+int(size) != len(ico) {
		t.Fatalf("favicon.ico: image of %d bytes at %d in %d", size, offset, len(ico))
	}
	img, err := png.Decode(bytes.NewReader(ico[offset:]))
	if err != nil || img.Bounds().Dx() != int(ico[6]) || img.Bounds().Dy() != int(ico[7]) {
		t.Fatalf("favicon.ico image: %v", err)
	}
}

// TestRobotsTxt: everything may be crawled and the sitemap is named with
// the base URL.
func TestRobotsTxt(t *testing.T) {
	s := newDemoServer(t, nil)
	rec := fetchOK(t, s, core.PathRobots)
	body := rec.Body.String()
	if rec.Header().Get("Content-Type") != "text/plain; charset=utf-8" ||
		!strings.Contains(body, "User-agent: *\nDisallow:\n") ||
		!strings.Contains(body, "\nSitemap: "+testBase+core.PathSitemap+"\n") {
		t.Fatalf("robots.txt:\n%s", body)
	}
}

func TestDescriptionClipsAtAWord(t *testing.T) {
	long := strings.Repeat("word ", 60)
	got := pages.ClipWords(long, pages.MaxDescriptionRunes)
	if n := len([]rune(got)); n > pages.MaxDescriptionRunes || !strings.HasSuffix(got, "word…") {
		t.Fatalf("%d runes: %q", n, got)
	}
	if got := pages.ClipWords("short", pages.MaxDescriptionRunes); got != "short" {
		t.Fatalf("short text changed: %q", got)
	}
}

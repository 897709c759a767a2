package pages

import (
	"bytes"
	_ "embed"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"stationdex/server/core"
)

// HTML pages are written by hand, by the functions below and in
// html_parts.go, one for each part of the one layout every page has: head, site navigation, heading
// and error, search form, blocks (text, notice, player, facts, links,
// code), pager, footer. They append bytes to the response buffer: the
// html/template layout they replace spent more time in reflection than in
// writing (a third of a page crawl's CPU).
//
// They escape exactly as html/template did in the same places, so every
// page is byte for byte the page the template wrote (html_escape.go; the
// tests keep the template and compare every kind of page and fuzzed
// pages with it):
//   - text, <title> and quoted attribute values: & ' < > " + as entities,
//     NUL as U+FFFD (appendText);
//   - href, src and action: a URL whose scheme is not http, https or
//     mailto becomes "#ZgotmplZ"; bytes outside RFC 3986's characters, and
//     ' ( ), are percent-encoded in lower-case hex, valid escapes kept;
//     then & and + as entities (appendURL).
//
// Station text reaches a page only through the page model (see page.go),
// and hrefs only as absolute http(s) URLs, so the writers never trust a
// value; they still escape every one as the template did. The pages use
// no JavaScript and one same-origin style sheet.

//go:embed static/style.css
var StyleCSS []byte

// Footer is what every page and file states about its data: when the
// snapshot was taken and where it comes from. It never shows the time the
// page was made, which would read like a verification date.
type Footer struct {
	SnapshotAt time.Time
	Source     string
}

func (f Footer) Snapshot() string { return f.SnapshotAt.UTC().Format(time.RFC3339) }

// SnapshotDay is the layout of the snapshot time for people.
const SnapshotDay = "2 January 2006, 15:04 UTC"

// Loaded is false on the pages served while no index is loaded.
func (f Footer) Loaded() bool { return !f.SnapshotAt.IsZero() }

func (f Footer) text() string {
	if !f.Loaded() {
		return "No data snapshot is loaded yet. " + DataNotice(f.Source)
	}
	return "Data snapshot taken " + f.Snapshot() + " from " + f.Source + ". " + DataNotice(f.Source)
}

// layout is what the layout adds to a page: its addresses and the texts
// every page has.
type layout struct {
	Footer
	Base        string // base URL, no trailing slash
	Canonical   string
	Markdown    string // the Markdown twin's URL
	Notice      string
	Description string // the meta description: what a search result shows
}

// LayoutOf is what the layout adds to p: its URLs are the page's path and
// query under the base URL.
// Both URLs are cut from one string.
func (s *Server) LayoutOf(p *Page, f Footer) layout {
	var space [512]byte
	b := append(append(space[:0], s.Base...), p.Path...)
	if p.Query != "" {
		b = append(append(b, '?'), p.Query...)
	}
	n := len(b)
	path, _, _ := bytes.Cut(b, []byte("?")) // as mdTwin cuts the URL
	twin := bytes.HasSuffix(path, []byte("/"))
	if twin {
		b = append(append(append(b, path...), core.MarkdownIndex...), b[len(path):n]...)
	}
	urls := string(b)
	l := layout{Footer: f, Base: s.Base, Canonical: urls[:n], Markdown: urls[:n],
		Notice: DataNotice(f.Source), Description: description(p)}
	if twin {
		l.Markdown = urls[n:]
	}
	return l
}

// AppendHTML appends p as an HTML page.
func (s *Server) AppendHTML(dst []byte, p *Page, f Footer) []byte {
	l := s.LayoutOf(p, f)
	dst = appendPageHead(dst, p, &l)
	dst = appendSiteNav(dst, l.Base)
	dst = appendMain(dst, p)
	return appendFooter(dst, &l)
}

// documentStart is every page up to its title.
const documentStart = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n" +
	"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"

// appendPageHead writes the head: title, description, style sheet, icon,
// canonical URL, Markdown twin and neighbouring pages.
func appendPageHead(dst []byte, p *Page, l *layout) []byte {
	dst = appendWrapped(dst, documentStart, p.Title, "</title>\n<meta name=\"description\" content=\"")
	dst = appendText(dst, l.Description)
	dst = AppendURL(append(dst, chromeOf(l.Base).headLinks...), l.Canonical)
	dst = AppendURL(append(dst, "\">\n<link rel=\"alternate\" type=\"text/markdown\" href=\""...), l.Markdown)
	dst = append(dst, "\">"...)
	if p.Pager != nil {
		dst = appendHeadLink(dst, "prev", p.Pager.Prev)
		dst = appendHeadLink(dst, "next", p.Pager.Next)
	}
	return append(dst, "\n</head>\n<body>\n"...)
}

// writeHeadLinks writes the head from the description's end to the
// canonical URL: the style sheet and the icon under base.
func writeHeadLinks(dst []byte, base string) []byte {
	dst = AppendURL(append(dst, "\">\n<link rel=\"stylesheet\" href=\""...), base)
	dst = AppendURL(dst, StylePath)
	dst = AppendURL(append(dst, "\">\n<link rel=\"icon\" href=\""...), base)
	return append(dst, "/favicon.svg\" type=\"image/svg+xml\">\n<link rel=\"canonical\" href=\""...)
}

// appendHeadLink links a neighbouring page, if there is one.
func appendHeadLink(dst []byte, rel, href string) []byte {
	if href == "" {
		return dst
	}
	dst = append(append(dst, "\n<link rel=\""...), rel...)
	return appendHref(dst, "\" href=\"", href, "\">")
}

// navEntry is a page of the site's navigation: its path under the base
// URL and its name.
type navEntry struct{ path, name string }

// siteNav is the navigation of every page: home, search, every directory,
// the guide.
var siteNav = func() []navEntry {
	nav := []navEntry{{"/", "stationdex"}, {core.PathSearch, "Search"}}
	for _, d := range Directories {
		nav = append(nav, navEntry{"/" + d.Kind + "/", d.title})
	}
	return append(nav, navEntry{core.PathGuide, "API guide"})
}()

// appendSiteNav writes the navigation, the same on every page under one
// base URL: written once, then copied (siteChrome).
func appendSiteNav(dst []byte, base string) []byte {
	return append(dst, chromeOf(base).nav...)
}

// siteChrome is what every page under one base URL writes the same: the
// head's links to the style sheet and icon up to the canonical URL, the
// navigation, and the footer's links after the Markdown twin's.
type siteChrome struct {
	base                 string
	headLinks, nav, tail []byte
}

// chrome is the chrome of the base URL last asked for: a node serves one.
var chrome atomic.Pointer[siteChrome]

// chromeOf is base's chrome, written now when it is not the one kept.
func chromeOf(base string) *siteChrome {
	if c := chrome.Load(); c != nil && c.base == base {
		return c
	}
	c := &siteChrome{base: base, headLinks: writeHeadLinks(nil, base), nav: writeSiteNav(nil, base), tail: writeFooterTail(nil, base)}
	chrome.Store(c)
	return c
}

func writeSiteNav(dst []byte, base string) []byte {
	dst = append(dst, "<header>\n<nav aria-label=\"Site\">\n<ul>\n"...)
	for _, n := range siteNav {
		dst = AppendURL(append(dst, "<li><a href=\""...), base)
		dst = append(append(append(append(dst, n.path...), "\">"...), n.name...), "</a></li>\n"...)
	}
	return append(dst, "</ul>\n</nav>\n</header>\n"...)
}

// appendMain writes the page's own content: heading, error, form, blocks
// and pager.
func appendMain(dst []byte, p *Page) []byte {
	dst = appendWrapped(dst, "<main>\n<h1><bdi>", p.Heading, "</bdi></h1>")
	if p.Error != "" {
		dst = appendWrapped(dst, "\n<p class=\"error\" role=\"alert\">", p.Error, "</p>")
	}
	if p.Form != nil {
		dst = appendForm(dst, p.Form)
	}
	for i := range p.Blocks {
		dst = appendBlock(dst, &p.Blocks[i])
	}
	if p.Pager != nil {
		dst = appendPager(dst, p.Pager)
	}
	return append(dst, "\n</main>\n"...)
}

// appendFooter writes what the page says of its data (the snapshot, its
// source, the notice) and links to its twin, the API and the downloads.
// What it says of the data is the same on every page of a snapshot, and
// what follows the twin's link on every page under a base URL: both are
// written once and copied (footerStart, siteChrome).
func appendFooter(dst []byte, l *layout) []byte {
	dst = append(dst, footerStartOf(l).html...)
	dst = AppendURL(dst, l.Markdown)
	return append(dst, chromeOf(l.Base).tail...)
}

// footerStart is the footer up to the Markdown twin's address, as
// written for one snapshot and notice.
type footerStart struct {
	at             time.Time
	source, notice string
	html           []byte
}

// footer is the footer start last written: a node serves one snapshot at
// a time.
var footer atomic.Pointer[footerStart]

// footerStartOf is l's footer start, written now when it is not the one
// kept. Equal instants are written alike (in UTC).
func footerStartOf(l *layout) *footerStart {
	if f := footer.Load(); f != nil && f.at.Equal(l.SnapshotAt) && f.source == l.Source && f.notice == l.Notice {
		return f
	}
	f := &footerStart{at: l.SnapshotAt, source: l.Source, notice: l.Notice, html: writeFooterStart(nil, l)}
	footer.Store(f)
	return f
}

// writeFooterTail writes the footer after the Markdown twin's address.
func writeFooterTail(dst []byte, base string) []byte {
	dst = AppendURL(append(dst, "\" type=\"text/markdown\">This page as Markdown</a> · <a href=\""...), base)
	dst = AppendURL(append(dst, "/openapi.json\">OpenAPI</a> · <a href=\""...), base)
	return append(dst, "/data/catalog.json\">Data downloads</a></p>\n</footer>\n</body>\n</html>\n"...)
}

// writeFooterStart writes the footer up to the Markdown twin's address.
func writeFooterStart(dst []byte, l *layout) []byte {
	dst = append(dst, "<footer>"...)
	if l.Loaded() {
		var at [64]byte
		t := l.SnapshotAt.UTC()
		dst = appendText(append(dst, "\n<p>Data snapshot taken <time datetime=\""...), t.AppendFormat(at[:0], time.RFC3339))
		dst = appendText(append(dst, "\">"...), t.AppendFormat(at[:0], SnapshotDay))
		dst = appendWrapped(dst, "</time> from ", l.Source, ".</p>")
	} else {
		dst = append(dst, "\n<p>No data snapshot is loaded yet.</p>"...)
	}
	dst = appendWrapped(dst, "\n<p>", l.Notice, "</p>")
	return append(dst, "\n<p><a href=\""...)
}

// siteDescription describes a page that has no text of its own.
const siteDescription = "stationdex: a searchable directory of radio stations from a snapshot of " +
	"Radio Browser, with a JSON API, Markdown pages and full data downloads."

// MaxDescriptionRunes keeps a description to what search results show.
const MaxDescriptionRunes = 160

// description is the page's own, or its first paragraph, cut at a word to fit, or the
// site's description when the page has none.
func description(p *Page) string {
	if p.Description != "" {
		return p.Description
	}
	for _, b := range p.Blocks {
		if len(b.Text) > 0 && b.Text[0] != "" {
			return ClipWords(p.Heading+". "+b.Text[0], MaxDescriptionRunes)
		}
	}
	return siteDescription
}

// firstRunes is s's first n runes, as string([]rune(s)[:n]) makes them
// (invalid UTF-8 as U+FFFD), sliced from s when they are valid.
func firstRunes(s string, n int) string {
	seen := 0
	for i, r := range s {
		if seen == n {
			return s[:i]
		}
		if r == utf8.RuneError {
			rs := []rune(s) // s[i:] may be invalid: re-encode as the conversion does
			return string(rs[:min(n, len(rs))])
		}
		seen++
	}
	return s
}

// ClipWords cuts s to at most n runes at a space, with an ellipsis.
func ClipWords(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := firstRunes(s, n-1)
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:") + "…"
}

// styleAsset is the style sheet; stylePath names it by its digest.
var (
	StyleAsset = core.NewStaticAsset(StyleCSS, "text/css; charset=utf-8")
	StylePath  = "/static/style." + strings.Trim(StyleAsset.Tag, `"`) + ".css"
)

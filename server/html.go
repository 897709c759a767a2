package server

import (
	"bytes"
	"embed"
	"html/template"
	"strings"
	"time"
)

// HTML pages are rendered with html/template from one layout
// (templates/page.html), which escapes every value for its context. Station
// text reaches it only through Page (see page.go), and hrefs only as
// absolute http(s) URLs, so the template never has to trust a value. The
// pages use no JavaScript and one same-origin style sheet.

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/style.css
var styleCSS []byte

var pageTemplate = template.Must(template.New("page.html").ParseFS(templateFS, "templates/page.html"))

// footer is what every page and file states about its data: when the
// snapshot was taken and where it comes from. It never shows the time the
// page was made, which would read like a verification date.
type footer struct {
	SnapshotAt time.Time
	Source     string
}

func (f footer) Snapshot() string { return f.SnapshotAt.UTC().Format(time.RFC3339) }

// SnapshotDay is the snapshot time for people.
func (f footer) SnapshotDay() string { return f.SnapshotAt.UTC().Format("2 January 2006, 15:04 UTC") }

// Loaded is false on the pages served while no index is loaded.
func (f footer) Loaded() bool { return !f.SnapshotAt.IsZero() }

func (f footer) text() string {
	if !f.Loaded() {
		return "No data snapshot is loaded yet. " + dataNotice(f.Source)
	}
	return "Data snapshot taken " + f.Snapshot() + " from " + f.Source + ". " + dataNotice(f.Source)
}

// htmlView is the template's data: the page and what the layout adds.
type htmlView struct {
	*page
	Footer       footer
	Base         string // base URL, no trailing slash
	CanonicalURL string
	MarkdownURL  string
	Notice       string
	Description  string // the meta description: what a search result shows
	StylePath    string
}

func (s *Server) appendHTML(dst []byte, p *page, f footer) ([]byte, error) {
	canonical := s.base + p.Path
	if p.Query != "" {
		canonical += "?" + p.Query
	}
	v := htmlView{page: p, Footer: f, Base: s.base, CanonicalURL: canonical, MarkdownURL: mdTwin(canonical),
		Notice: dataNotice(f.Source), Description: description(p), StylePath: stylePath}
	b := bytes.NewBuffer(dst)
	if err := pageTemplate.Execute(b, v); err != nil {
		return b.Bytes(), err
	}
	return b.Bytes(), nil
}

// siteDescription describes a page that has no text of its own.
const siteDescription = "stationdex: a searchable directory of radio stations from a snapshot of " +
	"Radio Browser, with a JSON API, Markdown pages and full data downloads."

// maxDescriptionRunes keeps a description to what search results show.
const maxDescriptionRunes = 160

// description is the page's own, or its first paragraph, cut at a word to fit, or the
// site's description when the page has none.
func description(p *page) string {
	if p.Description != "" {
		return p.Description
	}
	for _, b := range p.Blocks {
		if len(b.Text) > 0 && b.Text[0] != "" {
			return clipWords(p.Heading+". "+b.Text[0], maxDescriptionRunes)
		}
	}
	return siteDescription
}

// clipWords cuts s to at most n runes at a space, with an ellipsis.
func clipWords(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n-1])
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:") + "…"
}

package server

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"testing"

	"stationdex/server/core"
	"stationdex/server/pages"
)

// The layout the pages were rendered from with html/template before they
// were written by hand (html.go), kept as the reference the writers are
// compared with: whatever a page holds, both must write the same bytes.

//go:embed testdata/page_template.html
var referenceLayout string

var referenceTemplate = template.Must(template.New("page.html").Parse(referenceLayout))

// referenceView is the template's data: the page and what the layout adds.
type referenceView struct {
	*pages.Page
	Footer       referenceFooter
	Base         string
	CanonicalURL string
	MarkdownURL  string
	Notice       string
	Description  string
	StylePath    string
}

// referenceFooter is the page's footer as the template reads it.
type referenceFooter struct{ pages.Footer }

// SnapshotDay is the snapshot time for people, for the template.
func (f referenceFooter) SnapshotDay() string { return f.SnapshotAt.UTC().Format(pages.SnapshotDay) }

// referenceHTML is p rendered by the template.
func referenceHTML(t testing.TB, s *pages.Server, p *pages.Page, f pages.Footer) []byte {
	t.Helper()
	l := s.LayoutOf(p, f)
	v := referenceView{Page: p, Footer: referenceFooter{f}, Base: l.Base, CanonicalURL: l.Canonical, MarkdownURL: l.Markdown,
		Notice: l.Notice, Description: l.Description, StylePath: pages.StylePath}
	var b bytes.Buffer
	if err := referenceTemplate.Execute(&b, v); err != nil {
		t.Fatalf("reference template: %v", err)
	}
	return b.Bytes()
}

// requireSameHTML fails unless the writer writes p as the template does.
func requireSameHTML(t testing.TB, s *pages.Server, what string, p *pages.Page, f pages.Footer) {
	t.Helper()
	want := referenceHTML(t, s, p, f)
	if got := s.AppendHTML(nil, p, f); !bytes.Equal(got, want) {
		t.Fatalf("%s: the writer and the template differ%s", what, htmlDifference(got, want))
	}
}

// htmlDifference shows where two pages part, with some context.
func htmlDifference(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-80)
	return fmt.Sprintf("\nat byte %d\nwriter:   %q\ntemplate: %q", i, got[from:min(len(got), i+80)], want[from:min(len(want), i+80)])
}

// pagesAt is the pages' server under base, with no index: enough to write
// a page built by hand.
func pagesAt(base string) *pages.Server {
	return &pages.Server{Server: &core.Server{Base: base}}
}

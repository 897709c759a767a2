package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"stationdex/query"
	"stationdex/server/core"
	"stationdex/server/pages"
)

// Building a page model without serving it, as servePage does, so that
// benchmarks and the renderer tests can build or render it alone.

// builtPage is the page the handler answers target with (an error page when
// the builder fails) and its footer.
func builtPage(t testing.TB, s *Server, ix *query.Index, target string) (*pages.Page, pages.Footer) {
	t.Helper()
	return buildPage(s, ix, httptest.NewRequest(http.MethodGet, target, nil))
}

// buildPage is the page the handler answers r with, and its footer.
func buildPage(s *Server, ix *query.Index, r *http.Request) (*pages.Page, pages.Footer) {
	build, arg := pageBuilder(s, r.URL.EscapedPath())
	p, err := build(r, ix, arg)
	if err != nil {
		p = s.pages.ErrorPage(r, err)
	}
	m := ix.Meta()
	return p, pages.Footer{SnapshotAt: m.SnapshotAt, Source: m.Source}
}

// pageBuilder is the builder the routes (pageRoutes) pick for an HTML
// page's escaped path, and its argument; noPage for any other path.
func pageBuilder(s *Server, path string) (pages.PageFunc, string) {
	switch path {
	case "/":
		return s.pages.HomePage, ""
	case core.PathSearch:
		return s.pages.SearchPage, ""
	case core.PathGuide:
		return s.pages.GuidePage, ""
	}
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if !strings.HasSuffix(path, "/") {
		return pages.NoPage, ""
	}
	switch {
	case parts[0] == "stations" && len(parts) == 2:
		return s.pages.StationPage, pages.SegmentArg(parts[1])
	case parts[0] == "stations" && len(parts) == 3 && parts[2] == "listen":
		return s.pages.ListenPage, pages.SegmentArg(parts[1])
	}
	for _, d := range pages.Directories {
		switch {
		case parts[0] != d.Kind:
		case len(parts) == 1:
			return s.pages.DirectoryIndex(d), ""
		case len(parts) == 2:
			return s.pages.DirectoryValue(d), pages.SegmentArg(parts[1])
		}
	}
	return pages.NoPage, ""
}

package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"stationdex/query"
)

// Building a page model without serving it, as servePage does, so that
// benchmarks and the renderer tests can build or render it alone.

// builtPage is the page the handler answers target with (an error page when
// the builder fails) and its footer.
func builtPage(t testing.TB, s *Server, ix *query.Index, target string) (*page, footer) {
	t.Helper()
	return buildPage(s, ix, httptest.NewRequest(http.MethodGet, target, nil))
}

// buildPage is the page the handler answers r with, and its footer.
func buildPage(s *Server, ix *query.Index, r *http.Request) (*page, footer) {
	build, args := pageBuilder(s, r.URL.EscapedPath())
	p, err := build(r, ix, args)
	if err != nil {
		p = s.errorPage(r, err)
	}
	m := ix.Meta()
	return p, footer{SnapshotAt: m.SnapshotAt, Source: m.Source}
}

// pageBuilder is the builder the routes (pageRoutes) pick for an HTML
// page's escaped path, and its arguments; noPage for any other path.
func pageBuilder(s *Server, path string) (pageFunc, []string) {
	switch path {
	case "/":
		return s.homePage, nil
	case pathSearch:
		return s.searchPage, nil
	case pathGuide:
		return s.guidePage, nil
	}
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if !strings.HasSuffix(path, "/") {
		return noPage, nil
	}
	switch {
	case parts[0] == "stations" && len(parts) == 2:
		return s.stationPage, segmentArgs(parts[1])
	case parts[0] == "stations" && len(parts) == 3 && parts[2] == "listen":
		return s.listenPage, segmentArgs(parts[1])
	}
	for _, d := range directories {
		switch {
		case parts[0] != d.kind:
		case len(parts) == 1:
			return s.directoryIndex(d), nil
		case len(parts) == 2:
			return s.directoryValue(d), segmentArgs(parts[1])
		}
	}
	return noPage, nil
}

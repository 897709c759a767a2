package core

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/julienschmidt/httprouter"
)

// shapeServer is a core with no index, enough to route.
func shapeServer() *Server {
	return &Server{Observer: NopObserver{}, Log: slog.Default(), CacheControl: []string{"no-cache"}}
}

// recordedRows are rows whose handlers write their pattern and
// parameters, and the Observer labels every request got.
type labels []string

func (l *labels) Request(route, _ string, _ int, _ time.Duration) { *l = append(*l, route) }
func (l *labels) Search(time.Duration, time.Duration, int)        {}

func recordingRow(pattern string, kind ShapeKind) Shape {
	return Shape{Pattern: pattern, Kind: kind, Methods: []string{http.MethodGet}, Handle: func(w http.ResponseWriter, _ *http.Request, ps httprouter.Params) {
		var args []string
		for _, p := range ps {
			args = append(args, p.Key+"="+p.Value)
		}
		w.Header().Set("X-Row", pattern)
		w.Header().Set("X-Args", strings.Join(args, " "))
	}}
}

// pageRows are the rows of the stations tree and a directory, as the
// pages hand them in.
func pageRows() []Shape {
	rows := []Shape{recordingRow("/stations/:id/listen.m3u", ShapeFile), recordingRow("/stations/:id/listen.pls", ShapeFile)}
	for _, p := range []string{"/stations/:id/", "/stations/:id/listen/", "/countries/", "/countries/:key/"} {
		rows = append(rows, recordingRow(p, ShapePage), recordingRow(p+MarkdownIndex, ShapeTwin))
	}
	return rows
}

// serveShape answers target through the top's catch-all, calling the
// top's serve directly, so that paths the router itself would redirect
// ("/stations") are tried too.
func serveShape(t *testing.T, rows []Shape, top, target string) *httptest.ResponseRecorder {
	t.Helper()
	s := shapeServer()
	tops, _ := s.shapeTops(rows, func(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
		w.WriteHeader(http.StatusNotFound)
	})
	for _, tp := range tops {
		if tp.top == top {
			rec := httptest.NewRecorder()
			tp.serve(rec, httptest.NewRequest(http.MethodGet, target, nil), nil)
			return rec
		}
	}
	t.Fatalf("no top %s", top)
	return nil
}

// TestPageShapes pins how a path below a tree's top finds its row: the
// rows of the stations tree and of a directory, with the edge cases a
// crawler or a hand-typed address sends. A page matched without its
// trailing slash is redirected to it.
func TestPageShapes(t *testing.T) {
	const redirected = "redirect"
	cases := []struct {
		top, rest string
		row       string // "" for no match, redirected for a 301
		args      string
	}{
		{"/stations", "/abc/", "/stations/:id/", "id=abc"},
		{"/stations", "/abc", redirected, ""}, // matched, then redirected
		{"/stations", "/abc/index.md", "/stations/:id/index.md", "id=abc"},
		{"/stations", "/abc/listen/", "/stations/:id/listen/", "id=abc"},
		{"/stations", "/abc/listen/index.md", "/stations/:id/listen/index.md", "id=abc"},
		{"/stations", "//abc//", "/stations/:id/", "id=abc"}, // empty segments at the ends do not count
		{"/stations", "/abc//listen/", "", ""},               // nor in the middle
		{"/stations", "/abc/other/", "", ""},
		{"/stations", "/abc/listen/more/", "", ""},
		{"/stations", "/", "", ""},
		{"/stations", "", "", ""},
		{"/stations", "/a%2Fb/", "/stations/:id/", "id=a%2Fb"}, // still escaped
		{"/countries", "/", "/countries/", ""},
		{"/countries", "", redirected, ""}, // matched, then redirected
		{"/countries", "/index.md", "/countries/index.md", ""},
		{"/countries", "/rock/", "/countries/:key/", "key=rock"},
		{"/countries", "/rock/pop/", "", ""},
		// the files: exactly their segments, no trailing slash, a
		// non-empty parameter; a path no file has is tried as a page
		{"/stations", "/abc/listen.m3u", "/stations/:id/listen.m3u", "id=abc"},
		{"/stations", "/abc/listen.pls", "/stations/:id/listen.pls", "id=abc"},
		{"/stations", "/abc/listen.m3u/", "", ""},
		{"/stations", "//listen.m3u", redirected, ""}, // not the file: the page of "listen.m3u"
		{"/stations", "/abc/listen.xspf", "", ""},
	}
	for _, c := range cases {
		rec := serveShape(t, pageRows(), c.top, c.top+c.rest)
		row, args := rec.Header().Get("X-Row"), rec.Header().Get("X-Args")
		switch {
		case rec.Code == http.StatusMovedPermanently:
			row = redirected
		case rec.Code == http.StatusNotFound:
			row = ""
		}
		if row != c.row || args != c.args {
			t.Errorf("%s%s: row %q, args %q; want %q, %q", c.top, c.rest, row, args, c.row, c.args)
		}
	}
}

// TestDecodedShapes pins the rows matched on the decoded path: slashes at
// either end ignored, a parameter that may be empty, "*" the rest of the
// path; anything else is the top's otherwise row.
func TestDecodedShapes(t *testing.T) {
	rows := []Shape{
		recordingRow("/json/stations", ShapeDecoded),
		recordingRow("/json/stations/search", ShapeDecoded),
		recordingRow("/json/stations/bytag/*term", ShapeDecoded),
		recordingRow("/json/states/:country/:filter", ShapeDecoded),
		recordingRow("/json/*path", ShapeOtherwise),
	}
	cases := []struct{ path, row, args string }{
		{"/json/stations", "/json/stations", ""},
		{"/json/stations/", "/json/stations", ""},
		{"/json/stations/search/", "/json/stations/search", ""},
		{"/json/stations/bytag/rock", "/json/stations/bytag/*term", "term=rock"},
		{"/json/stations/bytag/rock/pop", "/json/stations/bytag/*term", "term=rock/pop"},
		{"/json/stations/bytag/rock%2Fpop", "/json/stations/bytag/*term", "term=rock/pop"},
		{"/json/stations/bytag/", "/json/*path", ""},
		{"/json/states/pt/x", "/json/states/:country/:filter", "country=pt filter=x"},
		{"/json/states//x", "/json/states/:country/:filter", "country= filter=x"},
		{"/json/", "/json/*path", ""},
		{"/json/stations/nope", "/json/*path", ""},
	}
	for _, c := range cases {
		rec := serveShape(t, rows, "/json", c.path)
		if row, args := rec.Header().Get("X-Row"), rec.Header().Get("X-Args"); row != c.row || args != c.args {
			t.Errorf("%s: row %q, args %q; want %q, %q", c.path, row, args, c.row, c.args)
		}
	}
}

// TestShapesLabelByPattern: a request is labelled by its row's pattern,
// a path no row matches by RouteUnmatched.
func TestShapesLabelByPattern(t *testing.T) {
	s := shapeServer()
	var got labels
	s.Observer = &got
	r := httprouter.New()
	s.ShapeRoutes(r, pageRows(), func(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {})
	for _, target := range []string{"/stations/abc/", "/stations/abc/index.md", "/countries/rock/", "/stations/abc/other/"} {
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, target, nil))
	}
	want := []string{"/stations/:id/", "/stations/:id/index.md", "/countries/:key/", RouteUnmatched}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("labels %v, want %v", got, want)
	}
}

// TestShapesRefuseBadPatterns: a pattern the matcher cannot read is a
// programming error, caught when the routes are registered.
func TestShapesRefuseBadPatterns(t *testing.T) {
	for _, pattern := range []string{"/a/*b/c", "/a/:b/:c/:d/:e", "/a//b/", "/a"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s was accepted", pattern)
				}
			}()
			shapeServer().shapeTops([]Shape{recordingRow(pattern, ShapePage)}, nil)
		}()
	}
}

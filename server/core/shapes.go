package core

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/julienschmidt/httprouter"
)

// The table of path shapes serves the paths httprouter cannot hold.
// httprouter 1.3 cannot have a fixed segment beside a parameter
// ("/countries/index.md" beside "/countries/:key/", "/json/stations/search"
// beside "/json/stations/bytag/*term"), so every such path is a row of one
// table, and each top segment the rows live under ("/countries",
// "/json") is one catch-all route that finds the request's row in the
// table, in the table's order. A row names its handler and is labelled for
// the Observer by its pattern, as a route of the router is.

// A ShapeKind says how a row of the table matches a path.
type ShapeKind uint8

const (
	// ShapePage is a page. Its pattern ends in "/": a path without the
	// slash is redirected to it. Empty segments at either end of the path
	// do not count; a parameter is one non-empty segment, as escaped.
	ShapePage ShapeKind = iota
	// ShapeTwin is a page's Markdown twin: the page's pattern followed by
	// "index.md", matched as the page is.
	ShapeTwin
	// ShapeFile is a file beside the pages ("/stations/:id/listen.m3u"):
	// exactly the pattern's segments, never redirected.
	ShapeFile
	// ShapeDecoded is a path matched as decoded, with slashes at either
	// end ignored and a parameter that may be an empty segment; "*name"
	// takes the rest of the path, one segment or more (the Radio Browser
	// API's way: a term may hold a slash).
	ShapeDecoded
	// ShapeOtherwise answers the paths below its top that no row matched;
	// its pattern ("/json/*path") only names the top and the label.
	ShapeOtherwise
)

// A Shape is one row of the table of path shapes.
type Shape struct {
	// Pattern is the path in httprouter's notation: ":name" for one
	// segment, "*name" (last) for the rest. It is the metrics label.
	Pattern string
	Kind    ShapeKind
	// Methods are the methods the row answers; the rows under one top
	// answer the same ones.
	Methods []string
	Handle  httprouter.Handle
}

// maxShapeParams bounds the parameters of one pattern.
const maxShapeParams = 3

// shapeRow is a row compiled: its segments below the top, and its
// handler instrumented under its pattern.
type shapeRow struct {
	kind   ShapeKind
	parts  []string // ":x" a parameter, "*x" the rest; none for the top itself
	handle httprouter.Handle
}

// shapeTop is the rows under one top segment, served by one catch-all
// route.
type shapeTop struct {
	top       string // "/countries"
	rows      []shapeRow
	otherwise httprouter.Handle
}

// ShapeRoutes registers the table rows on r: one catch-all route per top
// segment of the patterns, in the order the tops first appear. A path
// below a top that no row matches is answered by the top's ShapeOtherwise
// row, or by notFound, labelled RouteUnmatched.
func (s *Server) ShapeRoutes(r *httprouter.Router, rows []Shape, notFound httprouter.Handle) {
	tops, methods := s.shapeTops(rows, notFound)
	for _, t := range tops {
		for _, m := range methods[t.top] {
			r.Handle(m, t.top+"/*rest", t.serve)
		}
	}
}

// shapeTops compiles the table: its rows by top, in the order the tops
// first appear, and the methods of each top.
func (s *Server) shapeTops(rows []Shape, notFound httprouter.Handle) ([]*shapeTop, map[string][]string) {
	var tops []*shapeTop
	methods := map[string][]string{}
	for _, row := range rows {
		top, below := splitTop(row.Pattern)
		i := slices.IndexFunc(tops, func(t *shapeTop) bool { return t.top == top })
		if i < 0 {
			tops = append(tops, &shapeTop{top: top})
			i = len(tops) - 1
		}
		t := tops[i]
		for _, m := range row.Methods {
			if !slices.Contains(methods[top], m) {
				methods[top] = append(methods[top], m)
			}
		}
		handle := s.Instrument(row.Pattern, row.Handle)
		if row.Kind == ShapeOtherwise {
			t.otherwise = handle
			continue
		}
		if row.Kind == ShapeTwin {
			var ok bool
			if below, ok = strings.CutSuffix(below, "/"+MarkdownIndex); !ok {
				panic(fmt.Sprintf("path shape %q: a twin that does not end in %s", row.Pattern, MarkdownIndex))
			}
		}
		t.rows = append(t.rows, shapeRow{kind: row.Kind, parts: shapeParts(row.Pattern, below), handle: handle})
	}
	for _, t := range tops {
		if t.otherwise == nil {
			t.otherwise = s.Instrument(RouteUnmatched, notFound)
		}
	}
	return tops, methods
}

// splitTop cuts a pattern into its top segment and the rest.
func splitTop(pattern string) (top, below string) {
	i := strings.IndexByte(pattern[1:], '/')
	if i < 0 {
		panic(fmt.Sprintf("path shape %q: no segment below its top", pattern))
	}
	return pattern[:i+1], pattern[i+1:]
}

// shapeParts splits the pattern below its top into segments, checked once,
// when the routes are registered.
func shapeParts(pattern, below string) []string {
	if strings.Contains(pattern, "//") {
		panic(fmt.Sprintf("path shape %q: an empty segment", pattern))
	}
	trimmed := strings.Trim(below, "/")
	if trimmed == "" {
		return nil
	}
	parts := strings.Split(trimmed, "/")
	params := 0
	for i, p := range parts {
		switch {
		case p == "":
			panic(fmt.Sprintf("path shape %q: an empty segment", pattern))
		case p[0] == '*' && i != len(parts)-1:
			panic(fmt.Sprintf("path shape %q: %s is not last", pattern, p))
		case p[0] == ':' || p[0] == '*':
			params++
		}
	}
	if params > maxShapeParams {
		panic(fmt.Sprintf("path shape %q: more than %d parameters", pattern, maxShapeParams))
	}
	return parts
}

// serve finds the row of a request below t's top and answers it.
func (t *shapeTop) serve(w http.ResponseWriter, r *http.Request, rest httprouter.Params) {
	escaped := strings.TrimPrefix(r.URL.EscapedPath(), t.top)
	twin := strings.HasSuffix(escaped, "/"+MarkdownIndex)
	for i := range t.rows {
		row := &t.rows[i]
		var ps httprouter.Params
		var ok bool
		switch row.kind {
		case ShapeFile:
			ps, ok = row.match(strings.TrimPrefix(escaped, "/"), false, rest)
		case ShapePage:
			if twin {
				continue
			}
			if ps, ok = row.match(strings.Trim(escaped, "/"), false, rest); ok && !strings.HasSuffix(escaped, "/") {
				redirectSlash(w, r)
				return
			}
		case ShapeTwin:
			if !twin {
				continue
			}
			ps, ok = row.match(strings.Trim(strings.TrimSuffix(escaped, "/"+MarkdownIndex), "/"), false, rest)
		case ShapeDecoded:
			ps, ok = row.match(strings.Trim(strings.TrimPrefix(r.URL.Path, t.top), "/"), true, rest)
		}
		if ok {
			row.handle(w, r, ps)
			return
		}
	}
	t.otherwise(w, r, nil)
}

// match reports whether segs, path segments joined by '/' ("" for none),
// has the row's segments: the fixed ones equal, a parameter any segment
// (non-empty unless empty), "*" the rest. It returns the parameters,
// made only for a match, in spare's room when they fit: the router's
// parameters of the top's catch-all route, which the row's replace.
func (row *shapeRow) match(segs string, empty bool, spare httprouter.Params) (httprouter.Params, bool) {
	if segs == "" || len(row.parts) == 0 {
		return nil, segs == "" && len(row.parts) == 0
	}
	var found [maxShapeParams]httprouter.Param
	n := 0
	for i, p := range row.parts {
		if p[0] == '*' {
			if segs == "" {
				return nil, false
			}
			found[n] = httprouter.Param{Key: p[1:], Value: segs}
			n++
			segs = ""
			break
		}
		seg, rest, more := strings.Cut(segs, "/")
		if more != (i < len(row.parts)-1) {
			return nil, false // fewer or more segments than the shape
		}
		switch {
		case p[0] == ':':
			if seg == "" && !empty {
				return nil, false
			}
			found[n] = httprouter.Param{Key: p[1:], Value: seg}
			n++
		case p != seg:
			return nil, false
		}
		segs = rest
	}
	if n == 0 {
		return nil, true
	}
	return append(spare[:0], found[:n]...), true
}

// redirectSlash sends a page's path without its trailing slash to the
// page.
func redirectSlash(w http.ResponseWriter, r *http.Request) {
	target := r.URL.EscapedPath() + "/"
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	http.Redirect(w, r, target, http.StatusMovedPermanently)
}

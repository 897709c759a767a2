package core

import (
	"fmt"
	"slices"
	"strings"
)

// treeShape is one shape of a page tree (see Server.tree), split into
// its segments once, when the routes are registered: a request is then
// matched by walking its path in place, where splitting the path and
// every shape per request made seven allocations of a crawled page.
type treeShape struct {
	Shape string   // as registered: "/:id/listen/"
	parts []string // its segments, ":x" for a parameter; none for "/"
}

// CompileShapes splits each shape of shapes (map keys, as the tree
// registers them), in a fixed order. A shape takes at most one
// parameter: the tree hands a handler one segment.
func CompileShapes[H any](shapes map[string]H) []treeShape {
	out := make([]treeShape, 0, len(shapes))
	for sh := range shapes {
		t := treeShape{Shape: sh}
		if trimmed := strings.Trim(sh, "/"); trimmed != "" {
			t.parts = strings.Split(trimmed, "/")
		}
		params := 0
		for _, p := range t.parts {
			if strings.HasPrefix(p, ":") {
				params++
			}
		}
		if params > 1 {
			panic(fmt.Sprintf("page tree shape %q: more than one parameter", sh))
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b treeShape) int { return strings.Compare(a.Shape, b.Shape) })
	return out
}

// match reports whether segs, path segments joined by '/' ("" for none),
// has the shape's segments: the fixed ones equal, a parameter any
// non-empty segment, which it returns (still escaped).
func (t *treeShape) match(segs string) (arg string, ok bool) {
	if segs == "" || len(t.parts) == 0 {
		return "", segs == "" && len(t.parts) == 0
	}
	for i, p := range t.parts {
		seg, rest, more := strings.Cut(segs, "/")
		if more != (i < len(t.parts)-1) {
			return "", false // fewer or more segments than the shape
		}
		switch {
		case strings.HasPrefix(p, ":"):
			if seg == "" {
				return "", false
			}
			arg = seg
		case p != seg:
			return "", false
		}
		segs = rest
	}
	return arg, true
}

// MatchTree finds the shape of rest among shapes (its place in them): rest is the escaped path
// below a tree's top, starting with '/'; empty segments at either end do
// not count, and a trailing "/index.md" asks for the Markdown twin.
func MatchTree(rest string, shapes []treeShape) (i int, arg string, md, ok bool) {
	if trimmed, found := strings.CutSuffix(rest, "/"+MarkdownIndex); found {
		rest, md = trimmed, true
	}
	segs := strings.Trim(rest, "/")
	for i := range shapes {
		if arg, ok := shapes[i].match(segs); ok {
			return i, arg, md, true
		}
	}
	return -1, "", false, false
}

// MatchTreeFile finds the file shape of rest: exactly its segments, with
// no trailing slash.
func MatchTreeFile(rest string, shapes []treeShape) (i int, arg string, ok bool) {
	segs := strings.TrimPrefix(rest, "/")
	for i := range shapes {
		if arg, ok := shapes[i].match(segs); ok {
			return i, arg, true
		}
	}
	return -1, "", false
}

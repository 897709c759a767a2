package core

import (
	"testing"
)

// TestMatchTree pins how a path below a tree's top finds its shape: the
// shapes of the stations tree and of a directory, with the edge cases a
// crawler or a hand-typed address sends.
func TestMatchTree(t *testing.T) {
	stations := CompileShapes(map[string]int{"/:id/": 0, "/:id/listen/": 0})
	directory := CompileShapes(map[string]int{"/": 0, "/:key/": 0})
	cases := []struct {
		shapes []treeShape
		rest   string
		shape  string // "" for no match
		arg    string
		md     bool
	}{
		{stations, "/abc/", "/:id/", "abc", false},
		{stations, "/abc", "/:id/", "abc", false}, // matched, then redirected
		{stations, "/abc/index.md", "/:id/", "abc", true},
		{stations, "/abc/listen/", "/:id/listen/", "abc", false},
		{stations, "/abc/listen/index.md", "/:id/listen/", "abc", true},
		{stations, "//abc//", "/:id/", "abc", false}, // empty segments at the ends do not count
		{stations, "/abc//listen/", "", "", false},   // nor in the middle
		{stations, "/abc/other/", "", "", false},
		{stations, "/abc/listen/more/", "", "", false},
		{stations, "/", "", "", false},
		{stations, "", "", "", false},
		{stations, "/a%2Fb/", "/:id/", "a%2Fb", false}, // still escaped
		{directory, "/", "/", "", false},
		{directory, "", "/", "", false},
		{directory, "/index.md", "/", "", true},
		{directory, "/rock/", "/:key/", "rock", false},
		{directory, "/rock/pop/", "", "", false},
	}
	for _, c := range cases {
		i, arg, md, ok := MatchTree(c.rest, c.shapes)
		shape := ""
		if ok {
			shape = c.shapes[i].Shape
		}
		if shape != c.shape || arg != c.arg || md != c.md {
			t.Errorf("matchTree(%q) = %q, %q, md %v; want %q, %q, md %v", c.rest, shape, arg, md, c.shape, c.arg, c.md)
		}
	}
}

// TestMatchTreeFile pins the file shapes: exactly their segments, no
// trailing slash, a non-empty parameter.
func TestMatchTreeFile(t *testing.T) {
	files := CompileShapes(map[string]int{"/:id/listen.m3u": 0, "/:id/listen.pls": 0})
	cases := []struct{ rest, shape, arg string }{
		{"/abc/listen.m3u", "/:id/listen.m3u", "abc"},
		{"/abc/listen.pls", "/:id/listen.pls", "abc"},
		{"/abc/listen.m3u/", "", ""},
		{"//listen.m3u", "", ""},
		{"/abc/listen.xspf", "", ""},
		{"/abc/", "", ""},
		{"", "", ""},
	}
	for _, c := range cases {
		i, arg, ok := MatchTreeFile(c.rest, files)
		shape := ""
		if ok {
			shape = files[i].Shape
		}
		if shape != c.shape || arg != c.arg {
			t.Errorf("matchTreeFile(%q) = %q, %q; want %q, %q", c.rest, shape, arg, c.shape, c.arg)
		}
	}
}

// TestCompileShapesRefusesTwoParameters: the tree hands a page one
// segment, so a shape with two parameters is a programming error, caught
// when the routes are registered.
func TestCompileShapesRefusesTwoParameters(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a shape with two parameters was accepted")
		}
	}()
	CompileShapes(map[string]int{"/:a/:b/": 0})
}

package stationdex_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The house's limits (ARCHITECTURE.md, "Rooms"): a package is a room with
// one purpose, and one that outgrows these has become two rooms.
const (
	maxRoomFiles   = 20  // non-test .go files in one package folder
	maxFileLines   = 600 // lines of one non-test .go file
	maxTypeMethods = 40  // methods of one type
)

// goPackage is one folder of Go source: its non-test files, parsed.
type goPackage struct {
	dir   string // slash-separated, relative to the repository
	files map[string]*ast.File
	lines map[string]int
}

// repoPackages parses every non-test Go file of the repository, both
// modules, by folder. Test data, npm's tree and the bench suite's work
// folder hold no package of ours.
func repoPackages(t *testing.T) []*goPackage {
	t.Helper()
	fset := token.NewFileSet()
	byDir := map[string]*goPackage{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "node_modules":
				return filepath.SkipDir
			}
			if filepath.ToSlash(path) == "bench/work" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		p := byDir[dir]
		if p == nil {
			p = &goPackage{dir: dir, files: map[string]*ast.File{}, lines: map[string]int{}}
			byDir[dir] = p
		}
		name := filepath.Base(path)
		p.files[name] = f
		p.lines[name] = strings.Count(string(src), "\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []*goPackage
	for _, p := range byDir {
		pkgs = append(pkgs, p)
	}
	slices.SortFunc(pkgs, func(a, b *goPackage) int { return strings.Compare(a.dir, b.dir) })
	if len(pkgs) < 20 {
		t.Fatalf("found %d packages; the walk is broken", len(pkgs))
	}
	return pkgs
}

// docComment is the package's doc comment, from whichever file has one.
func (p *goPackage) docComment() string {
	for _, f := range p.files {
		if f.Doc != nil {
			return f.Doc.Text()
		}
	}
	return ""
}

var fileMapEntry = regexp.MustCompile(`[A-Za-z0-9_]+\.go`)

// fileMap is the set of file names the "File map:" section of a doc
// comment names: every name.go in its entries ("  - a.go, b.go: role").
func fileMap(doc string) (map[string]bool, bool) {
	_, section, ok := strings.Cut(doc, "File map:")
	if !ok {
		return nil, false
	}
	named := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || !strings.HasPrefix(trimmed, "- ") && !strings.HasPrefix(line, " ") {
			if trimmed != "" && len(named) > 0 {
				break // the paragraph after the map
			}
			continue
		}
		for _, m := range fileMapEntry.FindAllString(trimmed, -1) {
			named[m] = true
		}
	}
	return named, true
}

// TestFileMaps: every package of more than one file says in its doc
// comment what each of its files holds, and names no file it does not
// have, so the map a newcomer reads is the folder they open.
func TestFileMaps(t *testing.T) {
	for _, p := range repoPackages(t) {
		if len(p.files) < 2 {
			if p.docComment() == "" && p.files["main.go"] == nil {
				t.Errorf("%s: no package doc comment", p.dir)
			}
			continue
		}
		named, ok := fileMap(p.docComment())
		if !ok {
			t.Errorf("%s: %d files and no \"File map:\" in the package doc comment", p.dir, len(p.files))
			continue
		}
		for name := range p.files {
			if !named[name] {
				t.Errorf("%s: the file map leaves out %s", p.dir, name)
			}
		}
		for name := range named {
			if p.files[name] == nil {
				if _, err := os.Stat(filepath.Join(p.dir, name)); err != nil {
					t.Errorf("%s: the file map names %s, which is not there", p.dir, name)
				}
			}
		}
	}
}

// TestRoomFigures holds the house to its limits: files per package,
// lines per file, methods per type, and no function that takes a mode
// flag named compat (an optional part of the file is a format.Sections,
// an adapter is a package).
func TestRoomFigures(t *testing.T) {
	for _, p := range repoPackages(t) {
		if n := len(p.files); n > maxRoomFiles {
			t.Errorf("%s: %d non-test files (at most %d: split the room)", p.dir, n, maxRoomFiles)
		}
		methods := map[string]int{}
		for name, f := range p.files {
			if n := p.lines[name]; n > maxFileLines && !generated(f) {
				t.Errorf("%s/%s: %d lines (at most %d)", p.dir, name, n, maxFileLines)
			}
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok {
					continue
				}
				if recv := receiverName(fn); recv != "" {
					methods[recv]++
				}
				for _, field := range fn.Type.Params.List {
					for _, id := range field.Names {
						if strings.EqualFold(id.Name, "compat") {
							t.Errorf("%s/%s: %s takes a compat flag", p.dir, name, fn.Name.Name)
						}
					}
				}
			}
		}
		for typ, n := range methods {
			if n > maxTypeMethods {
				t.Errorf("%s: %s has %d methods (at most %d)", p.dir, typ, n, maxTypeMethods)
			}
		}
	}
}

// TestNoImportRunsUp: a package never imports one of its ancestors. A
// parent wires its rooms (query is the engine's facade over query/core and
// the rooms beside it); a room that reached back up would tie the two
// into one. Test support named like net/http/httptest (nodetest) is the
// exception: it stands on top of what it starts.
func TestNoImportRunsUp(t *testing.T) {
	modules := map[string]string{"": "stationdex", "bench": "stationdex/bench"}
	for _, p := range repoPackages(t) {
		self := importPath(modules, p.dir)
		if strings.HasSuffix(self, "test") {
			continue
		}
		for name, f := range p.files {
			for _, spec := range f.Imports {
				path, _ := strconv.Unquote(spec.Path.Value)
				if path != "stationdex" && path != "stationdex/bench" && strings.HasPrefix(self, path+"/") {
					t.Errorf("%s/%s imports its ancestor %s", p.dir, name, path)
				}
			}
		}
	}
}

func importPath(modules map[string]string, dir string) string {
	if dir == "bench" || strings.HasPrefix(dir, "bench/") {
		return modules["bench"] + strings.TrimPrefix(dir, "bench")
	}
	if dir == "." {
		return modules[""]
	}
	return fmt.Sprintf("%s/%s", modules[""], dir)
}

func receiverName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) != 1 {
		return ""
	}
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if ix, ok := typ.(*ast.IndexExpr); ok {
		typ = ix.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// generated reports whether f carries Go's "Code generated ... DO NOT
// EDIT." line, which exempts it from the line limit.
func generated(f *ast.File) bool {
	for _, c := range f.Comments {
		if strings.HasPrefix(c.Text(), "Code generated ") {
			return true
		}
	}
	return false
}

// TestArchitectureNamesEveryPackage: the map at the door names every
// package of the service, so a package added or moved without a word in
// ARCHITECTURE.md fails here. The bench module is named as a whole.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	b, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, p := range repoPackages(t) {
		if p.dir == "." || p.dir == "bench" || strings.HasPrefix(p.dir, "bench/") {
			continue
		}
		if !regexp.MustCompile(`(^|[\s\x60(])` + regexp.QuoteMeta(p.dir) + `($|[\s\x60/),.:])`).MatchString(doc) {
			t.Errorf("ARCHITECTURE.md does not name the package %s", p.dir)
		}
	}
	if !strings.Contains(doc, "bench/") {
		t.Error("ARCHITECTURE.md does not name the benchmark suite (bench/)")
	}
}

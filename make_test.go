// Package stationdex_test holds the tests of the repository's Makefile:
// what each target builds, and what it leaves alone.
package stationdex_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeStationdex stands in for bin/stationdex: it logs its arguments, and
// `index -o FILE [FLAGS] INPUT` writes FILE unless INPUT (the last
// argument) is a URL (an offline machine).
const fakeStationdex = `#!/bin/sh
echo "$*" >> calls.log
if [ "$1" = index ]; then
  for input; do :; done
  case "$input" in http*) echo "lookup de1.api.radio-browser.info: no such host" >&2; exit 1;; esac
  echo "index of $input" > "$3"
fi
`

// makeCopy is a scratch checkout holding only the Makefile, its help
// script and a fake binary, where make runs with GO=true (no real build).
type makeCopy struct {
	t   *testing.T
	dir string
}

func newMakeCopy(t *testing.T) *makeCopy {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatal("make is needed to test the Makefile")
	}
	m := &makeCopy{t, t.TempDir()}
	for _, name := range []string{"Makefile", ".make-help.awk"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		m.write(name, string(data))
	}
	m.write("bin/stationdex", fakeStationdex)
	if err := os.Chmod(filepath.Join(m.dir, "bin/stationdex"), 0o755); err != nil {
		t.Fatal(err)
	}
	return m
}

func (m *makeCopy) write(name, content string) {
	m.t.Helper()
	path := filepath.Join(m.dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		m.t.Fatal(err)
	}
}

// age sets a file's times to d ago, so that make sees what is newer
// without the test sleeping.
func (m *makeCopy) age(name string, d time.Duration) {
	m.t.Helper()
	at := time.Now().Add(-d)
	if err := os.Chtimes(filepath.Join(m.dir, name), at, at); err != nil {
		m.t.Fatal(err)
	}
}

// make runs make with args and returns its output, the stationdex
// commands it ran, and whether it succeeded.
func (m *makeCopy) make(args ...string) (out string, calls []string, ok bool) {
	m.t.Helper()
	_ = os.Remove(filepath.Join(m.dir, "calls.log"))
	cmd := exec.Command("make", append([]string{"--no-print-directory", "GO=true", "SHARED_DATA=absent"}, args...)...)
	cmd.Dir = m.dir
	cmd.Env = append(os.Environ(), "MAKEFLAGS=", "CI=")
	b, err := cmd.CombinedOutput()
	log, _ := os.ReadFile(filepath.Join(m.dir, "calls.log"))
	for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		if line != "" {
			calls = append(calls, line)
		}
	}
	return string(b), calls, err == nil
}

func (m *makeCopy) expect(args []string, want ...string) string {
	m.t.Helper()
	out, calls, ok := m.make(args...)
	if !ok || strings.Join(calls, "; ") != strings.Join(want, "; ") {
		m.t.Errorf("make %s: ok %v, ran %q; want %q\n%s", strings.Join(args, " "), ok, calls, want, out)
	}
	return out
}

// TestMakeIndexIsAFileTarget: the index is built from its input when it
// is missing, when its input file is newer, or when another DATA is named;
// serve-real and check-real use whatever index is there and never rebuild
// it.
func TestMakeIndexIsAFileTarget(t *testing.T) {
	m := newMakeCopy(t)
	m.write("a.json", "a")
	m.write("b.json", "b")
	m.age("a.json", time.Hour)
	m.age("b.json", time.Hour)
	index := "index -o data/stations.db -compat "
	m.expect([]string{"index-real", "DATA=a.json"}, index+"a.json")
	m.expect([]string{"index-real", "DATA=a.json"})
	m.expect([]string{"index-real", "DATA=b.json"}, index+"b.json")
	// The user's index stays whatever DATA serve-real and check-real get.
	m.expect([]string{"serve-real", "DATA=a.json"}, "serve -index data/stations.db -addr 127.0.0.1:8080")
	m.expect([]string{"check-real"}, "check data/stations.db")
	m.expect([]string{"run", "ADDR=127.0.0.1:8081"}, "serve -addr 127.0.0.1:8081")
	m.write("b.json", "b, newer")
	m.expect([]string{"index-real", "DATA=b.json"}, index+"b.json")
	if err := os.RemoveAll(filepath.Join(m.dir, "data")); err != nil {
		t.Fatal(err)
	}
	m.expect([]string{"check-real", "DATA=a.json"}, index+"a.json", "check data/stations.db")
}

// TestMakeIndexCompat: index-real builds with -compat, so that serve-real
// answers the Radio Browser API under /json/; INDEX_FLAGS= builds the
// default index, and other flags rebuild an index built with others.
func TestMakeIndexCompat(t *testing.T) {
	m := newMakeCopy(t)
	m.write("a.json", "a")
	m.age("a.json", time.Hour)
	out := m.expect([]string{"index-real", "DATA=a.json"}, "index -o data/stations.db -compat a.json")
	if !strings.Contains(out, "indexing a.json into data/stations.db (-compat)") {
		t.Errorf("index-real does not say it builds with -compat:\n%s", out)
	}
	m.expect([]string{"index-real", "DATA=a.json"})
	m.expect([]string{"index-real", "DATA=a.json", "INDEX_FLAGS="}, "index -o data/stations.db a.json")
	m.expect([]string{"index-real", "DATA=a.json", "INDEX_FLAGS="})
	m.expect([]string{"index-real", "DATA=a.json"}, "index -o data/stations.db -compat a.json")
	m.expect([]string{"serve-real"}, "serve -index data/stations.db -addr 127.0.0.1:8080")
}

// TestMakeOfflineIndex: an index-real that cannot reach the upstream list
// says what it tried and how to name a file, and leaves no data/ behind.
func TestMakeOfflineIndex(t *testing.T) {
	m := newMakeCopy(t)
	out, _, ok := m.make("index-real")
	if ok {
		t.Fatal("index-real succeeded offline")
	}
	for _, want := range []string{"https://de1.api.radio-browser.info/json/stations", "no shared snapshot at absent", "DATA=FILE"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(m.dir, "data")); !os.IsNotExist(err) {
		t.Errorf("data/ left behind: %v", err)
	}
}

// TestMakeFirstBuildSaysSo: a build with no binary yet says that it takes
// a while; a rebuild says nothing more than the go command.
func TestMakeFirstBuildSaysSo(t *testing.T) {
	m := newMakeCopy(t)
	const note = "the first build on a machine takes about a minute"
	if out, _, _ := m.make("build", "BIN=bin/absent"); !strings.Contains(out, "building bin/absent ("+note+")") {
		t.Errorf("first build:\n%s", out)
	}
	if out, _, _ := m.make("build"); strings.Contains(out, "building bin/stationdex (") {
		t.Errorf("rebuild:\n%s", out)
	}
}

// TestMakeBuildQuietWhenUpToDate: make build says nothing when the go
// command's output is the binary already there (and leaves it, time and
// all), and says it built when the binary changed.
func TestMakeBuildQuietWhenUpToDate(t *testing.T) {
	m := newMakeCopy(t)
	// A go command that writes the binary $BINARY says after -o.
	m.write("fakego", "#!/bin/sh\nwhile [ \"$1\" != -o ]; do shift; done\nprintf '%s' \"$BINARY\" > \"$2\"\n")
	if err := os.Chmod(filepath.Join(m.dir, "fakego"), 0o755); err != nil {
		t.Fatal(err)
	}
	build := func(binary string) string {
		t.Helper()
		cmd := exec.Command("make", "--no-print-directory", "GO=./fakego", "build")
		cmd.Dir = m.dir
		cmd.Env = append(os.Environ(), "MAKEFLAGS=", "BINARY="+binary)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make build: %v\n%s", err, out)
		}
		return string(out)
	}
	if out := build("one"); out != "built bin/stationdex\n" {
		t.Errorf("a changed binary: make build printed %q, want it to say it built", out)
	}
	m.age("bin/stationdex", time.Hour)
	before, err := os.Stat(filepath.Join(m.dir, "bin/stationdex"))
	if err != nil {
		t.Fatal(err)
	}
	if out := build("one"); out != "" {
		t.Errorf("an up-to-date binary: make build printed %q, want nothing", out)
	}
	after, err := os.Stat(filepath.Join(m.dir, "bin/stationdex"))
	if err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("an up-to-date binary was replaced: %v", err)
	}
	if _, err := os.Stat(filepath.Join(m.dir, "bin/stationdex.new")); err == nil {
		t.Error("bin/stationdex.new left behind")
	}
}

// TestMakeHelpListsEveryTarget: every target a user can name has a
// "## target:" comment that make help prints, and every variable set with
// ?= is described.
func TestMakeHelpListsEveryTarget(t *testing.T) {
	m := newMakeCopy(t)
	out, _, ok := m.make("help")
	if !ok {
		t.Fatalf("make help failed:\n%s", out)
	}
	makefile, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	rules := regexp.MustCompile(`(?m)^([a-z][a-z-]*):`).FindAllStringSubmatch(string(makefile), -1)
	if len(rules) < 20 {
		t.Fatalf("found %d targets in the Makefile", len(rules))
	}
	for _, r := range rules {
		if !regexp.MustCompile(`(?m)^  ` + r[1] + ` +\S`).MatchString(out) {
			t.Errorf("make help does not describe %s", r[1])
		}
	}
	for _, v := range []string{"ADDR", "DATA", "INDEX", "INDEX_FLAGS", "FUZZTIME", "NPM_DIR", "SOAK_MINUTES", "RUNS", "BENCH_ARGS"} {
		if !regexp.MustCompile(`(?m)^  [A-Z_, ]*\b` + v + `\b[A-Z_, ]*:`).MatchString(out) {
			t.Errorf("make help does not describe %s", v)
		}
	}
}

// TestMakeTestFailsOnLeftovers: make test runs its steps with a private
// TMPDIR and fails when they leave anything in it, and passes when they
// leave nothing. The steps are replaced here by one that leaves a file or
// not, so that the wrapper itself is what is tested.
func TestMakeTestFailsOnLeftovers(t *testing.T) {
	m := newMakeCopy(t)
	makefile, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	steps := regexp.MustCompile(`(?m)^test-suite:.*$`)
	if !steps.Match(makefile) {
		t.Fatal("no test-suite rule in the Makefile")
	}
	private := t.TempDir()
	for _, tc := range []struct {
		recipe string
		ok     bool
	}{
		{"\t@touch \"$$TMPDIR/left-behind\"", false},
		{"\t@mktemp -d >/dev/null && echo ran", false},
		{"\t@tmp=$$(mktemp -d) && rm -r \"$$tmp\" && echo ran", true},
	} {
		m.write("Makefile", steps.ReplaceAllLiteralString(string(makefile), "test-suite:\n"+tc.recipe))
		cmd := exec.Command("make", "--no-print-directory", "test")
		cmd.Dir = m.dir
		cmd.Env = append(os.Environ(), "MAKEFLAGS=", "TMPDIR="+private)
		out, err := cmd.CombinedOutput()
		if (err == nil) != tc.ok {
			t.Errorf("steps %q: make test ok %v, want %v:\n%s", tc.recipe, err == nil, tc.ok, out)
		}
		if !tc.ok && !strings.Contains(string(out), "left files in their TMPDIR") {
			t.Errorf("steps %q: the failure does not say why:\n%s", tc.recipe, out)
		}
		if left, _ := os.ReadDir(private); len(left) > 0 {
			t.Errorf("make test left %d entries in the outer TMPDIR", len(left))
		}
	}
}

// TestRaceSkipNamesTests: every alternative of RACE_SKIP matches a test
// function of the tree, so that a renamed test cannot slip back into the
// race run (or a name out of it) unnoticed.
func TestRaceSkipNamesTests(t *testing.T) {
	makefile, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^RACE_SKIP := \^\((.*)\)\$\$$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("no RACE_SKIP := ^(...)$$ line in the Makefile")
	}
	var tests []string
	decl := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	err = filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		for _, f := range decl.FindAllSubmatch(src, -1) {
			tests = append(tests, string(f[1]))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	alternatives := topLevelAlternatives(string(m[1]))
	if len(alternatives) < 2 {
		t.Fatalf("RACE_SKIP has %d alternatives", len(alternatives))
	}
	for _, alt := range alternatives {
		re := regexp.MustCompile("^(" + alt + ")$")
		if !slices.ContainsFunc(tests, re.MatchString) {
			t.Errorf("RACE_SKIP names %s, which matches no test function", alt)
		}
	}
}

// topLevelAlternatives splits a regular expression at the bars outside
// its parentheses.
func topLevelAlternatives(expr string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range expr {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case '|':
			if depth == 0 {
				out = append(out, expr[start:i])
				start = i + 1
			}
		}
	}
	return append(out, expr[start:])
}

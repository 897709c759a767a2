// Package realdata locates the real Radio Browser snapshot that tests,
// benchmarks and the bench suite run on, and holds the house rule for
// anything a test needs from outside the repository (that snapshot, a
// browser, Prometheus, a linter): absent, the test skips, except under
// CI=true, where .ci/run installs everything and an absence is a failure.
//
// The snapshot is not part of the repository. By default it is the file
// beside a checkout, ../shared/data/radiobrowser-2025-02-27.ndjson.gz
// relative to the repository root; STATIONDEX_REAL_DATA names another.
package realdata

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FileName is the snapshot's file name in the shared data directory.
const FileName = "radiobrowser-2025-02-27.ndjson.gz"

// EnvPath names another snapshot file than the default.
const EnvPath = "STATIONDEX_REAL_DATA"

// Path is where the snapshot is expected: $STATIONDEX_REAL_DATA, else
// ../shared/data/FileName beside the repository root found above the
// working directory, else that path relative to the working directory.
func Path() string {
	if p := os.Getenv(EnvPath); p != "" {
		return p
	}
	rel := filepath.Join("..", "shared", "data", FileName)
	root, ok := repoRoot()
	if !ok {
		return rel
	}
	return filepath.Join(root, rel)
}

// Need returns the snapshot's path, or ends the test as Missing does when
// the file is not there.
func Need(tb testing.TB) string {
	tb.Helper()
	p := Path()
	if _, err := os.Stat(p); err != nil {
		Missing(tb, "the real snapshot: %v", err)
	}
	return p
}

// Missing ends a test that lacks something from outside the repository:
// a failure under CI=true, a skip elsewhere. what says what and why, as
// for fmt.Sprintf.
func Missing(tb testing.TB, what string, args ...any) {
	tb.Helper()
	if InCI() {
		tb.Fatalf("CI=true and missing "+what, args...)
	}
	tb.Skipf("missing "+what, args...)
}

// InCI reports whether the tests run under CI=true.
func InCI() bool { return os.Getenv("CI") == "true" }

// repoRoot walks up from the working directory to the directory whose
// go.mod declares module stationdex (the bench suite's own module sits
// below it).
func repoRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if isRoot(filepath.Join(dir, "go.mod")) {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func isRoot(goMod string) bool {
	f, err := os.Open(goMod)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "module ") {
			return strings.TrimSpace(strings.TrimPrefix(line, "module ")) == "stationdex"
		}
	}
	return false
}

// Package realdata finds the station data that the real-data tests,
// benchmarks and the bench suite run on, and holds the house rule for
// anything a test needs from outside the repository (a browser,
// Prometheus, a linter): absent, the test skips, except under CI=true,
// where .ci/run installs everything and an absence is a failure.
//
// The data is the full snapshot where there is one: the file beside a
// checkout, ../shared/data/radiobrowser-2025-02-27.ndjson.gz relative to
// the repository root, or the file STATIONDEX_REAL_DATA names. Without
// it, the data is the sample committed in testdata/: a few thousand
// made-up stations in the upstream's shape with every quirk of the full
// snapshot the tests rely on, written by WriteSample. So every real-data
// test runs on a bare clone; the full snapshot adds its size and its
// figures (NeedFull).
//
// File map:
//   - realdata.go: where the data is, which one is in use, Need, NeedFull, Missing
//   - sample.go: the sample's generator, its ordinary stations
//   - quirks.go: the sample's stations with the full snapshot's quirks
//   - words.go: the sample's vocabulary, countries, tags and codecs
package realdata

import (
	"bufio"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FileName is the full snapshot's file name in the shared data directory.
const FileName = "radiobrowser-2025-02-27.ndjson.gz"

// SampleName is the sample's path below the repository root.
const SampleName = "testdata/sample-stations.ndjson.gz"

// EnvPath names another full snapshot than the default. When it is set,
// the file it names is the data, and there is no falling back to the
// sample: a named file that is missing is missing.
const EnvPath = "STATIONDEX_REAL_DATA"

// FullStations is the least number of stations of the full snapshot
// (50,664 in the 2025-02-27 one).
const FullStations = 50000

// FullPath is where the full snapshot is expected: $STATIONDEX_REAL_DATA,
// else ../shared/data/FileName beside the repository root found above the
// working directory, else that path relative to the working directory.
func FullPath() string {
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

// SamplePath is the committed sample's path, below the repository root
// found above the working directory.
func SamplePath() string {
	root, ok := repoRoot()
	if !ok {
		return filepath.FromSlash(SampleName)
	}
	return filepath.Join(root, filepath.FromSlash(SampleName))
}

// Full reports whether the data in use is the full snapshot: true when
// STATIONDEX_REAL_DATA is set or the file beside the checkout exists,
// false when Path is the sample. Under go test -short it is false: a
// short run (make test's race run) takes every real-data test at the
// sample's size, and the plain run takes them at the full snapshot's.
func Full() bool {
	if shortRun() {
		return false
	}
	if os.Getenv(EnvPath) != "" {
		return true
	}
	_, err := os.Stat(FullPath())
	return err == nil
}

// shortRun reports whether the tests run with -short (a variable, so
// that this package's own tests can take either side).
var shortRun = func() bool { return flag.Parsed() && testing.Short() }

// Path is the data in use: the full snapshot (FullPath) when Full, else
// the sample (SamplePath).
func Path() string {
	if Full() {
		return FullPath()
	}
	return SamplePath()
}

// Describe says which data is in use, for logs and messages.
func Describe() string {
	if Full() {
		return "the full snapshot " + FullPath()
	}
	return "the sample " + SamplePath() + " (no full snapshot at " + FullPath() + ")"
}

// Stations is the least number of stations an index of the data in use
// holds: FullStations for the full snapshot; for the sample its records
// less the SampleUnnamed the indexer skips.
func Stations() int {
	if Full() {
		return FullStations
	}
	return SampleStations - SampleUnnamed
}

// Need returns the path of the data in use, or ends the test as Missing
// does when the file is not there (STATIONDEX_REAL_DATA naming a missing
// file, or a checkout without its testdata).
func Need(tb testing.TB) string {
	tb.Helper()
	p := Path()
	if _, err := os.Stat(p); err != nil {
		Missing(tb, "the real-data file: %v", err)
	}
	return p
}

// NeedFull returns the full snapshot's path for a check that holds only of
// it (a figure of its size, a station it has), and skips the test where
// the sample is in use, under CI=true too: the full snapshot adds checks
// to the ones every clone runs, and a clone without it is complete.
func NeedFull(tb testing.TB) string {
	tb.Helper()
	if !Full() {
		tb.Skipf("this check needs the full snapshot: no file at %s (set %s or put it in ../shared/data)", FullPath(), EnvPath)
	}
	return Need(tb)
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

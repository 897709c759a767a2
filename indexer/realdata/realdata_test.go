package realdata

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPathFindsSharedBesideRoot(t *testing.T) {
	t.Setenv(EnvPath, "")
	root, ok := repoRoot()
	if !ok {
		t.Fatal("no stationdex go.mod above the package directory")
	}
	if _, err := os.Stat(filepath.Join(root, "indexer", "realdata", "realdata.go")); err != nil {
		t.Fatalf("repoRoot %s is not this repository: %v", root, err)
	}
	want := filepath.Join(root, "..", "shared", "data", FileName)
	if got := Path(); got != want {
		t.Fatalf("Path() = %s, want %s", got, want)
	}
}

func TestPathFromEnvironment(t *testing.T) {
	t.Setenv(EnvPath, "/elsewhere/stations.ndjson.gz")
	if got := Path(); got != "/elsewhere/stations.ndjson.gz" {
		t.Fatalf("Path() = %s, want the environment's", got)
	}
}

func TestNeedFailsUnderCI(t *testing.T) {
	t.Setenv(EnvPath, filepath.Join(t.TempDir(), "absent.ndjson.gz"))
	t.Setenv("CI", "true")
	rec := &recorder{}
	func() {
		defer func() { _ = recover() }() // the recorder panics where testing would end the goroutine
		Need(rec)
	}()
	if !rec.failed || rec.skipped {
		t.Fatalf("under CI=true a missing snapshot must fail: failed=%v skipped=%v", rec.failed, rec.skipped)
	}
	t.Setenv("CI", "")
	rec = &recorder{}
	func() {
		defer func() { _ = recover() }()
		Need(rec)
	}()
	if rec.failed || !rec.skipped {
		t.Fatalf("outside CI a missing snapshot must skip: failed=%v skipped=%v", rec.failed, rec.skipped)
	}
}

// recorder is a testing.TB that records Fatalf and Skipf instead of ending
// the goroutine.
type recorder struct {
	testing.TB
	failed, skipped bool
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(string, ...any) {
	r.failed = true
	panic("fatal")
}
func (r *recorder) Skipf(string, ...any) {
	r.skipped = true
	panic("skip")
}

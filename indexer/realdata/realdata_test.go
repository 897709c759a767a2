package realdata

import (
	"bytes"
	"compress/gzip"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

var writeSample = flag.Bool("write-sample", false, "rewrite the committed sample, "+SampleName)

// TestMain runs this package's tests as a plain run, whatever -short
// says, so that they check where the data is found; TestShortRunTakesTheSample
// checks the short side.
func TestMain(m *testing.M) {
	shortRun = func() bool { return false }
	os.Exit(m.Run())
}

// TestShortRunTakesTheSample: under -short the data is the sample even
// where a full snapshot is named, and NeedFull skips.
func TestShortRunTakesTheSample(t *testing.T) {
	shortRun = func() bool { return true }
	defer func() { shortRun = func() bool { return false } }()
	t.Setenv(EnvPath, "/elsewhere/stations.ndjson.gz")
	if Full() || Path() != SamplePath() || Stations() != SampleStations-SampleUnnamed {
		t.Fatalf("-short: Full() = %v, Path() = %s; want the sample %s", Full(), Path(), SamplePath())
	}
	rec := &recorder{}
	func() {
		defer func() { _ = recover() }()
		NeedFull(rec)
	}()
	if rec.failed || !rec.skipped {
		t.Fatalf("-short: NeedFull must skip: failed=%v skipped=%v", rec.failed, rec.skipped)
	}
}

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
	if got := FullPath(); got != want {
		t.Fatalf("FullPath() = %s, want %s", got, want)
	}
	if got, sample := SamplePath(), filepath.Join(root, "testdata", "sample-stations.ndjson.gz"); got != sample {
		t.Fatalf("SamplePath() = %s, want %s", got, sample)
	}
	if _, err := os.Stat(want); (err == nil) != Full() {
		t.Fatalf("Full() = %v, but the file beside the checkout: %v", Full(), err)
	}
}

// TestPathFallsBackToSample: in a checkout with nothing beside it, the
// data is the sample, and Need returns it even under CI=true.
func TestPathFallsBackToSample(t *testing.T) {
	t.Setenv(EnvPath, "")
	t.Setenv("CI", "true")
	root := filepath.Join(t.TempDir(), "clone")
	if err := os.MkdirAll(filepath.Join(root, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module stationdex\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(SampleName)), []byte("sample"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(root, "testdata"))
	want := filepath.Join(root, "testdata", "sample-stations.ndjson.gz")
	if Full() || Path() != want || Stations() != SampleStations-SampleUnnamed {
		t.Fatalf("Full() = %v, Path() = %s, Stations() = %d; want the sample %s", Full(), Path(), Stations(), want)
	}
	if got := Need(t); got != want {
		t.Fatalf("Need = %s, want %s", got, want)
	}
	rec := &recorder{}
	func() {
		defer func() { _ = recover() }()
		NeedFull(rec)
	}()
	if rec.failed || !rec.skipped {
		t.Fatalf("NeedFull without the full snapshot must skip, under CI=true too: failed=%v skipped=%v", rec.failed, rec.skipped)
	}
}

func TestPathFromEnvironment(t *testing.T) {
	t.Setenv(EnvPath, "/elsewhere/stations.ndjson.gz")
	if got := Path(); got != "/elsewhere/stations.ndjson.gz" || !Full() || Stations() != FullStations {
		t.Fatalf("Path() = %s, Full() = %v; want the environment's, full", got, Full())
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

// TestSampleIsGenerated: the committed sample is what WriteSample writes
// (-write-sample rewrites it). The NDJSON inside is compared, so a Go
// release that compresses differently does not fail it; the gzip bytes
// are compared as well, to log when they drift.
func TestSampleIsGenerated(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSample(&buf); err != nil {
		t.Fatal(err)
	}
	path := SamplePath()
	if *writeSample {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	committed, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(committed) > 2<<20 {
		t.Errorf("the sample is %d bytes, more than 2 MiB", len(committed))
	}
	want, got := gunzip(t, buf.Bytes()), gunzip(t, committed)
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what WriteSample writes: regenerate it with go test ./indexer/realdata/ -run TestSampleIsGenerated -write-sample", SampleName)
	}
	if !bytes.Equal(committed, buf.Bytes()) {
		t.Logf("%s holds the same stations, compressed differently (another Go release?)", SampleName)
	}
	if n := bytes.Count(got, []byte("\n")); n != SampleStations {
		t.Errorf("%d stations, want %d", n, SampleStations)
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNeedFindsData: the data the real-data tests use is there, under
// CI=true too, wherever the checkout is; the log says which it is.
func TestNeedFindsData(t *testing.T) {
	p := Need(t)
	if st, err := os.Stat(p); err != nil || st.Size() == 0 {
		t.Fatalf("Need gave %s: %v", p, err)
	}
	t.Logf("data: %s", Describe())
}

// TestBareCloneRunsOnTheSample: a clone of this repository's HEAD (what
// is committed, not the working tree) into a folder with nothing beside
// it finds its data, the sample, and its real-data checks pass on it
// under CI=true, where a missing file fails: the sample is committed (not
// ignored, not left out), and realdata falls back to it. The whole suite
// on a bare clone is what .ci/run does on a fresh machine; this keeps the
// fall-back honest in every make test, in seconds.
func TestBareCloneRunsOnTheSample(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: clones the repository and runs go test in it")
	}
	root, ok := repoRoot()
	if !ok {
		t.Fatal("no stationdex go.mod above the package directory")
	}
	if _, err := exec.LookPath("git"); err != nil {
		Missing(t, "git: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skipf("not a git checkout (%v): nothing to clone", err)
	}
	clone := filepath.Join(t.TempDir(), "stationdex")
	if out, err := exec.Command("git", "clone", "--quiet", root, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(clone, filepath.FromSlash(SampleName))); err != nil {
		t.Fatalf("the clone has no sample (committed? ignored?): %v", err)
	}
	cmd := exec.Command("go", "test", "-count=1", "-trimpath", "-v", "-run", "^(TestSampleIsGenerated|TestNeedFindsData)$", "./indexer/realdata/")
	cmd.Dir = clone
	cmd.Env = append(os.Environ(), "CI=true", EnvPath+"=", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test in a bare clone: %v\n%s", err, out)
	}
	for _, want := range []string{"--- PASS: TestSampleIsGenerated", "--- PASS: TestNeedFindsData", "data: the sample " + filepath.Join(clone, filepath.FromSlash(SampleName))} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("go test in a bare clone does not say %q:\n%s", want, out)
		}
	}
}

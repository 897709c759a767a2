package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const fixture = "../../indexer/testdata/stations.ndjson"

// runIndexArgs runs `stationdex index` in process and returns its exit
// status and output.
func runIndexArgs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr strings.Builder
	code := runIndexTo(context.Background(), args, &stdout, &stderr, false)
	return code, stdout.String(), stderr.String()
}

func TestIndexUsageErrors(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.db")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{fixture}, "-o FILE is required"},
		{[]string{"-o", out}, "no INPUT given"},
		{[]string{"-o", out, "-memory", "3", fixture}, "-memory must be between 4 and"},
		{[]string{"-o", out, "-memory", "0", fixture}, "-memory must be between"},
		{[]string{"-o", out, "-memory", "-5", fixture}, "-memory must be between"},
		{[]string{"-o", out, "-memory", "99999999999999", fixture}, "-memory must be between"},
		{[]string{"-o", out, "-snapshot-at", "yesterday", fixture}, "not an RFC 3339 time"},
		{[]string{"-o", out, "-source", "", fixture}, "-source must not be empty"},
		{[]string{"-o", out, "-nosuchflag", fixture}, "unknown flag -nosuchflag"},
	} {
		code, _, stderr := runIndexArgs(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a usage error wrote the index")
	}
}

// TestIndexBuild builds the fixture with the smallest memory budget and an
// explicit -tmpdir, which must be left empty.
func TestIndexBuild(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	out := filepath.Join(dir, "stations.db")
	code, stdout, stderr := runIndexArgs(t, "-o", out, "-memory", "4", "-tmpdir", tmp, fixture)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"indexed ", "stations into " + out, "skipped ", "snapshot_at ",
		"\nphase ", "\nread ", "\nstations and ids ", "\npostings ", "\nfacet memo: count ", "\ntotal "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if st, err := os.Stat(out); err != nil || st.Size() == 0 {
		t.Fatalf("index not written: %v", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("-tmpdir holds %d entries after the build", len(left))
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("the output directory holds %d entries, want only the index", len(left))
	}
}

func TestIndexFailures(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.db")
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`[{"stationuuid": `), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", out, filepath.Join(dir, "missing.json")}, "no input file at " + filepath.Join(dir, "missing.json")},
		{[]string{"-o", out, bad}, "bad.json"},
		{[]string{"-o", out, "-tmpdir", filepath.Join(dir, "no", "such", "dir"), fixture}, "the folder " + filepath.Join(dir, "no", "such", "dir") + " (-tmpdir) does not exist"},
	} {
		code, _, stderr := runIndexArgs(t, tc.args...)
		if code != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 1 and %q", tc.args, code, stderr, tc.want)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 { // bad.json only
		t.Errorf("failed builds left %d entries", len(left)-1)
	}
}

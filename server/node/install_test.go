package node_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"stationdex/query"
	"stationdex/server/node"
)

// TestInstall: a file made beside the live one is checked, renamed over it
// and swapped in, as Reload does; a damaged one is removed and the old
// snapshot keeps serving.
func TestInstall(t *testing.T) {
	a, b := fixturePaths(t)
	dir := t.TempDir()
	live := filepath.Join(dir, "live.db")
	publish(t, a, live)
	ix, err := query.Open(live)
	if err != nil {
		t.Fatal(err)
	}
	holder := query.NewHolder(ix)
	defer holder.Close()
	r := node.NewReloader(live, holder, nil, nil)

	bad := filepath.Join(dir, ".incoming-bad")
	if err := os.WriteFile(bad, []byte("not an index"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.Install(bad); err == nil {
		t.Fatal("a damaged file was installed")
	}
	if _, err := os.Stat(bad); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused file is still there: %v", err)
	}
	if m, ok := r.Serving(); !ok || !m.SnapshotAt.Equal(snapshotA) {
		t.Fatalf("serving %v (%v) after a refused install, want %v", m.SnapshotAt, ok, snapshotA)
	}

	good := filepath.Join(dir, ".incoming-good")
	publish(t, b, good)
	if err := r.Install(good); err != nil {
		t.Fatal(err)
	}
	if m, ok := r.Serving(); !ok || !m.SnapshotAt.Equal(snapshotB) {
		t.Fatalf("serving %v after the install, want %v", m.SnapshotAt, snapshotB)
	}
	if _, err := os.Stat(good); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the installed file is still under its temporary name: %v", err)
	}
	if r.Path() != live {
		t.Errorf("Path %q, want %q", r.Path(), live)
	}
	reopened, err := query.Open(live)
	if err != nil {
		t.Fatal(err)
	}
	defer reopened.Close()
	if got := reopened.Meta().SnapshotAt; !got.Equal(snapshotB) {
		t.Errorf("the live path holds %v, want the installed %v", got, snapshotB)
	}
}

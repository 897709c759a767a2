package pagetree

import (
	"bytes"
	"os"
	"testing"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/realdata"
	"stationdex/internal/format"
)

// mapped verifies and maps the index at path, unmapped at the end of the
// test, with bbolt's own reading of the same file.
func mapped(tb testing.TB, path string) (*Tree, *bolt.DB) {
	tb.Helper()
	f, size := openSized(tb, path)
	defer f.Close()
	layout, err := Verify(f, size)
	if err != nil {
		tb.Fatal(err)
	}
	tree, err := Map(f.Fd(), size, layout)
	if err != nil {
		tb.Fatal(err)
	}
	db, err := bolt.Open(path, 0o444, &bolt.Options{ReadOnly: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Error(err)
		}
		if err := tree.Unmap(); err != nil {
			tb.Error(err)
		}
	})
	return tree, db
}

// openSized opens path and tells its size.
func openSized(tb testing.TB, path string) (*os.File, int64) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		tb.Fatal(err)
	}
	return f, st.Size()
}

// realPath indexes the real snapshot (skipped without it, but under
// CI=true).
func realPath(tb testing.TB) string {
	tb.Helper()
	f, err := os.Open(realdata.Need(tb))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	_, path := buildIndex(tb, f)
	return path
}

// sameTreeAsBolt checks that the tree reads every bucket of the file as
// bbolt does (sameBucketAsBolt) and returns the number of pairs compared.
func sameTreeAsBolt(t *testing.T, tree *Tree, db *bolt.DB) int {
	t.Helper()
	pairs := 0
	err := db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			root, ok := tree.Root(string(name))
			if !ok {
				t.Fatalf("bucket %s: not in the page tree", name)
			}
			c := tree.Cursor(root)
			pairs += sameBucketAsBolt(t, name, &c, b)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tree.Root("no such bucket"); ok {
		t.Error("a bucket the file does not have has a root")
	}
	return pairs
}

// sameBucketAsBolt: the same pairs in the same order, and for a sample of
// keys the same answer to Seek at the key, just after it and at a shorter
// prefix of it.
func sameBucketAsBolt(t *testing.T, name []byte, mine *Cursor, b *bolt.Bucket) int {
	t.Helper()
	theirs := b.Cursor()
	k, v := mine.Seek(nil)
	n := 0
	for bk, bv := theirs.First(); bk != nil; bk, bv = theirs.Next() {
		if !bytes.Equal(k, bk) || !bytes.Equal(v, bv) {
			t.Fatalf("bucket %s pair %d: tree has %q (%d bytes), bbolt %q (%d bytes)", name, n, k, len(v), bk, len(bv))
		}
		k, v = mine.Next()
		n++
	}
	if k != nil {
		t.Fatalf("bucket %s: tree has %q after bbolt's last pair", name, k)
	}
	step, i := max(n/50, 1), 0
	for key, _ := theirs.First(); key != nil; key, _ = theirs.Next() {
		if i%step == 0 {
			key := bytes.Clone(key)
			for _, p := range [][]byte{key, append(bytes.Clone(key), 0), key[:len(key)/2]} {
				want, wantV := b.Cursor().Seek(p)
				got, gotV := mine.Seek(p)
				if !bytes.Equal(got, want) || !bytes.Equal(gotV, wantV) {
					t.Fatalf("bucket %s: Seek(%q) = %q, bbolt %q", name, p, got, want)
				}
			}
		}
		i++
	}
	return n
}

// TestTreeReadsAsBoltSmall covers buckets stored inline in their parent
// (a handful of stations): the tree reads them from the bucket's value,
// not from a page.
func TestTreeReadsAsBoltSmall(t *testing.T) {
	_, path := buildIndex(t, generated(5))
	tree, db := mapped(t, path)
	inline := 0
	for _, r := range tree.roots {
		if r.pgid == 0 {
			inline++
		}
	}
	if inline == 0 {
		t.Fatal("no inline bucket in the small index: the case is not covered")
	}
	if n := sameTreeAsBolt(t, tree, db); n == 0 {
		t.Fatal("no pairs compared")
	}
}

// TestTreeReadsAsBoltBranches covers trees of branch pages.
func TestTreeReadsAsBoltBranches(t *testing.T) {
	_, path := buildIndex(t, generated(runsStations))
	tree, db := mapped(t, path)
	if n := sameTreeAsBolt(t, tree, db); n < runsStations {
		t.Fatalf("only %d pairs compared", n)
	}
}

// TestTreeReadsAsBoltReal covers trees of branch and overflow pages, on
// the real snapshot.
func TestTreeReadsAsBoltReal(t *testing.T) {
	tree, db := mapped(t, realPath(t))
	n := sameTreeAsBolt(t, tree, db)
	t.Logf("%d pairs compared", n)
	if n < 2*realdata.Stations() { // 100,000 on the full snapshot
		t.Fatalf("only %d pairs compared", n)
	}
}

// BenchmarkTreeSeek seeks a sample of the all-field tokens of the real
// snapshot: the lookup every word of a search costs.
func BenchmarkTreeSeek(b *testing.B) {
	tree, _ := mapped(b, realPath(b))
	root, ok := tree.Root(string(format.BucketAllTokens))
	if !ok {
		b.Fatal("no all_tokens bucket")
	}
	c := tree.Cursor(root)
	var keys [][]byte
	i := 0
	for k, _ := c.Seek(nil); k != nil; k, _ = c.Next() {
		if i%101 == 0 {
			keys = append(keys, bytes.Clone(k))
		}
		i++
	}
	b.ResetTimer()
	n := 0
	for b.Loop() {
		if k, _ := c.Seek(keys[n%len(keys)]); k == nil {
			b.Fatal("key not found")
		}
		n++
	}
}

// TestOffsetIsThePlaceInTheFile: a value read through the tree is found
// at its offset in the file's bytes; bytes from elsewhere have none.
func TestOffsetIsThePlaceInTheFile(t *testing.T) {
	data, path := buildIndex(t, generated(runsStations))
	tree, _ := mapped(t, path)
	seen := 0
	for _, name := range [][]byte{format.BucketStationJSON, format.BucketCountries, format.BucketMeta} {
		root, ok := tree.Root(string(name))
		if !ok {
			t.Fatalf("no bucket %s", name)
		}
		c := tree.Cursor(root)
		for k, v := c.Seek(nil); k != nil; k, v = c.Next() {
			off, ok := tree.Offset(v)
			if !ok || !bytes.Equal(data[off:off+uint64(len(v))], v) {
				t.Fatalf("bucket %s key %q: offset %d, %v", name, k, off, ok)
			}
			seen++
		}
	}
	if _, ok := tree.Offset(bytes.Clone(data[:64])); ok {
		t.Error("a copy on the heap has an offset in the file")
	}
	if seen < 10 {
		t.Fatalf("%d values checked", seen)
	}
}

package query

import (
	"bytes"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// sameTreeAsBolt checks that the page tree reads every bucket of ix as
// bbolt does: the same pairs in the same order, and for a sample of keys
// the same answer to Seek at the key, just after it and at a shorter
// prefix of it. It returns the number of pairs compared.
func sameTreeAsBolt(t *testing.T, ix *Index) int {
	t.Helper()
	pairs := 0
	err := ix.db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			root, ok := ix.tree.roots[string(name)]
			if !ok {
				t.Fatalf("bucket %s: not in the page tree", name)
			}
			mine := treeCursor{t: ix.tree, root: root}
			theirs := b.Cursor()
			k, v := mine.Seek(nil)
			i := 0
			for bk, bv := theirs.First(); bk != nil; bk, bv = theirs.Next() {
				if !bytes.Equal(k, bk) || !bytes.Equal(v, bv) {
					t.Fatalf("bucket %s pair %d: tree has %q (%d bytes), bbolt %q (%d bytes)", name, i, k, len(v), bk, len(bv))
				}
				k, v = mine.Next()
				i++
			}
			if k != nil {
				t.Fatalf("bucket %s: tree has %q after bbolt's last pair", name, k)
			}
			pairs += i
			seekSample(t, name, &mine, b.Cursor(), i)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return pairs
}

func seekSample(t *testing.T, name []byte, mine *treeCursor, theirs *bolt.Cursor, n int) {
	t.Helper()
	step := max(n/50, 1)
	i := 0
	for key, _ := theirs.First(); key != nil; key, _ = theirs.Next() {
		if i%step == 0 {
			key := bytes.Clone(key)
			probes := [][]byte{key, append(bytes.Clone(key), 0), key[:len(key)/2]}
			for _, p := range probes {
				want, wantV := theirs.Seek(p)
				got, gotV := mine.Seek(p)
				if !bytes.Equal(got, want) || !bytes.Equal(gotV, wantV) {
					t.Fatalf("bucket %s: Seek(%q) = %q, bbolt %q", name, p, got, want)
				}
			}
			theirs.Seek(key) // where the walk was
		}
		i++
	}
}

// TestPageTreeReadsAsBoltSmall covers buckets stored inline in their
// parent (a handful of stations): the page tree reads them from the
// bucket's value, not from a page.
func TestPageTreeReadsAsBoltSmall(t *testing.T) {
	ix := openIndex(t, buildIndex(t, ndjson(smallSet)))
	inline := 0
	for _, r := range ix.tree.roots {
		if r.pgid == 0 {
			inline++
		}
	}
	if inline == 0 {
		t.Fatal("no inline bucket in the small index: the case is not covered")
	}
	if n := sameTreeAsBolt(t, ix); n == 0 {
		t.Fatal("no pairs compared")
	}
}

// TestPageTreeReadsAsBoltReal covers trees of branch pages and overflow
// pages, on the real snapshot.
func TestPageTreeReadsAsBoltReal(t *testing.T) {
	ix, _ := realIndex(t)
	n := sameTreeAsBolt(t, ix)
	t.Logf("%d pairs compared", n)
	if n < 100000 {
		t.Fatalf("only %d pairs compared", n)
	}
}

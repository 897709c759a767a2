package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	"stationdex/query/internal/testindex"
)

// damaged copies the small index and changes it with fn in a write
// transaction: the way to make the damaged files Open and Check must catch.
// The stored checksums no longer match, so Open refuses such a file.
func damaged(t *testing.T, fn func(tx *bolt.Tx) error) string {
	t.Helper()
	small(t)
	path := copyFile(t, smallPath)
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
	return path
}

// resealed is damaged with the checksums stored again for the changed
// contents: a file as a faulty indexer would write it, consistent with its
// checksums, which only Check's decoding can fault (and which the query
// engine must survive).
func resealed(t *testing.T, fn func(tx *bolt.Tx) error) string {
	t.Helper()
	return damaged(t, func(tx *bolt.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return reseal(tx)
	})
}

// reseal stores the checksums of every bucket of tx, as the indexer does.
func reseal(tx *bolt.Tx) error { return format.Reseal(tx) }

func copyFile(t *testing.T, src string) string { t.Helper(); return testindex.CopyFile(t, src) }

func writeFile(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "file.idx")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func put(bucket, key, value string) func(tx *bolt.Tx) error {
	return func(tx *bolt.Tx) error { return tx.Bucket([]byte(bucket)).Put([]byte(key), []byte(value)) }
}

func truncated(t *testing.T, fraction float64) string {
	t.Helper()
	small(t)
	path := copyFile(t, smallPath)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, int64(float64(st.Size())*fraction)); err != nil {
		t.Fatal(err)
	}
	return path
}

func randomBytes(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func foreignBolt(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "foreign.db")
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("meta"))
		if err != nil {
			return err
		}
		return b.Put([]byte("format"), []byte("someone-else"))
	})
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name string
		path func(t *testing.T) string
		want error
	}{
		{"missing file", func(t *testing.T) string { return filepath.Join(t.TempDir(), "nope.idx") }, fs.ErrNotExist},
		{"directory", func(t *testing.T) string { return t.TempDir() }, format.ErrNotIndex},
		{"empty file", func(t *testing.T) string { return writeFile(t, nil) }, format.ErrNotIndex},
		{"random bytes", func(t *testing.T) string { return writeFile(t, randomBytes(1<<16)) }, format.ErrNotIndex},
		{"text file", func(t *testing.T) string {
			return writeFile(t, []byte(strings.Repeat("not an index\n", 1000)))
		}, format.ErrNotIndex},
		{"foreign bbolt file", foreignBolt, format.ErrNotIndex},
		{"truncated to a tenth", func(t *testing.T) string { return truncated(t, 0.1) }, nil},
		{"truncated to half", func(t *testing.T) string { return truncated(t, 0.5) }, nil},
		{"wrong version", func(t *testing.T) string { return damaged(t, put("meta", "version", strconv.Itoa(format.Version+1))) }, format.ErrVersion},
		{"garbled version", func(t *testing.T) string { return damaged(t, put("meta", "version", "x")) }, format.ErrCorrupt},
		{"bad meta document", func(t *testing.T) string { return damaged(t, put("meta", "meta", "{")) }, format.ErrCorrupt},
		{"missing bucket", func(t *testing.T) string {
			return damaged(t, func(tx *bolt.Tx) error { return tx.DeleteBucket(format.BucketGenres) })
		}, format.ErrCorrupt},
		{"stations fewer than meta says", func(t *testing.T) string {
			return damaged(t, dropLastBlock)
		}, format.ErrCorrupt},
		{"stations fewer than meta says, checksums resealed", func(t *testing.T) string {
			return resealed(t, dropLastBlock)
		}, format.ErrCorrupt},
		{"no checksums", func(t *testing.T) string {
			return damaged(t, func(tx *bolt.Tx) error { return tx.Bucket(format.BucketMeta).Delete(format.KeyChecksums) })
		}, format.ErrCorrupt},
		{"garbled checksums", func(t *testing.T) string { return damaged(t, put("meta", "checksums", "[{")) }, format.ErrCorrupt},
		{"bucket without a checksum", func(t *testing.T) string {
			return damaged(t, func(tx *bolt.Tx) error {
				_, err := tx.CreateBucket([]byte("stray"))
				return err
			})
		}, format.ErrCorrupt},
		{"nested bucket", func(t *testing.T) string {
			return damaged(t, func(tx *bolt.Tx) error {
				_, err := tx.Bucket(format.BucketGenres).CreateBucket([]byte("nested"))
				return err
			})
		}, format.ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path(t)
			ix, err := Open(path)
			if err == nil {
				ix.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), "open index "+path) {
				t.Errorf("error %q does not name the file", err)
			}
			if tt.want == nil { // truncation: either verdict is right, silence is not
				if !errors.Is(err, format.ErrCorrupt) && !errors.Is(err, format.ErrNotIndex) {
					t.Errorf("err %v, want ErrCorrupt or ErrNotIndex", err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("err %v, want %v", err, tt.want)
			}
		})
	}
}

func TestOpenVersionErrorNamesBothVersions(t *testing.T) {
	// 6: the format before this one, the likeliest file of another version.
	_, err := Open(damaged(t, put("meta", "version", "6")))
	var ve *format.VersionError
	if !errors.As(err, &ve) || ve.File != 6 || ve.Supported != format.Version {
		t.Fatalf("err %v, want a VersionError 6 vs %d", err, format.Version)
	}
	want := fmt.Sprintf("version %d", format.Version)
	if msg := err.Error(); !strings.Contains(msg, "version 6") || !strings.Contains(msg, want) {
		t.Errorf("message %q does not name both versions", msg)
	}
}

func TestOpenReadsMeta(t *testing.T) {
	ix, _ := small(t)
	m := ix.Meta()
	if m.Stations != len(smallSet) || !m.SnapshotAt.Equal(testSnapshot) || m.SchemaVersion != format.SchemaVersion {
		t.Errorf("meta %+v", m)
	}
}

func dropLastBlock(tx *bolt.Tx) error {
	c := tx.Bucket(format.BucketStations).Cursor()
	c.Last()
	return c.Delete()
}

// TestOpenRefusesAFlippedValueInEveryBucket: a single changed byte in any
// value of any bucket, at its first, middle and last key, is refused at
// Open, naming the bucket. This is what lets a server start without
// decoding the whole file.
func TestOpenRefusesAFlippedValueInEveryBucket(t *testing.T) {
	small(t)
	tested := 0
	for _, bucket := range format.AllBuckets {
		keys := bucketKeysOf(t, bucket)
		if len(keys) == 0 {
			continue // the small index leaves a few buckets empty
		}
		tested++
		for _, at := range []string{"first", "middle", "last"} {
			k := keys[map[string]int{"first": 0, "middle": len(keys) / 2, "last": len(keys) - 1}[at]]
			t.Run(string(bucket)+"/"+at, func(t *testing.T) {
				path := damaged(t, func(tx *bolt.Tx) error {
					b := tx.Bucket(bucket)
					v := bytes.Clone(b.Get(k))
					if len(v) == 0 {
						v = []byte{0}
					} else {
						v[len(v)/2] ^= 0x01
					}
					return b.Put(k, v)
				})
				ix, err := Open(path)
				if err == nil {
					ix.Close()
					t.Fatal("Open succeeded")
				}
				if !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), "bucket "+string(bucket)) {
					t.Errorf("err %v, want ErrCorrupt naming bucket %s", err, bucket)
				}
			})
		}
	}
	if tested < len(format.AllBuckets)/2 {
		t.Errorf("only %d buckets of %d have keys to damage", tested, len(format.AllBuckets))
	}
}

// bucketKeysOf lists the keys of bucket in the small index whose values a
// flipped bit must make Open refuse as damage. In the meta bucket that is
// the meta document: a flipped marker or version is a foreign or other
// version file, and a flipped checksum document is damage to it, not to
// the meta bucket.
func bucketKeysOf(t *testing.T, bucket []byte) [][]byte {
	if bytes.Equal(bucket, format.BucketMeta) {
		return [][]byte{format.KeyMeta}
	}
	ix, _ := small(t)
	var keys [][]byte
	err := ix.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucket).ForEach(func(k, _ []byte) error {
			keys = append(keys, bytes.Clone(k))
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestOpenRefusesFlippedBytesOfTheFile flips one byte at a time, at
// offsets spread over the whole file, and opens each copy: either Open
// refuses it, or the byte was one no reader uses (page padding, the
// freelist, the unused meta page) and every answer is the sound file's.
// OpenServing followed by VerifyCopied refuses exactly what Open does (at
// a third of the offsets, spread over the file as the others are).
func TestOpenRefusesFlippedBytesOfTheFile(t *testing.T) {
	small(t)
	sound, err := os.ReadFile(smallPath)
	if err != nil {
		t.Fatal(err)
	}
	want := answers(t, smallPath)
	refused, served := 0, 0
	path := filepath.Join(t.TempDir(), "flipped.idx")
	for off := 7; off < len(sound); off += 101 {
		d := bytes.Clone(sound)
		d[off] ^= 0x20
		if err := os.WriteFile(path, d, 0o644); err != nil {
			t.Fatal(err)
		}
		ix, err := Open(path)
		if off%3 == 1 && refusedServing(path) != (err != nil) { // a third of the offsets: the test's time
			t.Fatalf("byte %d flipped: Open says %v, OpenServing and VerifyCopied disagree", off, err)
		}
		if err != nil {
			refused++
			continue
		}
		ix.Close()
		served++
		if got := answers(t, path); got != want {
			t.Fatalf("byte %d flipped: Open accepted the file and it answers differently", off)
		}
	}
	t.Logf("%d flipped files refused, %d served unchanged", refused, served)
	if refused == 0 {
		t.Error("no flipped file refused")
	}
}

// refusedServing reports whether OpenServing or, after it, VerifyCopied
// refuses the file at path: together they must refuse what Open refuses.
func refusedServing(path string) bool {
	ix, err := OpenServing(path)
	if err != nil {
		return true
	}
	defer ix.Close()
	return ix.VerifyCopied() != nil
}

// answers opens path and renders the answers to a few reads as text.
func answers(t *testing.T, path string) string {
	t.Helper()
	ix, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var out strings.Builder
	for _, q := range []Query{{Limit: 50}, {Q: "radio", Limit: 5}, {Q: "j", Filter: filters("de", "", ""), Limit: 5}, {Filter: filters("", "en", "pop"), Limit: 5}} {
		res, err := search(ix, q)
		res.Timing = Timing{}
		doc, _ := json.Marshal(res) // values only: no pointers printed
		fmt.Fprintf(&out, "%s %v\n", doc, err)
		_, stored, err := searchJSON(ix, q, nil)
		fmt.Fprintf(&out, "%q %v\n", stored, err)
	}
	for _, facet := range []Dim{DimCountry, DimLanguage, DimGenre, DimLocation} {
		a, b, err := ix.Listings(facet, ByStations, 0, 10)
		doc, _ := json.Marshal(a)
		fmt.Fprintf(&out, "%s %v %v\n", doc, b, err)
	}
	return out.String()
}

// TestOpenServingLeavesTheCopiedBucketsToVerifyCopied: a flipped bit in a
// station's stored JSON passes OpenServing, whose index answers, and is
// refused by VerifyCopied, naming the bucket, on every call; an index Open
// verified whole has nothing left to verify; and an index closed before
// VerifyCopied says so instead of reading a closed file.
func TestOpenServingLeavesTheCopiedBucketsToVerifyCopied(t *testing.T) {
	path := damaged(t, func(tx *bolt.Tx) error {
		b := tx.Bucket(format.BucketStationJSON)
		k, v := b.Cursor().First()
		v = bytes.Clone(v)
		v[len(v)/2] ^= 0x01
		return b.Put(bytes.Clone(k), v)
	})
	ix, err := OpenServing(path)
	if err != nil {
		t.Fatalf("OpenServing: %v", err)
	}
	if _, err := search(ix, Query{Q: "radio", Limit: 5}); err != nil {
		t.Errorf("search before VerifyCopied: %v", err)
	}
	for range 2 {
		if err := ix.VerifyCopied(); !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), "bucket "+string(format.BucketStationJSON)) {
			t.Errorf("VerifyCopied: %v, want ErrCorrupt naming bucket %s", err, format.BucketStationJSON)
		}
	}
	ix.Close()

	whole, err := Open(smallPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := whole.VerifyCopied(); err != nil {
		t.Errorf("VerifyCopied after Open: %v", err)
	}
	whole.Close()

	early, err := OpenServing(smallPath)
	if err != nil {
		t.Fatal(err)
	}
	early.Close()
	if err := early.VerifyCopied(); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("VerifyCopied after Close: %v, want an error saying the index was closed", err)
	}
}

package pagetree

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
)

// TestVerifyDeferringLeavesTheCopiedBucketsForVerifySums damages one value
// of a copied bucket (the station JSON) and one of a bucket the engine
// decodes (the station records): VerifyDeferring must pass the first and
// refuse the second, and VerifySums must then refuse the first, naming the
// bucket, as Verify does at once. A sound file passes both.
func TestVerifyDeferringLeavesTheCopiedBucketsForVerifySums(t *testing.T) {
	sound, path := buildIndex(t, generated(runsStations))
	later := format.CopiedBuckets
	if err := verifyWith(t, path, func(f *os.File, size int64) error {
		if _, err := VerifyDeferring(f, size, later); err != nil {
			return err
		}
		return VerifySums(f, size, later)
	}); err != nil {
		t.Fatalf("sound file: %v", err)
	}

	copied := flipFirstValue(t, sound, path, format.BucketStationJSON)
	if err := verifyWith(t, copied, func(f *os.File, size int64) error {
		_, err := VerifyDeferring(f, size, later)
		return err
	}); err != nil {
		t.Errorf("station JSON damaged: VerifyDeferring: %v, want it left for VerifySums", err)
	}
	for name, verify := range map[string]func(*os.File, int64) error{
		"VerifySums": func(f *os.File, size int64) error { return VerifySums(f, size, later) },
		"Verify":     func(f *os.File, size int64) error { _, err := Verify(f, size); return err },
	} {
		err := verifyWith(t, copied, verify)
		requireDamageIn(t, "station JSON damaged: "+name, err, format.BucketStationJSON)
	}

	decoded := flipFirstValue(t, sound, path, format.BucketStations)
	err := verifyWith(t, decoded, func(f *os.File, size int64) error {
		_, err := VerifyDeferring(f, size, later)
		return err
	})
	requireDamageIn(t, "station record damaged: VerifyDeferring", err, format.BucketStations)
}

// verifyWith runs verify on the file at path.
func verifyWith(t *testing.T, path string, verify func(*os.File, int64) error) error {
	t.Helper()
	f, size := openSized(t, path)
	defer f.Close()
	return verify(f, size)
}

// flipFirstValue writes a copy of the index file sound (at path) with one
// bit changed in the middle of bucket's first value, and returns its path.
func flipFirstValue(t *testing.T, sound []byte, path string, bucket []byte) string {
	t.Helper()
	db, err := bolt.Open(path, 0o444, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var value []byte
	err = db.View(func(tx *bolt.Tx) error {
		_, v := tx.Bucket(bucket).Cursor().First()
		value = bytes.Clone(v)
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	at := bytes.Index(sound, value)
	if err != nil || len(value) < 64 || at < 0 || bytes.LastIndex(sound, value) != at {
		t.Fatalf("bucket %s: first value (%d bytes) not in the file exactly once: %v", bucket, len(value), err)
	}
	d := bytes.Clone(sound)
	d[at+len(value)/2] ^= 0x10
	flipped := filepath.Join(t.TempDir(), "flipped.idx")
	if err := os.WriteFile(flipped, d, 0o644); err != nil {
		t.Fatal(err)
	}
	return flipped
}

func requireDamageIn(t *testing.T, what string, err error, bucket []byte) {
	t.Helper()
	if !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), "bucket "+string(bucket)) {
		t.Errorf("%s: err %v, want ErrCorrupt naming bucket %s", what, err, bucket)
	}
}

// TestFileAndMemoryWalksAgree: Verify, which reads the file through the
// walker's window, and Walk over the same bytes in memory find the same
// layout: the buckets, their key counts, and every large value at the
// same key and place, in the value's exact bytes. VerifyDeferring finds
// the same too, though it reads none of the copied buckets' values.
func TestFileAndMemoryWalksAgree(t *testing.T) {
	data, path := buildIndex(t, generated(runsStations))
	inMemory, err := Walk(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, verify := range map[string]func(*os.File, int64) (Layout, error){
		"Verify": Verify,
		"VerifyDeferring": func(f *os.File, size int64) (Layout, error) {
			return VerifyDeferring(f, size, format.CopiedBuckets)
		},
	} {
		var fromFile Layout
		if err := verifyWith(t, path, func(f *os.File, size int64) (err error) {
			fromFile, err = verify(f, size)
			return err
		}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(fromFile.buckets) != len(inMemory.buckets) || !maps.Equal(fromFile.keys, inMemory.keys) {
			t.Fatalf("%s: %d buckets, keys %v; in memory %d, %v", name, len(fromFile.buckets), fromFile.keys, len(inMemory.buckets), inMemory.keys)
		}
		for bucket, spans := range inMemory.large {
			got := fromFile.large[bucket]
			if len(got) != len(spans) {
				t.Fatalf("%s: bucket %s: %d large values, %d in memory", name, bucket, len(got), len(spans))
			}
			for i, sp := range spans {
				g := got[i]
				if !bytes.Equal(g.Key, sp.Key) || g.Off != sp.Off || g.Len != sp.Len || sp.Len < fileSummed {
					t.Fatalf("%s: bucket %s: value %d at %d+%d (key %x), in memory at %d+%d (key %x)", name, bucket, i, g.Off, g.Len, g.Key, sp.Off, sp.Len, sp.Key)
				}
			}
		}
		if n := len(inMemory.large[string(format.BucketStationJSON)]); n < 2 || n != inMemory.keys[string(format.BucketStationJSON)] {
			t.Fatalf("%d large station JSON blocks of %d: want them all, and more than one", n, inMemory.keys[string(format.BucketStationJSON)])
		}
	}
	// Each noted place holds the value bbolt gives for the key.
	db, err := bolt.Open(path, 0o444, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.View(func(tx *bolt.Tx) error {
		for bucket, spans := range inMemory.large {
			for _, sp := range spans {
				if v := tx.Bucket([]byte(bucket)).Get(sp.Key); !bytes.Equal(v, data[sp.Off:sp.Off+uint64(sp.Len)]) {
					t.Fatalf("bucket %s, key %x: the noted place does not hold bbolt's value", bucket, sp.Key)
				}
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

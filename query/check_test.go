package query

import (
	"bytes"
	"errors"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/format"
)

func TestCheckSoundIndex(t *testing.T) {
	small(t)
	rep, err := Check(smallPath)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Records != len(smallSet) || rep.Version != format.Version || rep.Bitmaps == 0 || len(rep.Buckets) != len(format.AllBuckets) {
		t.Errorf("report %+v", rep)
	}
}

func serialized(t *testing.T, values ...uint32) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := roaring.BitmapOf(values...).WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestCheckFindsDamage(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T) func(tx *bolt.Tx) error
	}{
		{"garbage bitmap", func(t *testing.T) func(tx *bolt.Tx) error { return put("genres", "pop", "garbage!") }},
		{"bitmap with trailing bytes", func(t *testing.T) func(tx *bolt.Tx) error {
			return put("genres", "pop", serialized(t, 1)+"xx")
		}},
		{"record number past the end", func(t *testing.T) func(tx *bolt.Tx) error {
			return put("countries", "DE", serialized(t, 1, 1<<20))
		}},
		{"empty posting list", func(t *testing.T) func(tx *bolt.Tx) error { return put("countries", "DE", serialized(t)) }},
		{"undecodable record", func(t *testing.T) func(tx *bolt.Tx) error {
			return put("stations", string(format.RecordKey(3)), "short")
		}},
		{"id missing", func(t *testing.T) func(tx *bolt.Tx) error {
			return func(tx *bolt.Tx) error {
				id := station{n: 5}.uuid()
				return tx.Bucket(format.BucketIDs).Delete(id[:])
			}
		}},
		{"records out of name order", func(t *testing.T) func(tx *bolt.Tx) error {
			return func(tx *bolt.Tx) error {
				b := tx.Bucket(format.BucketStations)
				first := bytes.Clone(b.Get(format.RecordKey(0)))
				second := bytes.Clone(b.Get(format.RecordKey(1)))
				if err := b.Put(format.RecordKey(0), second); err != nil {
					return err
				}
				return b.Put(format.RecordKey(1), first)
			}
		}},
		{"meta counts wrong", func(t *testing.T) func(tx *bolt.Tx) error {
			return func(tx *bolt.Tx) error {
				return tx.Bucket(format.BucketGenres).Put([]byte("extra"), []byte(serialized(t, 1)))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := damaged(t, tt.damage(t))
			_, err := Check(path)
			if !errors.Is(err, format.ErrCorrupt) {
				t.Errorf("Check: %v, want ErrCorrupt", err)
			}
		})
	}
}

// TestSearchOnDamagedBitmapFails: Open checks only what is constant-time,
// so a damaged posting list is met by Search, which must say so rather
// than panic.
func TestSearchOnDamagedBitmapFails(t *testing.T) {
	for _, value := range []string{"garbage!", "", "\x3b\x30\x00\x00\x01\x00\x00\x00\xff\xff"} {
		ix := openIndex(t, damaged(t, put("genres", "pop", value)))
		if _, err := ix.Search(Query{Genre: "pop", Limit: 10}); !errors.Is(err, format.ErrCorrupt) {
			t.Errorf("value %q: err %v, want ErrCorrupt", value, err)
		}
	}
}

func TestCheckRealSnapshot(t *testing.T) {
	realIndex(t)
	rep, err := Check(real.ix.Path())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Records != len(real.recs) {
		t.Errorf("%d records checked, %d read", rep.Records, len(real.recs))
	}
	t.Logf("%+v", rep)
}

func TestCheckFindsDamagedFile(t *testing.T) {
	small(t)
	rep, err := Check(smallPath)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files == 0 {
		t.Skip("the indexer stores no files")
	}
	path := damaged(t, func(tx *bolt.Tx) error {
		b := tx.Bucket(format.BucketFiles)
		v := bytes.Clone(b.Get([]byte(format.FileStationsNDJSON)))
		v[len(v)/2] ^= 0xff
		return b.Put([]byte(format.FileStationsNDJSON), v)
	})
	if _, err := Check(path); !errors.Is(err, format.ErrCorrupt) {
		t.Errorf("Check: %v, want ErrCorrupt", err)
	}
}

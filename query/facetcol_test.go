package query

import (
	"errors"
	"fmt"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/format"
)

// TestFacetColumnDamaged rewrites a facet posting list of a sound index
// (a record beyond the stations, or bytes that are no bitmap) and checks
// that a faceted search reports format.ErrCorrupt instead of crashing or
// counting out of range.
func TestFacetColumnDamaged(t *testing.T) {
	var set []station
	for i := range 200 {
		set = append(set, station{n: i + 1, name: fmt.Sprintf("Station %d", i), cc: "DE", country: "Germany",
			language: "german", tags: "pop,rock"})
	}
	sound := buildIndex(t, ndjson(set))
	beyond, err := roaring.BitmapOf(1, 5, 1_000_000).ToBytes()
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		bucket []byte
		value  []byte
	}{
		"genre record beyond the stations":    {format.BucketGenres, beyond},
		"language record beyond the stations": {format.BucketLangCodes, beyond},
		"country not a bitmap":                {format.BucketCountries, []byte{0x3b, 0x30, 0, 0, 9}},
		"genre truncated":                     {format.BucketGenres, beyond[:len(beyond)-3]},
	} {
		t.Run(name, func(t *testing.T) {
			path := copyFile(t, sound)
			db, err := bolt.Open(path, 0o644, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = db.Update(func(tx *bolt.Tx) error {
				b := tx.Bucket(c.bucket)
				k, _ := b.Cursor().First()
				if err := b.Put(append([]byte(nil), k...), c.value); err != nil {
					return err
				}
				// Checksums that agree with the damage, as a faulty
				// build would write them: Open passes, the column
				// build must fault it.
				return reseal(tx)
			})
			if cerr := db.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatal(err)
			}
			ix := openIndex(t, path)
			_, err = ix.Search(Query{Q: "station", Facets: FacetSet{Country: true, Language: true, Genre: true}, Limit: 5})
			if !errors.Is(err, format.ErrCorrupt) {
				t.Fatalf("faceted search of a damaged facet: %v, want ErrCorrupt", err)
			}
		})
	}
}

// TestFacetCountPathsAgree counts the same match sets both ways (by
// visiting records in the columns and by probing posting lists) on the
// real snapshot: each path is otherwise chosen only for its range of sizes.
func TestFacetCountPathsAgree(t *testing.T) {
	ix, _ := realIndex(t)
	for _, q := range []Query{{Q: "radio"}, {Q: "jazz"}, {Country: "DE"}, {Q: "a"}, {Q: "rock", Country: "us"}, {Genre: "pop"}} {
		q.Limit = 1
		w := getWorkspace()
		err := ix.view(func(tx *bolt.Tx) error {
			s := &search{ix: ix, tx: tx, w: w, stations: ix.meta.Stations}
			if err := s.rank(q, s.stations); err != nil {
				return err
			}
			m := s.matches()
			if m.card() > columnMax {
				return nil
			}
			for d := range facetDims {
				col, err := ix.column(d)
				if err != nil {
					return err
				}
				for _, k := range []int{1, 10, 50} {
					task := &facetTask{d: d, col: col, m: m}
					s.countByRecords(m, []*facetTask{task}, k)
					byRecords := append([]topCount(nil), task.top...)
					byPostings, err := s.countByPostings(col, m, nil, k)
					if err != nil {
						return err
					}
					if fmt.Sprint(byRecords) != fmt.Sprint(byPostings) {
						t.Errorf("%s facet %d k=%d: by records %v, by postings %v", describe(q), d, k, byRecords, byPostings)
					}
				}
			}
			return nil
		})
		w.release()
		if err != nil {
			t.Fatal(err)
		}
	}
}

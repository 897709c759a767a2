package facets

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/internal/fold"
	"stationdex/internal/format"
	"stationdex/query/core"
	"stationdex/query/rawroaring"
)

// TestFacetColumnDamaged rewrites a facet posting list of a sound index
// (a record beyond the stations, or bytes that are no bitmap) and checks
// that a faceted search reports format.ErrCorrupt instead of crashing or
// counting out of range.
func TestFacetColumnDamaged(t *testing.T) {
	var set []station
	for i := range 200 {
		set = append(set, station{N: i + 1, Name: fmt.Sprintf("Station %d", i), CC: "DE", Country: "Germany",
			Language: "german", Tags: "pop,rock"})
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
			_, err = search(ix, core.Query{Q: "station", Facets: threeFacets, Limit: 5})
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
	// smallFold folds the counts of every set of more than a thousand
	// records, as columnFold folds those of a set of 5M stations' words.
	const smallFold = 1000
	var tails tailCounts
	sparse, folded := 0, 0
	// The last three are small sets (a few hundred stations or fewer), which
	// the columns count sparsely (countSparse).
	for _, q := range []core.Query{{Q: "radio"}, {Q: "jazz"}, {Filter: filters("DE", "", "")}, {Q: "a"}, {Q: "rock", Filter: filters("us", "", "")},
		{Filter: filters("", "", "pop")}, {Q: "media"}, {Q: "jazz", Filter: filters("FI", "", "")}, {Q: "excl"}} {
		q.Limit = 1
		w := core.GetWorkspace()
		err := ix.View(func(tx *bolt.Tx) error {
			s := &core.Search{Index: ix, Tx: tx, Work: w, Stations: ix.Meta().Stations}
			w.Words = fold.AppendTokens(w.Words[:0], q.Q)
			if err := s.Rank(q, s.Stations); err != nil {
				return err
			}
			m := s.Matches()
			if m.Card() > smallFold {
				folded++
			}
			for _, d := range []core.Dim{core.DimCountry, core.DimLanguage, core.DimGenre, core.DimLocation, core.DimCodec} {
				col, err := column(ix, d)
				if err != nil {
					return err
				}
				if col.head.sparseFor(m.Card()) || col.tail.sparseFor(m.Card()) {
					sparse++
				}
				n, err := countBothWays(t, s, q.String(), d, col, m, []int{columnFold, smallFold})
				if err != nil {
					return err
				}
				tails.skipped += n.skipped
				tails.byPostings += n.byPostings
				tails.wholeByPostings += n.wholeByPostings
			}
			return nil
		})
		w.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if tails.skipped == 0 {
		t.Error("no count left a genre tail out: the bound that skips it went untested")
	}
	if tails.byPostings == 0 || tails.wholeByPostings == 0 {
		t.Errorf("%d tails and %d facets counted by posting lists: listTasks went untested", tails.byPostings, tails.wholeByPostings)
	}
	if sparse == 0 {
		t.Error("no set was small enough to be counted sparsely: countSparse went untested")
	}
	if folded == 0 {
		t.Errorf("no set had more than %d records: the 32-bit counts went untested", smallFold)
	}
}

// countBothWays counts m in d's col by posting lists and by records, with
// each fold, for a few k, its tails and cheap facets by records and
// where cheaper by posting lists, and says where they differ; it returns
// how the counts by records counted the tails.
func countBothWays(t *testing.T, s *core.Search, what string, d core.Dim, col *facetColumn, m core.Set, folds []int) (tails tailCounts, err error) {
	t.Helper()
	defer func() { CountTailsByPostings, CountColumnsByPostings = true, true }()
	for _, k := range []int{1, 10, 50} {
		byPostings, err := countByPostings(s, col, m, nil, k, nil, nil)
		if err != nil {
			return tails, err
		}
		for _, fold := range folds {
			for _, lists := range []bool{true, false} {
				CountTailsByPostings, CountColumnsByPostings = lists, lists
				task := &facetTask{d: d, col: col, m: m}
				n, err := countByRecords(s, m, []*facetTask{task}, k, fold)
				if err != nil {
					return tails, err
				}
				tails.skipped += n.skipped
				tails.byPostings += n.byPostings
				tails.wholeByPostings += n.wholeByPostings
				if fmt.Sprint(task.Top) != fmt.Sprint(byPostings) {
					t.Errorf("%s facet %d k=%d fold %d lists %v: by records %v, by postings %v", what, d, k, fold, lists, task.Top, byPostings)
				}
			}
		}
	}
	return tails, nil
}

// TestSlotColumnHoldsEveryValue reads each facet column of the real
// snapshot back, record by record (the slots and overflow of both parts),
// and compares it with the posting lists: every record has exactly the
// values that list it, however many (the genre column has records with up
// to 64), each in the part its rank puts it in.
func TestSlotColumnHoldsEveryValue(t *testing.T) {
	ix, _ := realIndex(t)
	for _, d := range []core.Dim{core.DimCountry, core.DimLanguage, core.DimGenre} {
		col, err := column(ix, d)
		if err != nil {
			t.Fatal(err)
		}
		if !col.hasColumn() {
			t.Fatalf("facet %s has no per-record column", d.Name())
		}
		if d == core.DimGenre && (col.head.values != headValues || col.tail.values != len(col.keys)-headValues) {
			t.Fatalf("genre parts hold %d and %d of %d values", col.head.values, col.tail.values, len(col.keys))
		}
		want := make([][]int, col.stations)
		err = ix.View(func(*bolt.Tx) error {
			var cs []rawroaring.Container
			for id := range col.keys {
				if cs, err = rawroaring.Parse(col.postings[id], cs); err != nil {
					return err
				}
				rawroaring.Each(cs, make([]uint32, 0, 256), func(recs []uint32) {
					for _, r := range recs {
						want[r] = append(want[r], id)
					}
				})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		overflowing := 0
		for r := range col.stations {
			var got []int
			for _, p := range []*slotColumn{&col.head, &col.tail} {
				if p.values == 0 {
					continue
				}
				more := p.overflow(uint32(r))
				if len(more) > 0 {
					overflowing++
				}
				for _, v := range append(slices.Clone(p.slots[r*p.width:(r+1)*p.width]), more...) {
					if v >= spareSlots {
						got = append(got, p.base+int(v)-spareSlots)
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want[r]) {
				t.Fatalf("facet %s record %d: column holds %v, posting lists say %v", d.Name(), r, got, want[r])
			}
		}
		if d != core.DimCountry && overflowing == 0 {
			t.Errorf("facet %s: no record overflows its slots; the test covers less than it should", d.Name())
		}
	}
}

func TestSlotWidth(t *testing.T) {
	for _, c := range []struct {
		hist []int // records by number of values
		want int
	}{
		{[]int{10, 90}, 1},
		{[]int{0, 80, 20}, 2},          // 20% with two: over the share at one slot
		{[]int{0, 88, 12}, 1},          // 12%: within
		{[]int{0, 10, 10, 10, 70}, 4},  // no narrower width fits
		{[]int{0, 0, 0, 0, 0, 100}, 4}, // widest, every record overflowing
		{[]int{100}, 1},                // no values at all
	} {
		stations := 0
		for _, n := range c.hist {
			stations += n
		}
		hist := make([]int, maxColumnValues+1)
		copy(hist, c.hist)
		if got := slotWidth(hist, stations); got != c.want {
			t.Errorf("slotWidth(%v) = %d, want %d", c.hist, got, c.want)
		}
	}
}

// BenchmarkFacetColumns builds the three facet columns of the real
// snapshot, as core.Index.Warm does once per index: its time and heap.
func BenchmarkFacetColumns(b *testing.B) {
	ix, _ := realIndex(b)
	b.ReportAllocs()
	for b.Loop() {
		err := ix.View(func(tx *bolt.Tx) error {
			for _, d := range []core.Dim{core.DimCountry, core.DimLanguage, core.DimGenre} {
				if _, err := buildColumn(tx.Bucket(d.FacetBucket()), ix.Meta().Stations, d); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

package indexer

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"stationdex/internal/format"
)

// memoShape is synthetic facet data shaped like a large snapshot: one
// country per record, one or two languages, up to five genres, a Zipf
// spread of values, and a share of records in groups of two or three.
type memoShape struct {
	facets  []*facetValues
	values  *recordValues
	groupOf []uint32
}

func newMemoShape(stations int, seed uint64) *memoShape {
	rng := rand.New(rand.NewPCG(seed, 1))
	dims := []struct{ values, most, least int }{{250, 1, 1}, {300, 2, 1}, {3000, 5, 0}}
	sh := &memoShape{groupOf: make([]uint32, stations)}
	for _, d := range dims {
		lists := make([]*roaring.Bitmap, d.values)
		for i := range lists {
			lists[i] = roaring.New()
		}
		zipf := rand.NewZipf(rng, 1.2, 4, uint64(d.values-1))
		for r := range stations {
			for range d.least + rng.IntN(d.most-d.least+1) {
				lists[zipf.Uint64()].Add(uint32(r))
			}
		}
		keys := make([]string, d.values)
		for i := range keys {
			keys[i] = fmt.Sprintf("v%05d", i)
		}
		fv := &facetValues{lists: lists}
		fv.number(keys, nil)
		sh.facets = append(sh.facets, fv)
	}
	sh.values = newRecordValues(sh.facets, stations)
	group := uint32(0)
	for r := 0; r < stations; {
		if rng.IntN(5) > 0 {
			sh.groupOf[r] = format.NoGroup
			r++
			continue
		}
		for range min(2+rng.IntN(2), stations-r) {
			sh.groupOf[r] = group
			r++
		}
		group++
	}
	return sh
}

// randomSet is about share of the stations, at random.
func randomSet(rng *rand.Rand, stations int, share float64) *roaring.Bitmap {
	bm := roaring.New()
	for r := range stations {
		if rng.Float64() < share {
			bm.Add(uint32(r))
		}
	}
	return bm
}

// naiveMemo counts bm's values one record and one group at a time, in
// maps: the definition memoCounter.count must agree with.
func (sh *memoShape) naiveMemo(bm *roaring.Bitmap, plain int) (stations, groups map[uint32]uint32) {
	stations, groups = map[uint32]uint32{}, map[uint32]uint32{}
	seen := map[[2]uint32]bool{} // group (plus one), value
	plainIDs := uint32(sh.values.ids)
	if plain < len(sh.facets) {
		plainIDs = sh.facets[plain].base
	}
	for r := range bm.Iterate {
		g := uint32(r) + 1<<31 // a record alone is a group of its own
		if sh.groupOf[r] != format.NoGroup {
			g = sh.groupOf[r]
		}
		for _, v := range sh.values.vals[sh.values.first[r]:sh.values.first[r+1]] {
			if v < plainIDs {
				stations[v]++
			}
			if !seen[[2]uint32{g, v}] {
				seen[[2]uint32{g, v}] = true
				groups[v]++
			}
		}
	}
	return stations, groups
}

// TestMemoCounterMatchesNaive: the memo's counts equal those of one record
// at a time, for sets of several densities, the counter reused between
// them as countAll reuses it.
func TestMemoCounterMatchesNaive(t *testing.T) {
	const stations, limit = 200_000, 50
	sh := newMemoShape(stations, 7)
	rng := rand.New(rand.NewPCG(11, 12))
	const plain = 2 // the third facet is counted in groups only
	c := newMemoCounter(sh.facets, plain, sh.values, sh.groupOf)
	for _, share := range []float64{0.0005, 0.02, 0.3, 0.9} {
		bm := randomSet(rng, stations, share)
		got := c.count(bm, int(bm.GetCardinality()), limit)
		byStations, byGroups := sh.naiveMemo(bm, plain)
		for f, fv := range sh.facets {
			base := int(fv.base)
			wantGroups := fv.top(countsOf(byGroups, base, len(fv.total)), limit)
			if !reflect.DeepEqual(got.Distinct.Facets[f], wantGroups) {
				t.Fatalf("share %v facet %d in groups: got %v, want %v", share, f, got.Distinct.Facets[f], wantGroups)
			}
			if f >= plain {
				continue
			}
			wantStations := fv.top(countsOf(byStations, base, len(fv.total)), limit)
			if !reflect.DeepEqual(got.Plain.Facets[f], wantStations) {
				t.Fatalf("share %v facet %d in stations: got %v, want %v", share, f, got.Plain.Facets[f], wantStations)
			}
		}
		if len(got.Distinct.Facets[2]) != limit {
			t.Fatalf("share %v: %d genres counted, want %d", share, len(got.Distinct.Facets[2]), limit)
		}
	}
}

// countsOf is the counts of ids [base, base+n) of m as a slice.
func countsOf(m map[uint32]uint32, base, n int) []uint32 {
	out := make([]uint32, n)
	for id, c := range m {
		if int(id) >= base && int(id) < base+n {
			out[int(id)-base] = c
		}
	}
	return out
}

// BenchmarkMemoCount counts sets of 6% of 5M synthetic stations, the size
// of the memo's broad lists, whose records are read at random places.
func BenchmarkMemoCount(b *testing.B) {
	const stations = 5_000_000
	sh := newMemoShape(stations, 7)
	rng := rand.New(rand.NewPCG(3, 4))
	var sets []*roaring.Bitmap
	for range 4 {
		sets = append(sets, randomSet(rng, stations, 0.06))
	}
	c := newMemoCounter(sh.facets, 2, sh.values, sh.groupOf)
	records := 0
	b.ResetTimer()
	for b.Loop() {
		for _, bm := range sets {
			c.count(bm, int(bm.GetCardinality()), 50)
			records += int(bm.GetCardinality())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(records), "ns/record")
}

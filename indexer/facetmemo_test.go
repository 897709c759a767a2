package indexer

import (
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// TestDenseSampleKeepsCounts: two lists' samples, as bitsets, intersect in
// as many records as the samples in place, so findPairs estimates, and
// chooses, the same pairs either way.
func TestDenseSampleKeepsCounts(t *testing.T) {
	const stations = 3_000_000 // a stride of 6
	mask, stride := sampleMask(stations)
	if stride < 2 {
		t.Fatalf("stride %d: the test needs a sample of every few records", stride)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var lists []*roaring.Bitmap
	for _, share := range []float64{0.4, 0.1, 0.01} {
		lists = append(lists, randomSet(rng, stations, share))
	}
	run := roaring.New() // the stations of one word, together in name order
	run.AddRange(1_000_000, 1_400_000)
	lists = append(lists, run)
	for i, a := range lists {
		da := denseSample(a, mask, stride)
		if got, want := andCount(da, da), int(roaring.And(a, mask).GetCardinality()); got != want {
			t.Fatalf("list %d: sample of %d records, want %d", i, got, want)
		}
		for j, b := range lists[i+1:] {
			got := andCount(da, denseSample(b, mask, stride))
			want := int(roaring.And(a, mask).AndCardinality(roaring.And(b, mask)))
			if got != want || want == 0 {
				t.Fatalf("lists %d and %d: samples share %d records as bitsets, %d in place", i, i+1+j, got, want)
			}
		}
	}
}

// TestTypedWords: a word's list pairs with others unless the word is a
// single rune or a word one rune longer holds nine tenths of its stations;
// the facets' lists are not words.
func TestTypedWords(t *testing.T) {
	word := func(key string, n int) *memoList { return &memoList{source: 4, facet: -1, key: []byte(key), n: n} }
	lists := []*memoList{
		word("r", 200),
		word("ra", 100), word("rad", 95), // "ra": nearly all "rad"
		word("radi", 60), word("radio", 59), // "rad" keeps its own; "radi" does not
		word("fm", 50), word("fmx", 44), // 44 of 50: under nine tenths
		word("la", 50), word("lax", 45), // 45 of 50: nine tenths
		word("añ", 10), word("año", 10), // the last rune of "año" is two bytes
		word("ñu", 7),
		{source: 0, facet: 0, key: []byte("US"), n: 500},
	}
	want := map[string]bool{"rad": true, "radio": true, "fm": true, "fmx": true, "lax": true, "año": true, "ñu": true}
	typed := typedWords(lists)
	for _, l := range lists {
		if got := typed[l]; got != want[string(l.key)] {
			t.Errorf("%q (%d stations): typed %v, want %v", l.key, l.n, got, !got)
		}
	}
}

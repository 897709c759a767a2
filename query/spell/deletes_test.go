package spell

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"slices"
	"testing"

	qoracle "stationdex/oracle"
)

// TestOSADistanceAsWholeTable: the bit vectors give the oracle's
// distance, computed by the whole table, on pairs of words over three
// letters, where edits, transpositions and repeated runes abound, and
// over runes past ASCII, up to the longest word a pattern holds.
func TestOSADistanceAsWholeTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	alphabets := [][]rune{[]rune("abc"), []rune("aéж北"), []rune("ab\uFFFDz")}
	word := func(abc []rune, n int) []rune {
		w := make([]rune, n)
		for i := range w {
			w[i] = abc[rng.IntN(len(abc))]
		}
		return w
	}
	var p osaPattern
	near := 0
	for i := range 30000 {
		abc := alphabets[i%len(alphabets)]
		n := rng.IntN(10)
		if i%10 == 0 {
			n = rng.IntN(maxPatternRunes + 1)
		}
		a := word(abc, n)
		b := word(abc, max(0, len(a)+rng.IntN(7)-3))
		p.reset(a)
		want := qoracle.EditDistance(string(a), string(b))
		if got := p.distance(string(b)); got != want {
			t.Fatalf("distance(%q, %q) = %d; the whole table says %d", string(a), string(b), got, want)
		}
		if want <= 2 {
			near++
		}
	}
	if near < 3000 {
		t.Errorf("%d pairs within two edits: the test does not exercise close words", near)
	}
}

// TestDeleteIndexTable: the open-addressing table finds every word filed
// under a string and nothing else, files a repeat once, and keeps a run
// that wraps past the table's end (three strings whose home is the last
// slot, besides 40 entries of 13 strings filed by several words each).
func TestDeleteIndexTable(t *testing.T) {
	x := &deleteIndex{slots: make([]uint64, 128), mask: 127, seed: maphash.MakeSeed()}
	filed := map[string][]uint32{}
	add := func(s string, id uint32) {
		h := maphash.String(x.seed, s)
		x.file(h, id)
		x.file(h, id)
		filed[s] = append(filed[s], id)
	}
	for i := range 40 {
		add(fmt.Sprintf("w%d", i%13), uint32(i))
	}
	for i, last := 0, 0; last < 3; i++ {
		if s := fmt.Sprintf("x%d", i); maphash.String(x.seed, s)&x.mask == x.mask {
			add(s, uint32(100+last))
			last++
		}
	}
	used := 0
	for _, e := range x.slots {
		if e != 0 {
			used++
		}
	}
	if used != 43 {
		t.Errorf("%d slots used for 43 entries", used)
	}
	if x.slots[0] == 0 {
		t.Error("no run wrapped past the last slot")
	}
	lookup := func(s string) []uint32 {
		got := x.candidates([]rune(s), 0, &lookupScratch{}, nil)
		slices.Sort(got)
		return got
	}
	for s, want := range filed {
		if got := lookup(s); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", s, got, want)
		}
	}
	if got := lookup("never filed"); len(got) != 0 {
		t.Errorf("a string never filed finds %v", got)
	}
}

// TestDeletionCount: the count the table is sized by is what
// eachDeletion emits.
func TestDeletionCount(t *testing.T) {
	for n := range 12 {
		r := []rune("abcdefghijkl")[:n]
		for k := range 3 {
			emitted := 0
			eachDeletion(r, k, nil, func([]byte) { emitted++ })
			if c := deletionCount(n, k); c != emitted {
				t.Errorf("%d runes, %d deletions: counted %d, emitted %d", n, k, c, emitted)
			}
		}
	}
}

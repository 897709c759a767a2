package query

import (
	"math/rand/v2"
	"testing"

	qoracle "stationdex/query/oracle"
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

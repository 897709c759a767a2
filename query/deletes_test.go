package query

import (
	"math/rand/v2"
	"testing"

	qoracle "stationdex/query/oracle"
)

// TestOSAWithinAsWholeTable: the banded distance equals the oracle's,
// computed by the whole table, whenever that is within max, and says no
// otherwise, on pairs of short words over three letters, where edits,
// transpositions and repeated runes abound.
func TestOSAWithinAsWholeTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	word := func(n int) []rune {
		w := make([]rune, n)
		for i := range w {
			w[i] = rune('a' + rng.IntN(3))
		}
		return w
	}
	rows := make([]int, 3*40)
	checked := map[bool]int{}
	for range 20000 {
		a := word(rng.IntN(9))
		b := word(max(0, len(a)+rng.IntN(5)-2))
		for _, k := range []int{1, 2} {
			want := qoracle.EditDistance(string(a), string(b))
			got, ok := osaWithin(a, b, k, rows)
			if ok != (want <= k) || ok && got != want {
				t.Fatalf("osaWithin(%q, %q, %d) = %d, %v; the whole table says %d", string(a), string(b), k, got, ok, want)
			}
			checked[ok]++
		}
	}
	if checked[true] < 1000 || checked[false] < 1000 {
		t.Errorf("pairs within and past the bound: %v; the test does not exercise both", checked)
	}
}

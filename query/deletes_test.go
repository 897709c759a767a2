package query

import (
	"math/rand/v2"
	"testing"
)

// osaFull is the optimal string alignment distance by the whole table,
// the definition osaWithin's band must agree with.
func osaFull(a, b []rune) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// TestOSAWithinAsWholeTable: the banded distance equals the whole
// table's whenever that is within max, and says no otherwise, on pairs
// of short words over three letters (where edits, transpositions and
// repeated runes abound) and on a word and its own edits.
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
			want := osaFull(a, b)
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

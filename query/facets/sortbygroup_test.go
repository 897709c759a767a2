package facets

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortByGroupAsSlicesSort: entries in ascending record order with
// group numbers of up to one, two and three radix digits end as a full
// comparison sort leaves them, buffers reused from run to run.
func TestSortByGroupAsSlicesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 11))
	var entries, tmp []uint64
	for _, groups := range []int{1, 7, 2000, 5000, 1 << 23} {
		for _, n := range []int{0, 1, 2, 100, 20000} {
			entries = entries[:0]
			for r := range n {
				g := uint64(1 + rng.IntN(groups))
				entries = append(entries, g<<32|uint64(r))
			}
			want := slices.Clone(entries)
			slices.Sort(want)
			var got []uint64
			got, tmp = sortByGroup(entries, tmp)
			if !slices.Equal(got, want) {
				t.Fatalf("%d entries of %d groups: sorted differently from slices.Sort", n, groups)
			}
			entries = got
		}
	}
}

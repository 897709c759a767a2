package core

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"stationdex/query/rawroaring"
)

// TestKeyGroupsCountsAsLookups: counting a block of records a word at a
// time (runs by carries, entries standing alone by popcount), or a list
// of values (runs by their first entries), gives what looking up every
// entry's group gives, on the real snapshot's groups,
// for sets from sparse to full and sets made of whole runs or parts.
func TestKeyGroupsCountsAsLookups(t *testing.T) {
	ix, _ := realIndex(t)
	w := GetWorkspace()
	defer w.Release()
	s := w.NewSearch(ix)
	var gi *GroupIndex
	err := ix.Read(func() (err error) { gi, err = GroupIndexOf(s); return err })
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	for _, x := range gi.runNext {
		runs += bits.OnesCount64(x)
	}
	if runs == 0 {
		t.Fatal("no group is a run: the word-at-a-time count is not exercised")
	}
	rng := rand.New(rand.NewPCG(7, 26))
	var blk [rawroaring.BlockWords]uint64
	var seen, ref groupSet
	for trial := range 200 {
		density := []float64{0.01, 0.1, 0.5, 0.9, 1}[trial%5]
		for i := range blk {
			blk[i] = 0
			for b := range 64 {
				if rng.Float64() < density {
					blk[i] |= 1 << b
				}
			}
			if trial%2 == 1 {
				blk[i] &= gi.isGrouped[i%len(gi.isGrouped)] // grouped entries only: runs cut anywhere
			}
		}
		out := keySet{blk: &blk, inBlk: true, n: -1}
		got := gi.keyGroups(gi.NewSeen(&seen), &out, 0)
		want := 0
		gi.NewSeen(&ref)
		for i, x := range blk {
			for ; x != 0; x &= x - 1 {
				if gi.FirstIn(&ref, uint32(i<<6+bits.TrailingZeros64(x))) {
					want++
				}
			}
		}
		if got != want {
			t.Fatalf("trial %d (density %.2f): %d groups counted by words, %d by lookups", trial, density, got, want)
		}
		vals := out.appendTo(nil, 0)
		list := keySet{vals: make([]uint16, len(vals)), n: -1}
		for i, r := range vals {
			list.vals[i] = uint16(r)
		}
		if got := gi.keyGroups(gi.NewSeen(&seen), &list, 0); got != want {
			t.Fatalf("trial %d (density %.2f): %d groups counted in a list of values, %d by lookups", trial, density, got, want)
		}
	}
}

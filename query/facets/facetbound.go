package facets

import (
	"stationdex/query/core"
)

// Bounds from the facet memo. A search's set lies within each stored list
// it intersects (a word's, a filter's), so a value counts no more in the
// set than in any of those lists, in stations or in groups alike: a group
// with an entry in the set that has the value has that entry in the list
// too. The memo holds each large list's top values, most first; a value
// it does not list counts in the list at most as much as the last listed
// one when the entry is full, and nothing when it is not (an entry lists
// every filterable value it does not cut, and col.skip marks the others).
//
// countDense visited the values in the order of their station count in
// the whole snapshot until one could no longer reach the k-th count found,
// a bound that a broad intersection reaches late: "radio" in English, 8%
// of 5M stations, intersected a few hundred genre lists to find eight, 9
// of its 21 ms. With the bound the values one list names come first, and
// once the k-th count passes that list's last, no value it leaves out can
// enter.

// maxBoundLists is the most lists a bound keeps: a search's words and
// filters beyond them only tighten it, and a bound of fewer still holds.
const maxBoundLists = 4

// memoBound is the memo's bound on the values of one facet of a set.
type memoBound struct {
	lists  [maxBoundLists][]memoCount // each list's top values, most first
	floors [maxBoundLists]int         // the most a value a list leaves out counts
	n      int                        // the lists held
	tight  int                        // the list with the lowest floor
}

// BoundByMemo lets countDense take the memo's bounds; false visits the
// values in snapshot order only (a variable for the tests of both ways).
var BoundByMemo = true

// boundOf is the bound on facet d of the set of ops without the filter of
// dimension except, in groups with distinct: empty when the memo is not
// read or lists none of the set's lists.
func boundOf(ix *core.Index, ops []core.MemoOperand, except, d core.Dim, distinct bool) memoBound {
	var b memoBound
	memo := facetsOf(ix).memo.memo
	if memo == nil || !BoundByMemo {
		return b
	}
	for _, op := range ops {
		if op.Dim == except && except != core.NoDim || op.List == 0 || b.n == maxBoundLists {
			continue
		}
		f := memo.lists[op.List]
		if f == nil {
			continue
		}
		l, has := f.lists[d], MemoFacetSet.Has(d)
		if distinct {
			l, has = f.distinct[d], DistinctFacetSet.Has(d)
		}
		if !has {
			continue
		}
		floor := 0
		if len(l) >= f.limit && len(l) > 0 {
			floor = int(l[len(l)-1].N)
		}
		b.lists[b.n], b.floors[b.n] = l, floor
		if floor < b.floors[b.tight] {
			b.tight = b.n
		}
		b.n++
	}
	return b
}

// of is the most value id can count in the set.
func (b *memoBound) of(id uint32) int {
	most := int(^uint(0) >> 1)
	for i := range b.n {
		most = min(most, countIn(b.lists[i], id, b.floors[i]))
	}
	return most
}

// first is the values the tightest list names, most first: those
// countDense visits before the others.
func (b *memoBound) first() []memoCount {
	if b == nil || b.n == 0 {
		return nil
	}
	return b.lists[b.tight]
}

// leavesOut reports whether no value the tightest list leaves out can
// count need or more.
func (b *memoBound) leavesOut(need int) bool {
	return b != nil && b.n > 0 && need > b.floors[b.tight]
}

// countIn is id's count in a memo list, else floor.
func countIn(l []memoCount, id uint32, floor int) int {
	for _, c := range l {
		if c.ID == id {
			return int(c.N)
		}
	}
	return floor
}

// listed reports whether id is among l's values.
func listed(l []memoCount, id uint32) bool {
	return countIn(l, id, -1) >= 0
}

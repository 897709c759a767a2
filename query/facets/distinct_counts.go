package facets

import (
	"fmt"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"stationdex/internal/format"
	"stationdex/query/core"
)

// Facet counts of a distinct search: a value counts the groups with an
// entry in the search that has the value (see distinct.go).

// countDistinct counts groups: a set as small as countTask counts by
// records, by records (distinctByRecords); a larger one as
// countByPostings counts records, less each value's duplicates. With few
// shared entries in m, the duplicates
// of every value are counted at once (duplicateCounts); with many, only
// those of the values that could enter the top k, one by one
// (duplicatesByValue): counting all would sort millions of value-group
// pairs at 5M stations.
func countDistinct(s *core.Search, t *facetTask, top []core.TopCount, k int) ([]core.TopCount, error) {
	col, m := t.col, t.m
	gi, err := core.GroupIndexOf(s)
	if err != nil {
		return nil, err
	}
	shared := sharedOf(s, m, gi)
	if n := m.Card(); CountByRecords && col.hasColumn() && (n <= columnMin || n*columnShare <= s.Stations) {
		return distinctByRecords(s, col, m, shared.BM, gi, top, k)
	}
	if shared.Card() > PairedMax {
		return countByPostings(s, col, m, top, k, &duplicatesByValue{s: s, gi: gi, col: col, shared: shared.BM, value: s.Work.Bitmap()}, &t.bound)
	}
	dups, done, err := countValueDuplicates(s, col, shared, gi)
	if err != nil {
		return nil, err
	}
	defer done()
	return countByPostings(s, col, m, top, k, dups, &t.bound)
}

// distinctByRecords counts the groups of each value by visiting m's
// records in the column, as countByRecords counts records: an entry that
// stands alone counts each of its values; the entries that share a group
// are visited group by group (sharedByGroup, shared being m's), and a
// value counts once per group. Only the values met are ranked. Probing
// every value's posting list, as countByPostings does, costs the same for
// a set of one station as for a million: a search for a rare name spent
// most of its time on the tens of thousands of genres and places none of
// its stations has.
func distinctByRecords(s *core.Search, col *facetColumn, m core.Set, shared *roaring.Bitmap, gi *core.GroupIndex, top []core.TopCount, k int) ([]core.TopCount, error) {
	c := getGroupCounts(len(col.keys))
	defer groupCountsPool.Put(c)
	values := c.values[:0]
	err := core.EachBatch(s, m.BM, func(batch []uint32) error {
		for _, r := range batch {
			if !gi.Alone(r) {
				continue // counted by group below
			}
			values = col.tail.appendValues(col.head.appendValues(values[:0], r), r)
			for _, id := range values {
				c.add(id)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	byGroup, err := sharedByGroup(s, shared, gi)
	if err != nil {
		return nil, err
	}
	for _, e := range byGroup {
		g, r := uint32(e>>32), uint32(e)
		values = col.tail.appendValues(col.head.appendValues(values[:0], r), r)
		for _, id := range values {
			if c.last[id] != g {
				c.last[id] = g
				c.add(id)
			}
		}
	}
	c.values = values[:0]
	for _, id := range c.touched {
		if !col.skip[id] {
			top = col.offer(top, core.TopCount{ID: id, N: int(c.count[id])}, k)
		}
		c.count[id], c.last[id] = 0, 0
	}
	c.touched = c.touched[:0]
	return top, nil
}

// CountByRecords lets countDistinct count a set by records
// (distinctByRecords) where the facet has a column and the set is as
// small as countTask's by records; false takes the posting lists for
// every set (a variable for the tests of every way).
var CountByRecords = true

// groupCounts are the counters of distinctByRecords, by value id, zero
// between uses: each value's groups, and the last group that counted it
// (compact group numbers start at 1); touched lists the values met.
type groupCounts struct {
	count, last     []uint32
	touched, values []uint32
}

func (c *groupCounts) add(id uint32) {
	if c.count[id] == 0 {
		c.touched = append(c.touched, id)
	}
	c.count[id]++
}

var groupCountsPool = sync.Pool{New: func() any { return new(groupCounts) }}

// getGroupCounts is pooled counters for at least values value ids.
func getGroupCounts(values int) *groupCounts {
	c := groupCountsPool.Get().(*groupCounts)
	if len(c.count) < values {
		c.count, c.last = make([]uint32, values), make([]uint32, values)
	}
	return c
}

// PairedMax is the most shared entries whose value-group pairs are
// sorted at once (a variable for the tests of both ways).
var PairedMax = 1 << 14

// valueDuplicates is a value's duplicates in a search: its entries in the
// search whose group has another, earlier, with the value.
type valueDuplicates interface {
	Of(id uint32) (int, error)
}

// duplicatesByValue counts a value's duplicates when asked: the groups
// of its shared entries, in the search's group set.
type duplicatesByValue struct {
	s      *core.Search
	gi     *core.GroupIndex
	col    *facetColumn
	shared *roaring.Bitmap
	value  *roaring.Bitmap // the value's posting list, read in place
}

func (d *duplicatesByValue) Of(id uint32) (int, error) {
	if _, err := d.value.FromBuffer(d.col.postings[id]); err != nil {
		return 0, fmt.Errorf("%w: facet %q: %v", format.ErrCorrupt, d.col.keys[id], err)
	}
	seen := d.gi.NewSeen(&d.s.Work.Seen)
	dups := 0
	err := core.EachBatch(d.s, roaring.And(d.shared, d.value), func(batch []uint32) error {
		for _, r := range batch {
			if !d.gi.FirstIn(seen, r) {
				dups++
			}
		}
		return nil
	})
	return dups, err
}

// countValueDuplicates counts each value's duplicates among shared, the
// entries of a search that share a group. With a facet column, the
// entries are visited group by group (columnDuplicates); without, their
// values, read from the posting lists, are paired with their groups, and
// a pair met again is a duplicate.
func countValueDuplicates(s *core.Search, col *facetColumn, shared core.Set, gi *core.GroupIndex) (valueDuplicates, func(), error) {
	if col.hasColumn() {
		return columnDuplicates(s, col, shared.BM, gi)
	}
	pairs, err := postingGroupPairs(s, s.Work.Pairs[:0], col, shared.BM, gi)
	s.Work.Pairs = pairs[:0]
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(pairs)
	dups := s.Work.Dups[:0]
	for i := 1; i < len(pairs); i++ {
		if pairs[i] != pairs[i-1] {
			continue
		}
		id := uint32(pairs[i] >> 32)
		if len(dups) == 0 || dups[len(dups)-1].ID != id {
			dups = append(dups, core.ValueCount{ID: id})
		}
		dups[len(dups)-1].N++
	}
	s.Work.Dups = dups
	return dups, func() {}, nil
}

// lastGroups answers a value's duplicates from columnDuplicates' table,
// by value id, while the table holds them.
type lastGroups []core.ValueGroup

func (l lastGroups) Of(id uint32) (int, error) {
	if int(id) >= len(l) {
		return 0, nil
	}
	return int(l[id].Dups), nil
}

// columnDuplicates counts each value's duplicates among shared from the
// facet column. The entries are sorted by group (once for all the facets
// of a match set), so that a group's are side by side; a value met again
// within one group is a duplicate. Pairing every value with its group
// sorted a pair per value of an entry, for each facet: most of the cost
// of a faceted distinct word search. The counts are read from the table
// itself (lastGroups) until done clears the values met: sorting those
// into a list was a fifth of the cost.
func columnDuplicates(s *core.Search, col *facetColumn, shared *roaring.Bitmap, gi *core.GroupIndex) (valueDuplicates, func(), error) {
	byGroup, err := sharedByGroup(s, shared, gi)
	if err != nil {
		return nil, nil, err
	}
	last := s.Work.LastGroup
	if len(last) < len(col.keys) {
		last = make([]core.ValueGroup, len(col.keys))
		s.Work.LastGroup = last
	}
	met := s.Work.ValueIDs[:0]
	values := s.Work.GroupIDs[:0]
	for _, e := range byGroup {
		g, r := uint32(e>>32), uint32(e)
		values = col.tail.appendValues(col.head.appendValues(values[:0], r), r)
		for _, id := range values {
			switch v := &last[id]; {
			case v.Group == g:
				v.Dups++
			case v.Group == 0:
				met = append(met, id)
				v.Group = g
			default:
				v.Group = g
			}
		}
	}
	s.Work.GroupIDs = values[:0]
	done := func() {
		for _, id := range met {
			last[id] = core.ValueGroup{}
		}
		s.Work.ValueIDs = met[:0]
	}
	return lastGroups(last), done, nil
}

// appendValues appends the value ids of record r in the part.
func (c *slotColumn) appendValues(ids []uint32, r uint32) []uint32 {
	if c.width == 0 || r >= c.records() {
		return ids
	}
	for _, slot := range c.slots[int(r)*c.width : int(r+1)*c.width] {
		if slot >= spareSlots {
			ids = append(ids, uint32(c.base+int(slot)-spareSlots))
		}
	}
	for _, slot := range c.overflow(r) {
		if slot >= spareSlots {
			ids = append(ids, uint32(c.base+int(slot)-spareSlots))
		}
	}
	return ids
}

// postingGroupPairs is valueGroupPairs for a facet without a column:
// each value's posting list is intersected with shared.
func postingGroupPairs(s *core.Search, pairs []uint64, col *facetColumn, shared *roaring.Bitmap, gi *core.GroupIndex) ([]uint64, error) {
	if shared.IsEmpty() {
		return pairs, nil
	}
	value := s.Work.Bitmap()
	for id, key := range col.keys {
		if _, err := value.FromBuffer(col.postings[id]); err != nil {
			return pairs, fmt.Errorf("%w: facet %q: %v", format.ErrCorrupt, key, err)
		}
		if !value.Intersects(shared) {
			continue
		}
		it := roaring.And(value, shared).Iterator()
		for it.HasNext() {
			g, err := gi.CompactOf(it.Next())
			if err != nil {
				return pairs, err
			}
			pairs = append(pairs, uint64(id)<<32|uint64(g))
		}
	}
	return pairs, nil
}

// sharedOf is the entries of m that share a group, kept for the next
// facet of the same match set (those the search does not filter on).
func sharedOf(s *core.Search, m core.Set, gi *core.GroupIndex) core.Set {
	if s.Shared.Of != m.BM {
		s.Shared.Of, s.Shared.Set = m.BM, s.Work.And(core.Set{BM: gi.Grouped}, m)
		s.Shared.Sorted = false
	}
	return s.Shared.Set
}

// sharedByGroup is the entries of shared (sharedOf's) as group<<32 |
// record, sorted, so that a group's entries are side by side: sorted once
// for every facet of the same match set.
func sharedByGroup(s *core.Search, shared *roaring.Bitmap, gi *core.GroupIndex) ([]uint64, error) {
	if s.Shared.Sorted && s.Shared.BM == shared {
		return s.Shared.ByGroup, nil
	}
	byGroup := s.Shared.ByGroup[:0]
	if byGroup == nil {
		byGroup = s.Work.ByGroup[:0]
	}
	err := core.EachBatch(s, shared, func(batch []uint32) error {
		for _, r := range batch {
			c, err := gi.CompactOf(r)
			if err != nil {
				return err
			}
			byGroup = append(byGroup, uint64(c)<<32|uint64(r))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	byGroup, s.Work.ByGroupTmp = sortByGroup(byGroup, s.Work.ByGroupTmp)
	s.Shared.ByGroup, s.Shared.Sorted = byGroup, s.Shared.BM == shared
	return byGroup, nil
}

// sortByGroup sorts entries (group<<32 | record, in ascending record
// order) by group, keeping record order within a group, so that they end
// as slices.Sort would leave them: a least-significant-digit radix sort of
// the group numbers, 11 bits a pass, through tmp (returned for reuse).
// Sorting the shared entries of a broad word search by comparison was a
// quarter of its faceted distinct count.
func sortByGroup(entries, tmp []uint64) (sorted, spare []uint64) {
	const bits, buckets = 11, 1 << 11
	var most uint64
	for _, e := range entries {
		most = max(most, e>>32)
	}
	tmp = slices.Grow(tmp[:0], len(entries))[:len(entries)]
	for shift := 32; shift < 64 && most>>(shift-32) != 0; shift += bits {
		var count [buckets + 1]int
		for _, e := range entries {
			count[(e>>shift)&(buckets-1)+1]++
		}
		for b := 1; b <= buckets; b++ {
			count[b] += count[b-1]
		}
		for _, e := range entries {
			d := (e >> shift) & (buckets - 1)
			tmp[count[d]] = e
			count[d]++
		}
		entries, tmp = tmp, entries
	}
	return entries, tmp
}

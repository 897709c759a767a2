package facets

import (
	"math/bits"
	"slices"
	"sync"

	"stationdex/query/core"
)

// A distinct search's facets counted from its firsts. A value counts the
// groups with an entry in the set that has it. Most groups are uniform:
// their entries have the same values in every facet with a column (at 5M
// stations all but 4,347 of 561,489 groups, whose 11,218 entries are
// mixed). A uniform group counts once what any one of its entries has, so
// the set's firsts (its entries that stand alone, and the first met of
// each uniform group) are counted as a plain search counts a set, every
// facet in one pass over their records or by posting lists; the entries
// of mixed groups, a few, are counted group by group, a value once per
// group, and added before the values are ranked. Counting every entry's
// values one facet at a time (distinctByRecords), which this replaces for
// the facets with a column, took 50 to 110 ms for the sets of 100,000 to
// 400,000 entries the memo does not hold at 5M stations.

// CountByFirsts lets a distinct search count the facets that have a
// column from its firsts; false counts them as countDistinct does (a
// variable for the tests of every way).
var CountByFirsts = true

// lazyMixed is the index's mixed groups, found on first use (or by Warm).
type lazyMixed struct {
	once sync.Once
	bits []uint64 // a bit per compact group number
	err  error
}

// mixedGroups is the groups of gi whose entries differ in some facet
// that has a column, a bit per compact group number.
func mixedGroups(ix *core.Index, gi *core.GroupIndex) ([]uint64, error) {
	lm := &facetsOf(ix).mixed
	lm.once.Do(func() { lm.bits, lm.err = findMixed(ix, gi) })
	return lm.bits, lm.err
}

// findMixed compares each grouped entry's values with its group's first
// entry's, facet by facet: a record's values are listed in one order
// (values), so equal lists are equal sets.
func findMixed(ix *core.Index, gi *core.GroupIndex) ([]uint64, error) {
	var cols []*facetColumn
	for d := range core.NumDims {
		if !d.Facetable() {
			continue
		}
		col, err := column(ix, d)
		if err != nil {
			return nil, err
		}
		if col.hasColumn() {
			cols = append(cols, col)
		}
	}
	mixed := make([]uint64, gi.Groups()/64+1)
	first := make([]uint32, gi.Groups()+1) // each group's first entry, plus one
	var a, b []uint32
	it := gi.Grouped.ManyIterator()
	buf := make([]uint32, 256)
	for got := it.NextMany(buf); got > 0; got = it.NextMany(buf) {
		for _, r := range buf[:got] {
			c, err := gi.CompactOf(r)
			if err != nil {
				return nil, err
			}
			if first[c] == 0 {
				first[c] = r + 1
				continue
			}
			for _, col := range cols {
				if mixed[c>>6]&(1<<(c&63)) != 0 {
					break
				}
				a, b = col.values(a[:0], first[c]-1), col.values(b[:0], r)
				if !slices.Equal(a, b) {
					mixed[c>>6] |= 1 << (c & 63)
				}
			}
		}
	}
	return mixed, nil
}

// values appends the value ids of record r, in the order of its parts'
// slots.
func (col *facetColumn) values(ids []uint32, r uint32) []uint32 {
	return col.tail.appendValues(col.head.appendValues(ids, r), r)
}

// countDistinctTasks counts the tasks marked byFirsts, those of one set
// together (countFirsts).
func countDistinctTasks(s *core.Search, tasks *[core.NumDims]facetTask, k int) error {
	for d := range tasks {
		if !tasks[d].byFirsts {
			continue
		}
		var groupOf [core.NumDims]*facetTask
		group := groupOf[:0]
		for e := d; e < len(tasks); e++ {
			if tasks[e].byFirsts && tasks[e].m.BM == tasks[d].m.BM {
				group = append(group, &tasks[e])
				tasks[e].byFirsts = false
			}
		}
		if err := countFirsts(s, tasks[d].m, group, k); err != nil {
			return err
		}
	}
	return nil
}

// countFirsts counts the group's facets (each with a column) of the
// distinct set m: m's firsts by records where a plain set of their size
// would be (countTask), else by posting lists, and its mixed groups'
// entries group by group, added to the firsts' counts. Its lists are the
// workspace's, which the other ways of counting have done with.
func countFirsts(s *core.Search, m core.Set, group []*facetTask, k int) error {
	gi, err := core.GroupIndexOf(s)
	if err != nil {
		return err
	}
	mixed, err := mixedGroups(s.Index, gi)
	if err != nil {
		return err
	}
	seen := gi.NewSeen(&s.Work.Seen)
	firsts, byGroup := s.Work.ValueIDs[:0], s.Work.Pairs[:0]
	var dense []uint64 // m's firsts as a bit per record, for a broad m
	if n := m.Card(); !firstsByRecords(n, s.Stations) && int(m.BM.Maximum()) < s.Stations {
		dense = denseOf(s, m)
		byGroup = gi.SplitFirstsDense(seen, dense, mixed, byGroup)
	} else {
		err = core.EachBatch(s, m.BM, func(batch []uint32) error {
			firsts, byGroup = gi.SplitFirsts(seen, batch, mixed, firsts, byGroup)
			return nil
		})
	}
	s.Work.ValueIDs, s.Work.Pairs = firsts[:0], byGroup[:0]
	if err != nil {
		return err
	}
	slices.Sort(byGroup) // few: the mixed groups' entries
	extra := s.Work.Dups[:0]
	for _, t := range group {
		from := len(extra)
		extra = mixedCounts(s, t.col, byGroup, extra, firsts[len(firsts):])
		t.extra = extra[from:len(extra):len(extra)]
	}
	s.Work.Dups = extra[:0]
	defer func() {
		for _, t := range group {
			t.extra = nil
		}
	}()
	n := len(firsts)
	if dense != nil {
		n = popCount(dense)
	}
	if firstsByRecords(n, s.Stations) {
		if dense != nil {
			firsts = appendRecords(firsts, dense)
			s.Work.ValueIDs = firsts[:0]
		}
		_, err := countRecordsOf(s, records{list: firsts, n: m.Card()}, group, k, columnFold)
		return err
	}
	if dense == nil {
		dense = denseOfRecords(s, records{list: firsts})
	}
	for _, t := range group {
		if t.Top, err = countDense(s, t.col, dense, s.Work.Tops[t.d][:0], k, nil, t.extra, 0, &t.bound); err != nil {
			return err
		}
	}
	return nil
}

// firstsByRecords reports whether n firsts are counted by records, as a
// plain set of their size would be (countTask).
func firstsByRecords(n, stations int) bool {
	return CountByRecords && (n <= columnMin || n*columnShare <= stations) && (n <= columnFold || n*foldedShare <= stations)
}

// popCount is the number of bits set in words.
func popCount(words []uint64) int {
	n := 0
	for _, w := range words {
		n += bits.OnesCount64(w)
	}
	return n
}

// appendRecords appends the records whose bits are set in words, in
// ascending order.
func appendRecords(dst []uint32, words []uint64) []uint32 {
	for i, w := range words {
		for ; w != 0; w &= w - 1 {
			dst = append(dst, uint32(i<<6+bits.TrailingZeros64(w)))
		}
	}
	return dst
}

// mixedCounts appends to out the groups of each value of col among
// byGroup (the entries of mixed groups as compact group<<32 | record,
// sorted), by value id, ascending, each value once, none of none; values
// is a buffer for a record's values.
func mixedCounts(s *core.Search, col *facetColumn, byGroup []uint64, out []core.ValueCount, values []uint32) []core.ValueCount {
	if len(byGroup) == 0 {
		return out
	}
	last := s.Work.LastGroup
	if len(last) < len(col.keys) {
		last = make([]core.ValueGroup, len(col.keys))
		s.Work.LastGroup = last
	}
	met := s.Work.GroupIDs[:0]
	for _, e := range byGroup {
		g, r := uint32(e>>32), uint32(e)
		values = col.values(values[:0], r)
		for _, id := range values {
			if v := &last[id]; v.Group != g {
				if v.Group == 0 {
					met = append(met, id)
				}
				v.Group = g
				v.Dups++ // here: the groups
			}
		}
	}
	slices.Sort(met)
	for _, id := range met {
		out = append(out, core.ValueCount{ID: id, N: last[id].Dups})
		last[id] = core.ValueGroup{}
	}
	s.Work.GroupIDs = met[:0]
	return out
}

package facets

import (
	"cmp"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	"stationdex/query/core"
)

// The visit counts in 16-bit counters, which a set of more than
// columnFold records could overflow: such a set's counts are folded into
// 32-bit ones every columnFold records (see countPart). A set that large
// is visited only up to 1/foldedShare of the stations: its records' slots
// come from memory, not the caches. At 5M stations sets of 130,000 to
// 175,000 (3%) took 7 to 12 ms by posting lists and 1.3 to 5 by records,
// while "radio" in English, 472,000 (9%), took 7.3 and 8.4.
const (
	columnMin   = 2048
	columnShare = 8
	columnFold  = 1<<16 - 1
	foldedShare = 16
)

// facetTask is the count of one facet: its column, the match set it
// counts and the top values found.
type facetTask struct {
	d      core.Dim
	except core.Dim // the filter left out of m: d when q filters on it, else noDim
	col    *facetColumn
	m      core.Set
	n      int
	Top    []core.TopCount
	// byRecords: counted in the pass over m's records
	byRecords bool
	// byFirsts: a distinct count, made from m's firsts (countFirsts);
	// extra is then its mixed groups' counts, added before ranking
	byFirsts bool
	extra    []core.ValueCount // by value id, ascending
	// bound: the memo's bound on the values of m (facetbound.go)
	bound memoBound
}

// Count counts the facets q asks for and names their values. matches
// is the search's match set, or with plain unset and built when needed
// (see facetTops).
func Count(s *core.Search, q core.Query, matches core.Set, plain bool) (core.Facets, error) {
	tasks, err := FacetTops(s, q, matches, plain)
	if err != nil {
		return core.Facets{}, err
	}
	var out core.Facets
	n := 0
	for d := range tasks {
		n += len(tasks[d].Top)
	}
	all := make([]core.FacetCount, n) // one allocation for every list
	for d := range tasks {
		t := &tasks[d]
		if t.col == nil {
			continue
		}
		list := all[:len(t.Top):len(t.Top)]
		all = all[len(t.Top):]
		for i, c := range t.Top {
			list[i] = core.FacetCount{Value: t.col.keys[c.ID], Count: c.N}
			if list[i].Label, err = facetLabel(s, t.d, t.col, c.ID); err != nil {
				return core.Facets{}, err
			}
		}
		out[d] = list
		s.Work.Tops[d] = t.Top[:0]
	}
	return out, nil
}

// facetTops finds the top values of each facet q asks for, in a task per
// facet; a facet not asked for has no column. Facets whose match set is
// the same and small are counted in one pass over its records.
//
// A set the memo knows by its stored lists (memoOf) is not built at all:
// with plain, the search's match set is built (plainMatches) only for a
// facet the memo does not answer.
func FacetTops(s *core.Search, q core.Query, matches core.Set, plain bool) ([core.NumDims]facetTask, error) {
	var tasks [core.NumDims]facetTask
	ops, exact, err := memoOperands(s, q)
	if err != nil {
		return tasks, err
	}
	memoOps := ops // the memo's own answers: only for q's set itself
	if !exact {
		memoOps = nil
	}
	filtered := q.Filter.Filtered()
	for d := range core.NumDims {
		if !q.Facets.Has(d) {
			continue
		}
		t := &tasks[d]
		t.d, t.except = d, core.NoDim
		if filtered.Has(d) {
			t.except = d
		}
		if t.col, err = column(s.Index, d); err != nil {
			return tasks, err
		}
		if fromMemo(s, t, memoOps, -1, q.FacetLimit, q.Distinct) {
			continue
		}
		if filtered.Has(d) && everyStationWithout(s, q, d) {
			t.Top = t.col.topOfEveryStation(s.Work.Tops[t.d][:0], q.FacetLimit, q.Distinct)
			continue
		}
		switch {
		case filtered.Has(d):
			t.m, err = s.MatchSet(q, d)
		case plain:
			matches, plain = core.PlainMatches(s), false
			t.m = matches
		default:
			t.m = matches
		}
		if err == nil && t.m.BM != nil && !t.m.Empty() {
			t.n = t.m.Card()
			t.bound = boundOf(s.Index, ops, t.except, d, q.Distinct)
			switch {
			case isEveryStation(s, t): // no memo entry holds every station
				t.Top = t.col.topOfEveryStation(s.Work.Tops[t.d][:0], q.FacetLimit, q.Distinct)
			case q.Distinct:
				switch {
				case fromMemo(s, t, memoOps, t.n, q.FacetLimit, true):
				case CountByFirsts && t.col.hasColumn():
					t.byFirsts = true
				default:
					t.Top, err = countDistinct(s, t, s.Work.Tops[t.d][:0], q.FacetLimit)
				}
			case !fromMemo(s, t, memoOps, t.n, q.FacetLimit, false):
				err = countTask(s, t, q.FacetLimit)
			}
		}
		if err != nil {
			return tasks, err
		}
	}
	if err := countDistinctTasks(s, &tasks, q.FacetLimit); err != nil {
		return tasks, err
	}
	return tasks, countGroups(s, &tasks, q.FacetLimit)
}

// fromMemo takes t's top k values from the memo when it knows t's set by
// its operands (see memoOf; n: the set's size once built, else -1), in
// groups with distinct.
func fromMemo(s *core.Search, t *facetTask, ops []core.MemoOperand, n, k int, distinct bool) bool {
	memo := memoOf(s.Index, ops, t.except, n)
	if memo == nil {
		return false
	}
	var ok bool
	if t.Top, ok = memo.tops(t.d, k, s.Work.Tops[t.d][:0], distinct); ok {
		s.MemoFacets++
	}
	return ok
}

// countTask counts t's top k values, or marks it to be counted record by
// record with the facets of the same set (countGroups).
func countTask(s *core.Search, t *facetTask, k int) (err error) {
	switch {
	case t.col.hasColumn() && (t.n <= columnMin || t.n*columnShare <= s.Stations) &&
		(t.n <= columnFold || t.n*foldedShare <= s.Stations):
		t.byRecords = true
	default:
		t.Top, err = countByPostings(s, t.col, t.m, s.Work.Tops[t.d][:0], k, nil, &t.bound)
	}
	return err
}

// everyStationWithout reports whether q matches every station once its
// filter of dimension d is left out: no words, no other filter. The facet
// of d is then the snapshot's own counts (topOfEveryStation), with no set
// of every station to build (a filter alone, paged deep: country=GB&offset=3100
// took four times its plain search to build and count that set).
func everyStationWithout(s *core.Search, q core.Query, d core.Dim) bool {
	return len(s.Work.Words) == 0 && q.Near == nil && q.BitrateMin == 0 && q.BitrateMax == 0 &&
		q.Filter.Filtered() == core.DimsOf(d)
}

// isEveryStation reports whether t counts the facet of every station.
func isEveryStation(s *core.Search, t *facetTask) bool {
	return t.n == s.Stations && int(t.m.BM.Maximum()) == t.n-1
}

// countGroups counts the tasks marked byRecords, those of one set in one
// pass over its records.
func countGroups(s *core.Search, tasks *[core.NumDims]facetTask, k int) error {
	for d := range tasks {
		if !tasks[d].byRecords {
			continue
		}
		var groupOf [core.NumDims]*facetTask
		group := groupOf[:0]
		for e := d; e < len(tasks); e++ {
			if tasks[e].byRecords && tasks[e].m.BM == tasks[d].m.BM {
				group = append(group, &tasks[e])
				tasks[e].byRecords = false
			}
		}
		if _, err := countByRecords(s, tasks[d].m, group, k, columnFold); err != nil {
			return err
		}
	}
	return nil
}

// insertCount puts c into top (most first, ties by value) and keeps k.
func (col *facetColumn) insertCount(top []core.TopCount, c core.TopCount, k int) []core.TopCount {
	less := func(a, b core.TopCount) int {
		if a.N != b.N {
			return cmp.Compare(b.N, a.N)
		}
		return cmp.Compare(col.byKey[a.ID], col.byKey[b.ID])
	}
	if len(top) == k && less(c, top[k-1]) >= 0 {
		return top
	}
	i, _ := slices.BinarySearchFunc(top, c, less)
	if len(top) == k {
		top = top[:k-1]
	}
	return slices.Insert(top, i, c)
}

// readGroups reads the values' group counts from listed_groups, which
// has one for every key of a facet's bucket.
func (col *facetColumn) readGroups(l *core.ListedGroups, bucket []byte) error {
	col.groups = make([]uint32, len(col.keys))
	col.byGroups = make([]uint32, len(col.keys))
	for id, key := range col.keys {
		n, err := l.Of(bucket, []byte(key))
		if err != nil {
			return err
		}
		col.groups[id], col.byGroups[id] = uint32(n), uint32(id)
	}
	slices.SortFunc(col.byGroups, func(a, b uint32) int {
		if c := cmp.Compare(col.groups[b], col.groups[a]); c != 0 {
			return c
		}
		return cmp.Compare(col.byKey[a], col.byKey[b])
	})
	return nil
}

// topOfAllGroups is the distinct top k when the search matches every
// station: the groups the indexer counted.
func (col *facetColumn) topOfAllGroups(top []core.TopCount, k int) []core.TopCount {
	for _, id := range col.byGroups {
		if len(top) == k || col.groups[id] == 0 {
			break
		}
		if !col.skip[id] {
			top = append(top, core.TopCount{ID: id, N: int(col.groups[id])})
		}
	}
	return top
}

// topOfEveryStation is the top k of a set of every station: the
// snapshot's own counts, of stations or, for a distinct search, of groups.
func (col *facetColumn) topOfEveryStation(top []core.TopCount, k int, distinct bool) []core.TopCount {
	if distinct {
		return col.topOfAllGroups(top, k)
	}
	return col.topOfAll(top, k)
}

// topOfAll is the top k when the search matches every station: the
// snapshot's own counts.
func (col *facetColumn) topOfAll(top []core.TopCount, k int) []core.TopCount {
	for id, n := range col.count {
		if len(top) == k || n == 0 {
			break
		}
		if !col.skip[id] {
			top = append(top, core.TopCount{ID: uint32(id), N: int(n)})
		}
	}
	return top
}

// countByRecords counts the values of m's records in the columns of the
// group's facets, in pooled 16-bit counters (folded into 32-bit ones
// every fold records, at most columnFold), then ranks the values met: the
// head part of each column in one pass over the records, then, in a
// second pass, the tails that could still matter.
//
// The pass is the cost of a faceted search over a mid-size set (a word and
// a country: a few thousand records, several genres each), so its inner
// loops only increment (see slotColumn), and no list of touched values is
// kept unless the set is small beside the number of values (see
// sparseFor). It says how it counted the tails (tailCounts).
func countByRecords(s *core.Search, m core.Set, group []*facetTask, k, fold int) (tailCounts, error) {
	return countRecordsOf(s, records{bm: m.BM, n: m.Card()}, group, k, fold)
}

// records is what a count by records visits: a set's records (bm), or a
// list of them, ascending; n bounds any count (the set's size).
type records struct {
	bm   *roaring.Bitmap
	list []uint32
	n    int
	// it and buf iterate bm (nil: the workspace's; see countHeads)
	it  *roaring.ManyIntIterator
	buf []uint32
}

// each calls fn with the records, many at a time.
func (src records) each(s *core.Search, fn func(recs []uint32)) {
	buf, it := src.buf, src.it
	if buf == nil {
		buf, it = core.RecordBuffer(s), &s.Work.Many
	}
	if src.bm == nil {
		for i := 0; i < len(src.list); i += len(buf) {
			fn(src.list[i:min(i+len(buf), len(src.list))])
		}
		return
	}
	it.Initialize(src.bm)
	for got := it.NextMany(buf); got > 0; got = it.NextMany(buf) {
		fn(buf[:got])
	}
	*it = roaring.ManyIntIterator{}
}

// countRecordsOf is countByRecords over src; a task's extra counts are
// added to its values' before they are ranked. The tails that could
// still matter are counted in a second pass, or, where few of their
// values could still enter, by those values' posting lists (tailPostings).
func countRecordsOf(s *core.Search, src records, group []*facetTask, k, fold int) (tails tailCounts, err error) {
	for _, t := range group {
		t.Top = s.Work.Tops[t.d][:0]
	}
	m, n := src, src.n
	var lists listTasks
	var passOf [core.NumDims]*facetTask
	pass := passOf[:0]
	for _, t := range group {
		if t.col.byPostings(src.size()) {
			lists.whole[lists.nWhole] = t
			lists.nWhole++
		} else {
			pass = append(pass, t)
		}
	}
	countHeads(s, src, fold, pass, k)
	countPart(s, m, n, fold, group, k, func(t *facetTask) *slotColumn {
		switch {
		case t.col.tail.values == 0 || t.col.byPostings(src.size()):
			return nil
		case !t.col.mayEnter(t.Top, t.col.tail.base, k):
			tails.skipped++
			return nil
		case t.col.tailPostings(t.Top, k, src.size()):
			lists.tails[lists.nTails] = t
			lists.nTails++
			return nil
		}
		return &t.col.tail
	})
	tails.byPostings, tails.wholeByPostings = lists.nTails, lists.nWhole
	return tails, lists.count(s, src, k)
}

// partCount is one part's counters during a countPart: 16-bit ones that
// the records are counted into, and, for a set of more than the fold,
// 32-bit ones they are added to every fold records.
type partCount struct {
	p      *slotColumn
	narrow []uint16
	wide   []uint32 // nil: the set is counted in narrow alone
	sparse bool
}

// countPart counts part(t) of each task's column (none where it is nil)
// over m's n records in one pass, and ranks it into t.top.
func countPart(s *core.Search, m records, n, fold int, group []*facetTask, k int, part func(*facetTask) *slotColumn) {
	var pcs [core.NumDims]partCount
	if !partCounters(s, pcs[:len(group)], n, fold, group, part) {
		return
	}
	w := s.Work
	since := 0 // records counted since the last fold
	m.each(s, func(recs []uint32) {
		if since+len(recs) > fold {
			foldCounts(pcs[:len(group)])
			since = 0
		}
		since += len(recs)
		for j := range group {
			switch pc := &pcs[j]; {
			case pc.p == nil:
			case pc.sparse:
				d := group[j].d
				w.Touched[d] = pc.p.countSparse(recs, pc.narrow, w.Touched[d])
			default:
				pc.p.countRecords(recs, pc.narrow)
			}
		}
	})
	foldCounts(pcs[:len(group)])
	for j, t := range group {
		if t.extra != nil && pcs[j].p != nil {
			pcs[j].add(t.extra, &w.Touched[t.d])
		}
	}
	for j, t := range group {
		switch pc := &pcs[j]; {
		case pc.p == nil:
		case pc.sparse:
			t.Top = t.col.rankTouched(pc.p, pc.narrow, w.Touched[t.d], t.Top, k)
		case pc.wide != nil:
			t.Top = rankDense(t.col, pc.p, pc.wide, t.Top, k)
		default:
			t.Top = rankDense(t.col, pc.p, pc.narrow, t.Top, k)
		}
	}
}

// partCounters sets up the counters of each task's part, from the
// workspace's pools, and reports whether any part is to be counted. A
// set of more than fold records is counted densely, and gets 32-bit
// counters too: fold is far above the sets sparseFor takes.
func partCounters(s *core.Search, pcs []partCount, n, fold int, group []*facetTask, part func(*facetTask) *slotColumn) bool {
	w := s.Work
	counting := false
	for j, t := range group {
		p := part(t)
		if p == nil {
			continue
		}
		size := p.counters()
		pcs[j] = partCount{p: p, narrow: pooledCounters(&w.Counts[t.d], size), sparse: p.sparseFor(n) && n <= fold}
		switch {
		case pcs[j].sparse:
			w.Touched[t.d] = w.Touched[t.d][:0]
		case n > fold:
			pcs[j].wide = pooledCounters(&w.Wide[t.d], size)
		}
		counting = true
	}
	return counting
}

// add adds counts (by value id) to the part's counters of their values,
// the first set of them, listing a sparse count's newly raised counters
// in touched. The counters hold them: the counts of a set never pass its
// size, which chose narrow or wide counters.
func (pc *partCount) add(counts []core.ValueCount, touched *[]uint16) {
	for _, c := range counts {
		i := int(c.ID) - pc.p.base
		if i < 0 || i >= pc.p.values {
			continue
		}
		v, n := spareSlots+i, c.N
		switch {
		case pc.wide != nil:
			pc.wide[v] += n
		case pc.sparse && pc.narrow[v] == 0:
			*touched = append(*touched, uint16(v))
			fallthrough
		default:
			pc.narrow[v] += uint16(n)
		}
	}
}

// pooledCounters is the first size counters of a workspace pool, which
// holds zeros between uses; it grows the pool when it is shorter.
func pooledCounters[C uint16 | uint32](pool *[]C, size int) []C {
	if len(*pool) < size {
		*pool = make([]C, size)
	}
	return (*pool)[:size]
}

// foldCounts adds the 16-bit counters of each part that has 32-bit ones
// to them, and clears them.
func foldCounts(pcs []partCount) {
	for i := range pcs {
		pc := &pcs[i]
		if pc.wide == nil {
			continue
		}
		for c, v := range pc.narrow {
			pc.wide[c] += uint32(v)
		}
		clear(pc.narrow)
	}
}

// denseOf writes m out as a bitset of the index's stations, in a pooled
// buffer. Records past the stations (only a damaged index has them) are
// left out, so that the buffer's size is bounded by the index's own count.
func denseOf(s *core.Search, m core.Set) []uint64 {
	words := (s.Stations + 63) / 64
	dense := s.Work.DenseBuffer(words)
	if !m.Empty() && int(m.BM.Maximum()) >= s.Stations {
		in := s.Work.Scratch()
		in.BM.AddRange(0, uint64(s.Stations))
		m = s.Work.And(in, m)
	}
	m.BM.WriteDenseTo(dense)
	return dense
}

// offer is insertCount behind the common rejection: most values met count
// fewer than the k-th so far.
func (col *facetColumn) offer(top []core.TopCount, c core.TopCount, k int) []core.TopCount {
	if len(top) == k && c.N < top[k-1].N {
		return top
	}
	return col.insertCount(top, c, k)
}

package facets

import (
	"cmp"
	"fmt"
	"slices"

	"stationdex/query/core"
	"stationdex/query/rawroaring"
)

// The parts of a count by records that cost less by posting lists: the
// facets of few values, and the tails of which few values could still
// enter the top k. A pass over a broad set's records waits on memory for
// every cache line of every column it reads (at 5M stations, "fm the"'s
// 244,000 records meet most lines of each column: 1.3 to 2 ms a facet,
// whatever its values), where a value's posting list is read in order and
// tested against the set written out as a bitset, which stays in the
// cache.

// A facet of few values (codecs, working) has few long lists, mostly
// bitmap containers, tested a word at a time: the two of "working" cost
// about 0.1 ms against a set of any size at 5M stations.

// CountColumnsByPostings lets a count by records count a facet by its
// posting lists when they cost less (byPostings); false always passes
// over the records (a variable for the tests of both ways).
var CountColumnsByPostings = true

// Costs, in about half a nanosecond each at 5M stations: a value of an
// array container tested against the bitset (a load from the L2 cache at
// a place the value gives), a word of a bitmap (a dense copy is ANDed a
// few words at once), a run, and a record of a pass over a width-1
// column. They are rough, and lean towards the pass: a facet of many
// values with lists of every size (countries, languages) stays with it,
// and only one whose lists are few and long (codecs, working) leaves.
const (
	costArrayValue = 3
	costBitmap     = rawroaring.BitmapBytes / 8 / 4
	costDenseBlock = rawroaring.BitmapBytes / 8 / 8
	costRun        = 4
	costRecord     = 2
)

// postingCost is the cost of testing every value's posting list against
// a bitset (see the costs above).
func (col *facetColumn) postingCost(cs []rawroaring.Container) int {
	total := 0
	for id, v := range col.postings {
		cs, err := rawroaring.Parse(v, cs)
		if err != nil {
			return -1 // fill reports it
		}
		var blocks []rawroaring.DenseBlock
		if id < len(col.dense) {
			blocks = col.dense[id]
		}
		for _, c := range cs {
			for len(blocks) > 0 && blocks[0].Key < c.Key {
				blocks = blocks[1:]
			}
			switch {
			case c.Kind == rawroaring.Array && len(blocks) > 0 && blocks[0].Key == c.Key:
				total += costDenseBlock
			case c.Kind == rawroaring.Array:
				total += costArrayValue * c.Card
			case c.Kind == rawroaring.Bitmap:
				total += costBitmap
			default:
				total += costRun * len(c.Data) / 4
			}
		}
	}
	return total
}

// byPostings reports whether counting the whole facet by posting lists
// against a set of n records, written out as a bitset of the stations,
// costs less than a pass over the records in the column.
func (col *facetColumn) byPostings(n int) bool {
	return CountColumnsByPostings && col.listCost >= 0 && col.listCost+col.stations/64 < costRecord*n
}

// A tail's values are the facet's rarest (see facetColumn): once the head
// is counted, only those with at least the k-th count in the whole
// snapshot could still enter the top k, and they come first in the tail.
// A broad set often leaves a few dozen of them: at 5M stations "fm the"
// (244,000 records) needed the genres down to about 6,000 stations, a
// few dozen of the 10,081 in the tail, where a second pass over the set's
// records read the tail's column (20 MB) and its overflow, 4 ms of its
// 8.6 ms genre count. Their posting lists, tested against the set
// written out as a bitset, cost a fraction of that.

// CountTailsByPostings lets a count by records count a tail by posting
// lists when that is cheaper (tailPostings); false always passes over the
// records (a variable for the tests of both ways).
var CountTailsByPostings = true

// tailPostingShare weighs an entry of a posting list, tested against a
// bitset that stays in the cache, against a record of a pass over the
// tail's column, which waits on memory: the lists are read when they hold
// fewer than tailPostingShare entries per record of the set.
const tailPostingShare = 4

// tailCounts says how a count by records counted the tails: how many it
// left out, no value of theirs being able to enter, and how many it
// counted by posting lists (and how many whole facets).
type tailCounts struct {
	skipped, byPostings int
	// wholeByPostings: the facets counted by posting lists, head and tail
	wholeByPostings int
}

// tailPostings reports whether the values of the tail that could still
// enter top (the k best so far) hold fewer entries in their posting lists
// than tailPostingShare times the n records of the set.
func (col *facetColumn) tailPostings(top []core.TopCount, k, n int) bool {
	if !CountTailsByPostings || len(top) < k {
		return false
	}
	need, budget := top[k-1].N, tailPostingShare*n
	for id := col.tail.base; id < len(col.count) && col.mayEnter(top, id, k); id++ {
		if budget -= int(col.count[id]); budget < 0 {
			return false
		}
	}
	return need > 0
}

// listTasks is the tasks of a count by records counted by posting
// lists: whole (byPostings), or their tails only, into the top their
// heads left.
type listTasks struct {
	whole, tails   [core.NumDims]*facetTask
	nWhole, nTails int
}

// count counts the tasks against src written out as a bitset, adding
// each task's extra counts.
func (l *listTasks) count(s *core.Search, src records, k int) error {
	if l.nWhole+l.nTails == 0 {
		return nil
	}
	dense := denseOfRecords(s, src)
	var err error
	for _, t := range l.whole[:l.nWhole] {
		if t.Top, err = countDense(s, t.col, dense, s.Work.Tops[t.d][:0], k, nil, t.extra, 0, &t.bound); err != nil {
			return err
		}
	}
	for _, t := range l.tails[:l.nTails] {
		if t.Top, err = countDense(s, t.col, dense, t.Top, k, nil, t.extra, t.col.tail.base, &t.bound); err != nil {
			return err
		}
	}
	return nil
}

// size is the number of records src visits.
func (src records) size() int {
	if src.bm == nil {
		return len(src.list)
	}
	return src.n
}

// denseOfRecords writes src out as a bitset of the index's stations, as
// denseOf does a set.
func denseOfRecords(s *core.Search, src records) []uint64 {
	if src.bm != nil {
		return denseOf(s, core.Set{BM: src.bm})
	}
	dense := s.Work.DenseBuffer((s.Stations + 63) / 64)
	for _, r := range src.list {
		if int(r) < s.Stations { // past the records: a damaged list, left out as denseOf does
			dense[r>>6] |= 1 << (r & 63)
		}
	}
	return dense
}

// countByPostings counts the values by intersecting m, written out as a
// dense bitset, with each value's posting list read in place, most
// stations first: once a value has fewer stations in the whole snapshot
// than the k-th best count so far, no later one can enter. Each value's
// duplicates in dups (none when nil) are taken off its count: a distinct
// search counts groups, never more than records, so the bound holds. b is
// the memo's bound on the values (see facetbound.go; nil or empty: none).
func countByPostings(s *core.Search, col *facetColumn, m core.Set, top []core.TopCount, k int, dups valueDuplicates, b *memoBound) ([]core.TopCount, error) {
	return countDense(s, col, denseOf(s, m), top, k, dups, nil, 0, b)
}

// countDense is countByPostings of a set written out as dense, from
// value id from on; each value's count in extra (by id, ascending; none
// when nil) is added to its own. The values b's tightest list names are
// counted first; the others only while one of them could still enter.
func countDense(s *core.Search, col *facetColumn, dense []uint64, top []core.TopCount, k int, dups valueDuplicates, extra []core.ValueCount, from int, b *memoBound) ([]core.TopCount, error) {
	cs := s.Work.Raw2[:0]
	defer func() { s.Work.Raw2 = cs[:0] }()
	v := valueCounter{s: s, col: col, dense: dense, dups: dups, extra: extra, b: b, k: k}
	var err error
	first := b.first()
	for _, c := range first {
		if id := int(c.ID); id >= from && id < len(col.keys) && col.mayEnter(top, id, k) {
			if top, cs, err = v.offer(top, cs, id); err != nil {
				return nil, err
			}
		}
	}
	for id := from; id < len(col.keys); id++ {
		if !col.mayEnter(top, id, k) {
			break
		}
		if len(top) == k && b.leavesOut(top[k-1].N) {
			s.MemoBounded++
			break
		}
		if first != nil && listed(first, uint32(id)) {
			continue // counted above
		}
		if top, cs, err = v.offer(top, cs, id); err != nil {
			return nil, err
		}
	}
	return top, nil
}

// valueCounter counts one value at a time for countDense.
type valueCounter struct {
	s     *core.Search
	col   *facetColumn
	dense []uint64
	dups  valueDuplicates
	extra []core.ValueCount
	b     *memoBound
	k     int
}

// offer counts value id's stations (or groups) in the set and puts it in
// top when it enters; cs is a buffer for its containers.
func (v *valueCounter) offer(top []core.TopCount, cs []rawroaring.Container, id int) ([]core.TopCount, []rawroaring.Container, error) {
	col, k := v.col, v.k
	if col.skip[id] {
		return top, cs, nil
	}
	need := 0
	if len(top) == k {
		need = top[k-1].N
	}
	if v.b != nil && v.b.n > 0 && v.b.of(uint32(id)) < need {
		return top, cs, nil
	}
	var err error
	if cs, err = rawroaring.Parse(col.postings[id], cs); err != nil {
		return top, cs, fmt.Errorf("facet %q: %w", col.keys[id], err)
	}
	var blocks []rawroaring.DenseBlock
	if id < len(col.dense) {
		blocks = col.dense[id]
	}
	x := 0
	if i, ok := slices.BinarySearchFunc(v.extra, uint32(id), func(c core.ValueCount, id uint32) int { return cmp.Compare(c.ID, id) }); ok {
		x = int(v.extra[i].N)
	}
	// AndCount is exact from need-x up, and duplicates only lower it
	n := rawroaring.AndCount(cs, blocks, v.dense, max(need-x, 0), int(col.count[id])) + x
	if n == 0 || n < need {
		return top, cs, nil
	}
	if v.dups != nil {
		d, err := v.dups.Of(uint32(id))
		if err != nil {
			return top, cs, err
		}
		n -= d
	}
	if n > 0 && n >= need {
		top = col.insertCount(top, core.TopCount{ID: uint32(id), N: n}, k)
	}
	return top, cs, nil
}

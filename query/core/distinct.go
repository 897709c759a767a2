package core

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"stationdex/internal/format"
)

// Distinct searches: one result per group (see format's Groups). A
// group's result is its best-ranked entry for the search, at that entry's
// place, so the order stays name_match_then_alphabetical and each group
// appears where its first entry would. The later entries of a group are
// its duplicates in the search: ranked order is tier, then record number,
// so a tier's duplicates are the entries of groups met in an earlier tier
// or earlier in the same tier. Every other entry counts once, so
//
//	groups(M) = |M| − |duplicates in M|
//
// and only the entries of M that share a group (groupIndex.grouped, about
// a quarter of the real snapshot) are looked up. Facets count groups too: a
// value's count is the number of groups with an entry in the search that
// has the value, which is the total of the distinct search with that
// filter added, as facet counts are for records.

// groupIndex is what distinct searches read beyond group_of, made once
// per Index from its group_of blocks.
type groupIndex struct {
	grouped *roaring.Bitmap // the entries of groups of two or more
	// later: the grouped entries after their group's first (smallest
	// record number): the duplicates of a search that matches every
	// station in one tier
	later *roaring.Bitmap
	// compact is each record's group numbered 1..groups, 0 for an entry
	// that stands alone: one load per entry where group_of takes a block
	// lookup, and a set of met groups of a few hundred words where group
	// ids reach every record number (4 bytes a station: 20 MB at 5M).
	// The groups that are not runs (see byWord) come first, in the order
	// of their first entries, then the runs: counting a broad search
	// looks up only the former, whose bits of a groupSet then lie
	// together.
	compact []uint32
	groups  int
	// isGrouped is grouped as a bit per record, for broad searches (see
	// eachShared)
	isGrouped []uint64
	// A run is a group whose entries are consecutive records under one
	// container key: most groups, whose entries share a name. byWord and
	// runNext, a bit per record, are the entries that stand alone or are
	// in a run, and the entries of runs but each run's first. keyGroups
	// counts the former a word at a time, less duplicates found from
	// runNext, where other grouped entries are looked up one by one.
	byWord, runNext []uint64
}

type lazyGroupIndex struct {
	once sync.Once
	gi   *groupIndex
	err  error
}

// groupIndex builds the group index on first use, from s's reader.
func (s *Search) groupIndex() (*groupIndex, error) {
	l := &s.Index.groups
	l.once.Do(func() { l.gi, l.err = s.buildGroupIndex() })
	return l.gi, l.err
}

// warmGroups builds the group index now (see Warm).
func (ix *Index) warmGroups() error {
	return ix.withSearch(func(s *Search) error { _, err := s.groupIndex(); return err })
}

// buildGroupIndex reads every record's group in record order.
func (s *Search) buildGroupIndex() (*groupIndex, error) {
	gi := &groupIndex{grouped: roaring.New(), later: roaring.New(), compact: make([]uint32, s.stations)}
	numbered := make([]uint32, s.stations) // group_of's id → its compact number
	gr := s.groupReader()
	var grouped, later []uint32
	for r := range uint32(s.stations) {
		g, err := gr.of(r)
		if err != nil {
			return nil, err
		}
		if g == format.NoGroup {
			continue
		}
		if int(g) >= len(numbered) {
			return nil, fmt.Errorf("%w: group %d past the records", format.ErrCorrupt, g)
		}
		grouped = append(grouped, r)
		c := numbered[g]
		if c != 0 {
			later = append(later, r)
		} else {
			gi.groups++
			c = uint32(gi.groups)
			numbered[g] = c
		}
		gi.compact[r] = c
	}
	gi.grouped.AddMany(grouped)
	gi.isGrouped = make([]uint64, (s.stations+63)/64)
	gi.grouped.WriteDenseTo(gi.isGrouped)
	gi.markRuns(grouped)
	gi.later.AddMany(later)
	gi.grouped.RunOptimize()
	gi.later.RunOptimize()
	return gi, nil
}

// markRuns sets byWord and runNext from the grouped entries, ascending,
// and numbers the groups again, those outside runs first (see compact).
func (gi *groupIndex) markRuns(grouped []uint32) {
	first := make([]uint32, gi.groups+1)
	last := make([]uint32, gi.groups+1)
	size := make([]uint32, gi.groups+1)
	for _, r := range grouped {
		c := gi.compact[r]
		if size[c] == 0 {
			first[c] = r
		}
		last[c] = r
		size[c]++
	}
	isRun := func(c uint32) bool { return last[c]-first[c]+1 == size[c] && first[c]>>16 == last[c]>>16 }
	renumbered, loose := make([]uint32, gi.groups+1), uint32(0)
	for c := uint32(1); c <= uint32(gi.groups); c++ {
		if !isRun(c) {
			loose++
			renumbered[c] = loose
		}
	}
	runs := loose
	gi.byWord = make([]uint64, len(gi.isGrouped))
	for i, g := range gi.isGrouped {
		gi.byWord[i] = ^g
	}
	gi.runNext = make([]uint64, len(gi.isGrouped))
	for c := uint32(1); c <= uint32(gi.groups); c++ {
		if isRun(c) {
			runs++
			renumbered[c] = runs
		}
	}
	for _, r := range grouped {
		c := gi.compact[r]
		gi.compact[r] = renumbered[c]
		if renumbered[c] <= loose {
			continue
		}
		gi.byWord[r>>6] |= 1 << (r & 63)
		if r != first[c] {
			gi.runNext[r>>6] |= 1 << (r & 63)
		}
	}
}

// everyStation is the number of groups among all of the index's
// stations: each entry but the later ones of its group.
func (gi *groupIndex) everyStation(stations int) int {
	return stations - int(gi.later.GetCardinality())
}

// groupReader reads records' groups from group_of, one block at a time.
type groupReader struct {
	bucket valueGetter
	blocks [][]byte // located blocks, or nil: look each up by key
	block  uint32
	data   []byte
	key    []byte
}

func (s *Search) groupReader() groupReader {
	return groupReader{bucket: s.Bucket(format.BucketGroupOf), blocks: s.blocksOf(format.BucketGroupOf)}
}

// of is record r's group, format.NoGroup when it stands alone.
func (gr *groupReader) of(r uint32) (uint32, error) {
	b, slot := format.BlockOf(r)
	if gr.data == nil || b != gr.block {
		switch {
		case int(b) < len(gr.blocks):
			gr.data = gr.blocks[b]
		case gr.blocks != nil:
			gr.data = nil
		default:
			gr.key = append(gr.key[:0], format.BlockKey(b)...)
			gr.data = gr.bucket.Get(gr.key)
		}
		if gr.data == nil {
			return 0, fmt.Errorf("%w: no group_of block %d", format.ErrCorrupt, b)
		}
		gr.block = b
	}
	if 4*slot+4 > len(gr.data) {
		return 0, fmt.Errorf("%w: group_of block %d has no slot %d", format.ErrCorrupt, b, slot)
	}
	return binary.BigEndian.Uint32(gr.data[4*slot:]), nil
}

// distinctTiers replaces each tier by its entries that are not
// duplicates (see the comment at the top): the sizes then count groups,
// and locate pages through them as through any tiers.
func (s *Search) distinctTiers(q Query) error {
	gi, err := s.groupIndex()
	if err != nil {
		return err
	}
	tiers := s.Work.tiers
	if len(tiers) == 1 && tiers[0].n == s.stations {
		tiers[0] = tier{of: tiers[0].of, minus: Set{BM: gi.later}, n: gi.everyStation(s.stations)}
		return nil
	}
	if len(tiers) == 1 && tiers[0].n > 0 {
		if n, ok, err := s.storedGroups(q); err != nil || ok {
			tiers[0] = tier{of: tiers[0].of, n: n, walk: true}
			return err
		}
	}
	seen := gi.newSeen(&s.Work.seen) // the groups met so far
	before := 0                      // groups in the tiers before
	for i, t := range tiers {
		if t.n == 0 {
			continue
		}
		m := s.members(t)
		dups, n, err := s.duplicates(m, gi, seen, q.Offset+q.Limit-before)
		if err != nil {
			return err
		}
		tiers[i] = tier{of: m, minus: dups, n: t.n - n}
		before += tiers[i].n
	}
	return nil
}

// storedGroups is the number of groups a search matches when the indexer
// counted them: a search of one filter value and nothing else matches
// one stored list, and listed_groups counts the groups of every list of
// the directory and facet buckets (format.GroupCountedBuckets). Such a
// search is a directory page, or a link from one: its total is then read,
// and only the page's part of the list is walked (walkDistinct), where
// finding every duplicate looked up each grouped entry of the list.
func (s *Search) storedGroups(q Query) (n int, ok bool, err error) {
	if len(s.Work.Words) > 0 || q.Near != nil || q.BitrateMin > 0 || q.BitrateMax > 0 {
		return 0, false, nil
	}
	only := NoDim
	for d := range NumDims {
		if len(q.Filter[d]) == 0 {
			continue
		}
		if only != NoDim || len(q.Filter[d]) > 1 {
			return 0, false, nil
		}
		only = d
	}
	if only == NoDim {
		return 0, false, nil
	}
	bucket, key := Dims[only].key(s.Work.key[:0], q.Filter[only][0])
	s.Work.key = key
	if !slices.ContainsFunc(format.GroupCountedBuckets, func(b []byte) bool { return bytes.Equal(b, bucket) }) {
		return 0, false, nil
	}
	s.Work.listedKey = format.AppendListedGroupsKey(s.Work.listedKey[:0], bucket, key)
	v := s.Bucket(format.BucketListedGroups).Get(s.Work.listedKey)
	if v == nil {
		return 0, false, fmt.Errorf("%w: no listed_groups entry for %s %q", format.ErrCorrupt, bucket, key)
	}
	n, err = format.ParseListedGroups(v)
	return n, err == nil, err
}

// walkDistinct collects the page of a tier left to walk (see tier): its
// entries in order from the first, each group's first only, skipping skip
// of them. The groups met are kept in w.seen, so this is for a search of
// one tier.
func (s *Search) walkDistinct(t tier, skip, limit int) error {
	gi, err := s.groupIndex()
	if err != nil {
		return err
	}
	seen := gi.newSeen(&s.Work.seen)
	return s.EachBatch(t.of.BM, func(batch []uint32) error {
		for _, r := range batch {
			if !gi.firstIn(seen, r) {
				continue
			}
			if skip > 0 {
				skip--
				continue
			}
			if s.Work.recs = append(s.Work.recs, r); len(s.Work.recs) == limit {
				return errEnough
			}
		}
		return nil
	})
}

// eachBatch calls fn with the records of bm in ascending order, many at
// a time (the workspace's iterator and buffer), until fn returns an
// error; errEnough ends the walk without one.
func (s *Search) EachBatch(bm *roaring.Bitmap, fn func(batch []uint32) error) error {
	buf := s.recordBuffer()
	it := &s.Work.many
	it.Initialize(bm)
	defer func() { *it = roaring.ManyIntIterator{} }()
	for got := it.NextMany(buf); got > 0; got = it.NextMany(buf) {
		if err := fn(buf[:got]); err != nil {
			if err == errEnough {
				return nil
			}
			return err
		}
	}
	return nil
}

// errEnough stops eachBatch early: the caller has what it wanted.
var errEnough = errors.New("enough records")

// compactOf is record r's compact group number (see compact); a record
// past the records is a damaged posting list.
func (gi *groupIndex) compactOf(r uint32) (uint32, error) {
	if int(r) >= len(gi.compact) {
		return 0, fmt.Errorf("%w: record %d past the records in a posting list", format.ErrCorrupt, r)
	}
	return gi.compact[r], nil
}

// newSeen empties seen, the groups met by a search, for this index's
// groups.
func (gi *groupIndex) newSeen(seen *groupSet) *groupSet {
	seen.reset(gi.groups + 1)
	return seen
}

// firstIn reports whether record r is the first of its group met,
// adding the group to seen: true for an entry that stands alone. seen is
// newSeen's, so every compact number has its bit. A record past the
// records (a damaged posting list) counts as alone: reading its record
// reports the damage.
func (gi *groupIndex) firstIn(seen *groupSet, r uint32) bool {
	if int(r) >= len(gi.compact) || gi.compact[r] == 0 {
		return true
	}
	c := gi.compact[r]
	w, bit := c>>6, uint64(1)<<(c&63)
	x := seen.words[w]
	if x&bit != 0 {
		return false
	}
	if x == 0 {
		seen.touched = append(seen.touched, w)
	}
	seen.words[w] = x | bit
	return true
}

// duplicates counts the entries of m whose group is in seen or met
// before them in m, and adds m's groups to seen. Only m's grouped entries
// can be either (eachShared), so the lookups see about a quarter of m on
// the real snapshot. The set returned holds the duplicates only up to
// the page's end, m's upto-th entry that is not one (see pageEnd):
// collectTier locates the page by rank and passes over duplicates up to
// its last record, and never looks further, so a broad search does not
// build a set of thousands of duplicates for a page of twenty.
func (s *Search) duplicates(m Set, gi *groupIndex, seen *groupSet, upto int) (Set, int, error) {
	found := s.Work.GroupIDs[:0]
	defer func() { s.Work.GroupIDs = found[:0] }()
	end, err := s.pageEnd(m, upto)
	if err != nil {
		return Set{}, 0, err
	}
	n := 0
	err = s.eachShared(m, gi, func(batch []uint32) error {
		for _, r := range batch {
			if gi.firstIn(seen, r) {
				continue
			}
			n++
			if end.covers(r) {
				found = append(found, r)
				end.passDuplicate()
			}
		}
		return nil
	})
	dups := s.Work.Scratch()
	dups.BM.AddMany(found)
	return dups, n, err
}

// eachShared calls fn with m's grouped entries in ascending order, many
// at a time. A narrow m is intersected with the grouped entries (roaring
// works a container at a time); a broad one, a sixteenth of the stations
// or more, is written out as a bit per record and walked a word at a time
// against isGrouped, which costs a word per 64 stations however many of
// m's entries are grouped: the one-letter searches of the real snapshot
// spent a third of their time building the intersection and iterating it.
func (s *Search) eachShared(m Set, gi *groupIndex, fn func(batch []uint32) error) error {
	if m.Card()*denseShare < s.stations || m.Empty() || int(m.BM.Maximum()) >= s.stations {
		shared := s.Work.And(Set{BM: gi.grouped}, m)
		return s.EachBatch(shared.BM, fn)
	}
	words := s.denseWords()
	m.BM.WriteDenseTo(words)
	buf, n := s.recordBuffer(), 0
	for i, w := range words {
		w &= gi.isGrouped[i]
		for ; w != 0; w &= w - 1 {
			buf[n] = uint32(i<<6 + bits.TrailingZeros64(w))
			if n++; n == len(buf) {
				if err := fn(buf); err != nil {
					return err
				}
				n = 0
			}
		}
	}
	if n == 0 {
		return nil
	}
	return fn(buf[:n])
}

// denseShare: a tier of at least stations/denseShare entries is walked
// as a bit per record (eachShared).
const denseShare = 16

// denseWords is the workspace's bit-per-record buffer, cleared.
func (s *Search) denseWords() []uint64 {
	n := (s.stations + 63) / 64
	if cap(s.Work.tierBits) < n {
		s.Work.tierBits = make([]uint64, n)
	}
	s.Work.tierBits = s.Work.tierBits[:n]
	clear(s.Work.tierBits)
	return s.Work.tierBits
}

// pageEnd follows the last record of a page in a tier as its duplicates
// are found in ascending order: it starts at the tier's upto-th entry and
// moves to the next entry for each duplicate found up to it. Duplicates
// are found in ascending order, so once one lies past it the end is
// final: the upto-th entry that is not a duplicate.
type pageEnd struct {
	it    roaring.IntPeekable
	at    uint32
	every bool // the page goes past the tier: every duplicate is kept
	none  bool // the page ends before the tier
}

func (s *Search) pageEnd(m Set, upto int) (pageEnd, error) {
	switch {
	case upto <= 0:
		return pageEnd{none: true}, nil
	case upto > m.Card():
		return pageEnd{every: true}, nil
	}
	first, err := m.BM.Select(uint32(upto - 1))
	if err != nil {
		return pageEnd{}, err
	}
	it := m.BM.Iterator()
	it.AdvanceIfNeeded(first)
	it.Next()
	return pageEnd{it: it, at: first}, nil
}

// covers reports whether duplicate r lies before the page's end or on it.
func (e *pageEnd) covers(r uint32) bool { return e.every || (!e.none && r <= e.at) }

// passDuplicate moves the end one entry on, past a duplicate it covered;
// a tier that runs out leaves every later duplicate covered.
func (e *pageEnd) passDuplicate() {
	if e.every {
		return
	}
	if !e.it.HasNext() {
		e.every = true
		return
	}
	e.at = e.it.Next()
}

// recordBuffer is the workspace's buffer for records read many at a time.
func (s *Search) recordBuffer() []uint32 {
	if len(s.Work.recBuf) == 0 {
		s.Work.recBuf = make([]uint32, 256)
	}
	return s.Work.recBuf
}

// variantCounts is, for each record of the page, the number of other
// entries in its group.
func (s *Search) variantCounts() ([]int, error) {
	if len(s.Work.recs) == 0 {
		return nil, nil
	}
	out := make([]int, len(s.Work.recs))
	gr := s.groupReader()
	groups := s.Bucket(format.BucketGroups)
	for i, r := range s.Work.recs {
		g, err := gr.of(r)
		if err != nil || g == format.NoGroup {
			if err != nil {
				return nil, err
			}
			continue
		}
		s.Work.key = binary.BigEndian.AppendUint32(s.Work.key[:0], g) // format.GroupKey
		members := groups.Get(s.Work.key)
		if len(members) < 8 || len(members)%4 != 0 {
			return nil, fmt.Errorf("%w: record %d in group %d, which is not stored or is damaged", format.ErrCorrupt, r, g)
		}
		out[i] = len(members)/4 - 1
	}
	return out, nil
}

// countDistinct counts groups as countByPostings counts records, less
// each value's duplicates. With few shared entries in m, the duplicates
// of every value are counted at once (duplicateCounts); with many, only
// those of the values that could enter the top k, one by one
// (duplicatesByValue): counting all would sort millions of value-group
// pairs at 5M stations.
func (s *Search) countDistinct(col *facetColumn, m Set, top []topCount, k int) ([]topCount, error) {
	gi, err := s.groupIndex()
	if err != nil {
		return nil, err
	}
	shared := s.sharedOf(m, gi)
	if shared.Card() > pairedMax {
		return s.countByPostings(col, m, top, k, &duplicatesByValue{s: s, gi: gi, col: col, shared: shared.BM, value: s.Work.bitmap()})
	}
	dups, done, err := s.valueDuplicates(col, shared, gi)
	if err != nil {
		return nil, err
	}
	defer done()
	return s.countByPostings(col, m, top, k, dups)
}

// pairedMax is the most shared entries whose value-group pairs are
// sorted at once (a variable for the tests of both ways).
var pairedMax = 1 << 14

// valueDuplicates is a value's duplicates in a search: its entries in the
// search whose group has another, earlier, with the value.
type valueDuplicates interface {
	of(id uint32) (int, error)
}

// duplicatesByValue counts a value's duplicates when asked: the groups
// of its shared entries, in the search's group set.
type duplicatesByValue struct {
	s      *Search
	gi     *groupIndex
	col    *facetColumn
	shared *roaring.Bitmap
	value  *roaring.Bitmap // the value's posting list, read in place
}

func (d *duplicatesByValue) of(id uint32) (int, error) {
	if _, err := d.value.FromBuffer(d.col.postings[id]); err != nil {
		return 0, fmt.Errorf("%w: facet %q: %v", format.ErrCorrupt, d.col.keys[id], err)
	}
	seen := d.gi.newSeen(&d.s.Work.seen)
	dups := 0
	err := d.s.EachBatch(roaring.And(d.shared, d.value), func(batch []uint32) error {
		for _, r := range batch {
			if !d.gi.firstIn(seen, r) {
				dups++
			}
		}
		return nil
	})
	return dups, err
}

// duplicateCounts are, by value id ascending, the value's duplicates in
// a search: its entries in the search whose group has another, earlier,
// with the value.
type duplicateCounts []valueCount

type valueCount struct{ id, n uint32 }

func (d duplicateCounts) of(id uint32) (int, error) {
	i, ok := slices.BinarySearchFunc(d, id, func(c valueCount, id uint32) int { return cmp.Compare(c.id, id) })
	if !ok {
		return 0, nil
	}
	return int(d[i].n), nil
}

// valueDuplicates counts each value's duplicates among shared, the
// entries of a search that share a group. With a facet column, the
// entries are visited group by group (columnDuplicates); without, their
// values, read from the posting lists, are paired with their groups, and
// a pair met again is a duplicate.
func (s *Search) valueDuplicates(col *facetColumn, shared Set, gi *groupIndex) (valueDuplicates, func(), error) {
	if col.hasColumn() {
		return s.columnDuplicates(col, shared.BM, gi)
	}
	pairs, err := s.postingGroupPairs(s.Work.pairs[:0], col, shared.BM, gi)
	s.Work.pairs = pairs[:0]
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(pairs)
	dups := s.Work.dups[:0]
	for i := 1; i < len(pairs); i++ {
		if pairs[i] != pairs[i-1] {
			continue
		}
		id := uint32(pairs[i] >> 32)
		if len(dups) == 0 || dups[len(dups)-1].id != id {
			dups = append(dups, valueCount{id: id})
		}
		dups[len(dups)-1].n++
	}
	s.Work.dups = dups
	return dups, func() {}, nil
}

// valueGroup is a value's last group met and its duplicates so far
// (columnDuplicates): group 0 stands for none; compact group numbers
// start at 1.
type valueGroup struct{ group, dups uint32 }

// lastGroups answers a value's duplicates from columnDuplicates' table,
// by value id, while the table holds them.
type lastGroups []valueGroup

func (l lastGroups) of(id uint32) (int, error) {
	if int(id) >= len(l) {
		return 0, nil
	}
	return int(l[id].dups), nil
}

// columnDuplicates counts each value's duplicates among shared from the
// facet column. The entries are sorted by group (once for all the facets
// of a match set), so that a group's are side by side; a value met again
// within one group is a duplicate. Pairing every value with its group
// sorted a pair per value of an entry, for each facet: most of the cost
// of a faceted distinct word search. The counts are read from the table
// itself (lastGroups) until done clears the values met: sorting those
// into a list was a fifth of the cost.
func (s *Search) columnDuplicates(col *facetColumn, shared *roaring.Bitmap, gi *groupIndex) (valueDuplicates, func(), error) {
	byGroup, err := s.sharedByGroup(shared, gi)
	if err != nil {
		return nil, nil, err
	}
	last := s.Work.lastGroup
	if len(last) < len(col.keys) {
		last = make([]valueGroup, len(col.keys))
		s.Work.lastGroup = last
	}
	met := s.Work.valueIDs[:0]
	values := s.Work.GroupIDs[:0]
	for _, e := range byGroup {
		g, r := uint32(e>>32), uint32(e)
		values = col.tail.appendValues(col.head.appendValues(values[:0], r), r)
		for _, id := range values {
			switch v := &last[id]; {
			case v.group == g:
				v.dups++
			case v.group == 0:
				met = append(met, id)
				v.group = g
			default:
				v.group = g
			}
		}
	}
	s.Work.GroupIDs = values[:0]
	done := func() {
		for _, id := range met {
			last[id] = valueGroup{}
		}
		s.Work.valueIDs = met[:0]
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
func (s *Search) postingGroupPairs(pairs []uint64, col *facetColumn, shared *roaring.Bitmap, gi *groupIndex) ([]uint64, error) {
	if shared.IsEmpty() {
		return pairs, nil
	}
	value := s.Work.bitmap()
	for id, key := range col.keys {
		if _, err := value.FromBuffer(col.postings[id]); err != nil {
			return pairs, fmt.Errorf("%w: facet %q: %v", format.ErrCorrupt, key, err)
		}
		if !value.Intersects(shared) {
			continue
		}
		it := roaring.And(value, shared).Iterator()
		for it.HasNext() {
			g, err := gi.compactOf(it.Next())
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
func (s *Search) sharedOf(m Set, gi *groupIndex) Set {
	if s.shared.of != m.BM {
		s.shared.of, s.shared.Set = m.BM, s.Work.And(Set{BM: gi.grouped}, m)
		s.shared.sorted = false
	}
	return s.shared.Set
}

// sharedByGroup is the entries of shared (sharedOf's) as group<<32 |
// record, sorted, so that a group's entries are side by side: sorted once
// for every facet of the same match set.
func (s *Search) sharedByGroup(shared *roaring.Bitmap, gi *groupIndex) ([]uint64, error) {
	if s.shared.sorted && s.shared.BM == shared {
		return s.shared.byGroup, nil
	}
	byGroup := s.shared.byGroup[:0]
	if byGroup == nil {
		byGroup = s.Work.byGroup[:0]
	}
	err := s.EachBatch(shared, func(batch []uint32) error {
		for _, r := range batch {
			c, err := gi.compactOf(r)
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
	byGroup, s.Work.byGroupTmp = sortByGroup(byGroup, s.Work.byGroupTmp)
	s.shared.byGroup, s.shared.sorted = byGroup, s.shared.BM == shared
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

// groupSet is a set of groups, a bit per compact group number (see
// groupIndex.firstIn), pooled with the workspace and cleared word by word
// after use: adding to a roaring bitmap at scattered ids cost most of a
// distinct search.
type groupSet struct {
	words   []uint64
	touched []uint32 // the words set, to clear
}

// reset empties the set for group numbers below n.
func (g *groupSet) reset(n int) {
	for _, w := range g.touched {
		g.words[w] = 0
	}
	g.touched = g.touched[:0]
	if words := (n + 63) / 64; len(g.words) < words {
		g.words = make([]uint64, words)
	}
}

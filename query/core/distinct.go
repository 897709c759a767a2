package core

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"

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

// distinctTiers replaces each tier by its entries that are not
// duplicates (see the comment at the top): the sizes then count groups,
// and locate pages through them as through any tiers.
func distinctTiers(s *Search, q Query) error {
	gi, err := GroupIndexOf(s)
	if err != nil {
		return err
	}
	tiers := s.Work.tiers
	if len(tiers) == 1 && tiers[0].n == s.Stations {
		tiers[0] = tier{of: tiers[0].of, minus: Set{BM: gi.later}, n: gi.everyStation(s.Stations)}
		return nil
	}
	if len(tiers) == 1 && tiers[0].n > 0 && q.Sort <= SortName {
		if n, ok, err := storedGroups(s, q); err != nil || ok {
			tiers[0] = tier{of: tiers[0].of, n: n, walk: true}
			return err
		}
	}
	// the groups of every tier, when the indexer counted them: then the
	// tiers past the page are not looked at (see lumpTiers)
	known, stored := 0, false
	if len(tiers) > 1 && q.Sort <= SortName {
		if known, stored, err = wordGroups(s, q); err != nil {
			return err
		}
	}
	seen := gi.NewSeen(&s.Work.Seen) // the groups met so far
	before := 0                      // groups in the tiers before
	for i, t := range tiers {
		if t.n == 0 {
			continue
		}
		upto := q.Offset + q.Limit - before
		if stored && upto <= 0 {
			lumpTiers(tiers[i:], known-before)
			return nil
		}
		if q.Sort > SortName {
			upto = t.n // another order reads the whole tier: every duplicate
		}
		if t.hasOut() && t.of.Card()*denseShare < s.Stations {
			// narrow: the difference is small, and finding a place in it
			// cheaper than by the ranks of of and minus
			t = tier{of: s.members(t), n: t.n}
		}
		dups, n, whole, err := duplicates(s, t, gi, seen, upto, stored)
		if err != nil {
			return err
		}
		tiers[i] = tier{of: t.of, minus: t.minus, dups: dups, n: t.n - n}
		if !whole {
			lumpTiers(tiers[i:], known-before)
			return nil
		}
		before += tiers[i].n
	}
	return nil
}

// lumpTiers gives the first of tiers, where the page ends, the n groups
// of them all, and the others none: a search whose groups the indexer
// counted (a broad word: "radio" finds 1.7 million entries at 5M
// stations) reads the entries of its tiers up to its page's end only,
// where finding every duplicate for the tiers' sizes looked up each of
// their grouped entries. The page is located as before, and the total is
// the stored count.
func lumpTiers(tiers []tier, n int) {
	tiers[0].n = n
	for i := range tiers[1:] {
		tiers[1+i].n = 0
	}
}

// storedGroups is the number of groups a search matches when the indexer
// counted them: a search of one filter value and nothing else matches
// one stored list, and listed_groups counts the groups of every list of
// the directory and facet buckets (format.GroupCountedBuckets). Such a
// search is a directory page, or a link from one: its total is then read,
// and only the page's part of the list is walked (walkDistinct), where
// finding every duplicate looked up each grouped entry of the list.
func storedGroups(s *Search, q Query) (n int, ok bool, err error) {
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
	bucket, key := Dims[only].Key(s.Work.key[:0], q.Filter[only][0])
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
func walkDistinct(s *Search, t tier, skip, limit int) error {
	gi, err := GroupIndexOf(s)
	if err != nil {
		return err
	}
	seen := gi.NewSeen(&s.Work.Seen)
	return EachBatch(s, t.of.BM, func(batch []uint32) error {
		for _, r := range batch {
			if !gi.FirstIn(seen, r) {
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
func EachBatch(s *Search, bm *roaring.Bitmap, fn func(batch []uint32) error) error {
	buf := RecordBuffer(s)
	it := &s.Work.Many
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

// duplicates counts the entries of m whose group is in seen or met
// before them in m, and adds m's groups to seen. Only m's grouped entries
// can be either (eachShared), so the lookups see about a quarter of m on
// the real snapshot. The set returned holds the duplicates only up to
// the page's end, m's upto-th entry that is not one (see pageEnd):
// collectTier locates the page by rank and passes over duplicates up to
// its last record, and never looks further, so a broad search does not
// build a set of thousands of duplicates for a page of twenty. With
// toEnd, the entries past the page's end are not looked at either, and
// whole is false when some were not: the count is then of those before.
func duplicates(s *Search, t tier, gi *GroupIndex, seen *groupSet, upto int, toEnd bool) (dups Set, n int, whole bool, err error) {
	found := s.Work.GroupIDs[:0]
	defer func() { s.Work.GroupIDs = found[:0] }()
	end, err := findPageEnd(t, upto)
	if err != nil {
		return Set{}, 0, false, err
	}
	whole = true
	err = eachShared(s, t, gi, func(batch []uint32) error {
		for _, r := range batch {
			if toEnd && !end.covers(r) {
				whole = false
				return errEnough
			}
			if gi.FirstIn(seen, r) {
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
	if err == errEnough {
		err = nil
	}
	dups = s.Work.Scratch()
	dups.BM.AddMany(found)
	return dups, n, whole, err
}

// eachShared calls fn with tier t's grouped entries in ascending order,
// many at a time. A narrow tier is intersected with the grouped entries
// (roaring works a container at a time); a broad one, its of a
// sixty-fourth of the stations or more, is written out as a bit per
// record, less its minus, and walked a word at a time against isGrouped,
// which costs a word per 64 stations however many of its entries are
// grouped and allocates nothing: the one-letter searches of the real
// snapshot spent a third of their time building the intersection and
// iterating it, and at 5M stations each intersection and difference of a
// broad search allocated hundreds of kilobytes.
func eachShared(s *Search, t tier, gi *GroupIndex, fn func(batch []uint32) error) error {
	m := t.of
	if m.Card()*denseShare < s.Stations || m.Empty() || int(m.BM.Maximum()) >= s.Stations {
		shared := s.Work.And(Set{BM: gi.Grouped}, s.members(t))
		return EachBatch(s, shared.BM, fn)
	}
	words := denseWords(s)
	m.BM.WriteDenseTo(words)
	if t.hasOut() {
		out := s.Work.DenseBuffer(len(words))
		if t.minus.BM != nil {
			t.minus.BM.WriteDenseTo(out) // copies its bitmap containers over out's words
		}
		if t.dups.BM != nil {
			for it := t.dups.BM.Iterator(); it.HasNext(); {
				r := it.Next()
				out[r>>6] |= 1 << (r & 63)
			}
		}
		for i := range words {
			words[i] &^= out[i]
		}
	}
	buf, n := RecordBuffer(s), 0
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
const denseShare = 64

// denseWords is the workspace's bit-per-record buffer, cleared.
func denseWords(s *Search) []uint64 {
	n := (s.Stations + 63) / 64
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
	it    roaring.IntPeekable // of the tier's of: entries it leaves out are passed over
	t     tier
	at    uint32
	every bool // the page goes past the tier: every duplicate is kept
	none  bool // the page ends before the tier
}

func findPageEnd(t tier, upto int) (pageEnd, error) {
	switch {
	case upto <= 0:
		return pageEnd{none: true}, nil
	case upto > t.n:
		return pageEnd{every: true}, nil
	}
	var first uint32
	if t.hasOut() {
		first = t.selectAt(upto - 1)
	} else {
		var err error
		if first, err = t.of.BM.Select(uint32(upto - 1)); err != nil {
			return pageEnd{}, err
		}
	}
	it := t.of.BM.Iterator()
	it.AdvanceIfNeeded(first)
	it.Next()
	return pageEnd{it: it, at: first, t: t}, nil
}

// covers reports whether duplicate r lies before the page's end or on it.
func (e *pageEnd) covers(r uint32) bool { return e.every || (!e.none && r <= e.at) }

// passDuplicate moves the end one entry on, past a duplicate it covered;
// a tier that runs out leaves every later duplicate covered.
func (e *pageEnd) passDuplicate() {
	if e.every {
		return
	}
	for e.it.HasNext() {
		if e.at = e.it.Next(); !e.t.without(e.at) {
			return
		}
	}
	e.every = true
}

// Groups is the number of groups of two or more entries: their compact
// numbers run from 1 to Groups.
func (gi *GroupIndex) Groups() int { return gi.groups }

// SplitFirsts sorts the entries of batch (ascending, the next of a set's)
// for a distinct facet count: those that stand alone and the first met
// (seen) of each group whose bit in mixed (a bit per compact group number)
// is clear are appended to firsts; those of a group whose bit is set, to
// byGroup as compact group<<32 | record; the later entries of the other
// groups are passed over. seen is NewSeen's. A record past the records (a
// damaged posting list) stands alone, as in FirstIn.
//
// Whether an entry stands alone is read from isGrouped, a bit per record
// that stays in the cache, before its compact number: at 5M stations a
// quarter of the entries are grouped, and the compact numbers (20 MB)
// cost a wait on memory per entry of a broad set.
func (gi *GroupIndex) SplitFirsts(seen *groupSet, batch []uint32, mixed []uint64, firsts []uint32, byGroup []uint64) ([]uint32, []uint64) {
	compact, grouped := gi.compact, gi.isGrouped
	for _, r := range batch {
		if int(r>>6) >= len(grouped) || grouped[r>>6]&(1<<(r&63)) == 0 || int(r) >= len(compact) || compact[r] == 0 {
			firsts = append(firsts, r)
			continue
		}
		c := compact[r]
		if mixed[c>>6]&(1<<(c&63)) != 0 {
			byGroup = append(byGroup, uint64(c)<<32|uint64(r))
			continue
		}
		if seen.add(c) {
			firsts = append(firsts, r)
		}
	}
	return firsts, byGroup
}

// SplitFirstsDense is SplitFirsts of a set written out as a bit per
// record (words, every record below the stations): it clears in place the
// bits of the entries SplitFirsts would not append to firsts, and appends
// the mixed groups' entries to byGroup. The entries that stand alone are
// kept a word at a time, so only the grouped ones (a quarter at 5M
// stations) are looked at one by one: a broad set of 400,000 entries spent
// 4 ms in SplitFirsts and writing its firsts out again.
func (gi *GroupIndex) SplitFirstsDense(seen *groupSet, words []uint64, mixed []uint64, byGroup []uint64) []uint64 {
	compact, grouped := gi.compact, gi.isGrouped
	for i := range min(len(words), len(grouped)) {
		for g := words[i] & grouped[i]; g != 0; g &= g - 1 {
			r := i<<6 + bits.TrailingZeros64(g)
			if r >= len(compact) || compact[r] == 0 {
				continue // alone after all: kept
			}
			c := compact[r]
			if mixed[c>>6]&(1<<(c&63)) != 0 {
				byGroup = append(byGroup, uint64(c)<<32|uint64(r))
				words[i] &^= 1 << (r & 63)
				continue
			}
			if !seen.add(c) {
				words[i] &^= 1 << (r & 63)
			}
		}
	}
	return byGroup
}

// recordBuffer is the workspace's buffer for records read many at a time.
func RecordBuffer(s *Search) []uint32 {
	if len(s.Work.recBuf) == 0 {
		s.Work.recBuf = make([]uint32, 256)
	}
	return s.Work.recBuf
}

// variantCounts is, for each record of the page, the number of other
// entries in its group.
func variantCounts(s *Search) ([]int, error) {
	if len(s.Work.recs) == 0 {
		return nil, nil
	}
	out := make([]int, len(s.Work.recs))
	gr := newGroupReader(s)
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

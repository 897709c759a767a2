package core

import (
	"math/bits"

	"stationdex/internal/format"
	"stationdex/query/rawroaring"
)

// A distinct search without facets or a distance filter takes the plain
// path (plain.go). Its total is the number of groups of the match set:
// read where the indexer counted them, else counted key by key as the
// set is counted (countAll), runs of a group a word at a time and other
// grouped entries looked up (keyGroups). Its page is the tiers walked in
// Rank order from their first key, passing over each entry whose group
// was met before (collectPlain with a group index). The tiers' sizes in
// groups are never needed: a page is found by walking to it, which costs
// what the offset costs, where the bitmap path of distinctTiers
// intersects the words' unions in full first.

// planGroups starts the group count of a distinct plain search (gi not
// nil): read from the index where the indexer counted them (every
// station; one filter value; one word), else left to countAll, which
// counts them under each key as planPlain counts the match set.
func planGroups(s *Search, q Query, gi *GroupIndex) error {
	if gi == nil {
		return nil
	}
	p := &s.Work.plain
	gi.NewSeen(&s.Work.Seen)
	if !p.words && filterCount(q) == 0 {
		p.groups = gi.everyStation(s.Stations)
		return nil
	}
	n, ok, err := storedGroups(s, q)
	if err == nil && !ok {
		n, ok, err = wordGroups(s, q)
	}
	if err != nil || ok {
		p.groups = n
		return err
	}
	p.groupsOf = gi
	return nil
}

// countAll is countKey for the set of all matches, cj. When planGroups
// left the groups to be counted, cj is evaluated under every key, the
// groups of its members counted into the search's, and its members
// counted with them; evaluated is then false, as the members were not
// narrowed to the name matches (countWords leaves those to be counted
// where a page needs them).
func countAll(s *Search, cj *conjunction, key uint16, sc *keyScratch) (n int, evaluated bool) {
	p := &s.Work.plain
	if p.groupsOf == nil {
		return countKey(s, cj, key, sc)
	}
	if n = cj.eval(s.Work.lists, key, sc); n > 0 {
		p.groups += p.groupsOf.keyGroups(&s.Work.Seen, &sc.out, uint32(key)<<16)
	}
	return n, false
}

// wordGroups is the number of groups a search of one word and nothing
// else matches when the indexer counted them (see format's word groups):
// ok is false for a word that finds too few stations to have been
// counted, which are then counted here.
func wordGroups(s *Search, q Query) (n int, ok bool, err error) {
	if len(s.Work.Words) != 1 || filterCount(q) > 0 || q.Near != nil {
		return 0, false, nil
	}
	v := s.Lookup(format.BucketWordGroups, s.KeyOf(s.Work.Words[0]))
	if v == nil {
		return 0, false, nil
	}
	n, err = format.ParseWordGroups(v)
	return n, err == nil, err
}

// keyGroups counts the members of out, the members of a set under the
// key whose first record is base, that are the first of their group met,
// adding the groups of those looked up to seen. A list of values is
// looked up entry by entry. A block of bits is counted a word at a time
// but for the grouped entries outside runs (see byWord): a run lies under
// one key, so no run is counted both ways.
func (gi *GroupIndex) keyGroups(seen *groupSet, out *keySet, base uint32) int {
	if !out.inBlk {
		return gi.valueGroups(seen, out.vals, base)
	}
	from := min(int(base>>6), len(gi.isGrouped))
	to := min(from+len(out.blk), len(gi.isGrouped))
	blk := out.blk[:to-from]
	n := 0
	for _, m := range out.blk[len(blk):] {
		n += bits.OnesCount64(m) // past the records: a damaged list, read as alone
	}
	var buf [rawroaring.BlockWords]uint16
	n, loose := countRuns(blk, gi.byWord[from:to], gi.runNext[from:to], n, buf[:0])
	for _, i := range loose {
		for x := blk[i] &^ gi.byWord[from+int(i)]; x != 0; x &= x - 1 {
			if gi.FirstIn(seen, base+uint32(int(i)<<6+bits.TrailingZeros64(x))) {
				n++
			}
		}
	}
	return n
}

// valueGroups is keyGroups for a list of values, ascending. An entry of
// a run is a duplicate when the last run entry of the list met lies in
// its run, at or after the run's first entry; other grouped entries are
// looked up.
func (gi *GroupIndex) valueGroups(seen *groupSet, vals []uint16, base uint32) int {
	n := 0
	lastRun := int64(-1) // the last run entry met
	for _, v := range vals {
		r := base | uint32(v)
		switch {
		case int(r>>6) >= len(gi.isGrouped) || !recordIn(gi.isGrouped, r):
			n++
		case recordIn(gi.byWord, r): // grouped, so in a run
			if lastRun < int64(gi.runStart(r)) {
				n++
			}
			lastRun = int64(r)
		case gi.FirstIn(seen, r):
			n++
		}
	}
	return n
}

// recordIn reports whether record r's bit is set in words, a bit per
// record.
func recordIn(words []uint64, r uint32) bool { return words[r>>6]>>(r&63)&1 != 0 }

// runStart is the first entry of the run of entry r: the last record at
// or before r that does not continue a run.
func (gi *GroupIndex) runStart(r uint32) uint32 {
	w := int(r >> 6)
	z := ^gi.runNext[w] & (2<<(r&63) - 1)
	for z == 0 { // a run over a whole word: rare
		w--
		z = ^gi.runNext[w]
	}
	return uint32(w<<6 + bits.Len64(z) - 1)
}

// countRuns adds to n the groups of the block m that need no lookup:
// its entries standing alone, and the runs it meets (each once), over
// the block's words of byWord and runNext. It returns the words holding
// grouped entries outside runs, to be looked up, appended to loose.
//
// An entry of a run is a duplicate when an earlier entry of its run is
// in the set. Seeds are the entries of runNext whose predecessor is in
// the set; a seed's signal travels on through runNext, which is one run
// (runNext's bits continue the run of the bit before them). Adding the
// seeds to runNext sends a carry through exactly those bits, so the carry
// into each position, (runNext + seeds) ^ runNext ^ seeds, marks the
// entries of runs met earlier; the last carry passes to the next word.
// No branch but the rare loose word: which words hold grouped entries is
// as good as random.
func countRuns(m, byWord, runNext []uint64, n int, loose []uint16) (int, []uint16) {
	byWord, runNext = byWord[:len(m)], runNext[:len(m)]
	var top, carry uint64
	for i, w := range m {
		counted, next := byWord[i], runNext[i]
		seeds := (w<<1 | top) & next
		var sum uint64
		sum, carry = bits.Add64(next, seeds, carry)
		dup := w & next & (seeds | sum ^ next ^ seeds)
		n += bits.OnesCount64(w & counted &^ dup)
		top = w >> 63
		if w&^counted != 0 {
			loose = append(loose, uint16(i))
		}
	}
	return n, loose
}

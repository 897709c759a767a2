package query

import (
	"math/bits"

	"stationdex/indexer/format"
)

// A distinct search without facets or a distance filter takes the plain
// path (plain.go): its total is the number of groups of the match set,
// counted key by key from the conjunction's members as they are counted
// (countGroupsUnder), and
// its page is the tiers walked in rank order from their first key,
// passing over each entry whose group was met before (collectPlain with
// a group index). The tiers' sizes in groups are never needed: a page is
// found by walking to it, which costs what the offset costs, where the
// bitmap path of distinctTiers intersects the words' unions in full
// first.

// planGroups starts the group count of a distinct plain search (gi not
// nil): read from the index where the indexer counted them (every
// station; one filter value; one word), else left to countGroupsUnder,
// which counts them under each key where the match set has members as
// planPlain counts it, from the members it evaluated.
func (s *search) planGroups(q Query, gi *groupIndex) error {
	if gi == nil {
		return nil
	}
	p := &s.w.plain
	gi.newSeen(&s.w.seen)
	if !p.words && filterCount(q) == 0 {
		p.groups = s.stations - int(gi.later.GetCardinality())
		return nil
	}
	n, ok, err := s.storedGroups(q)
	if err == nil && !ok {
		n, ok, err = s.wordGroups(q)
	}
	if err != nil || ok {
		p.groups = n
		return err
	}
	p.groupsOf = gi
	return nil
}

// countGroupsUnder adds the groups of the n members of set cj under key
// to the count when planGroups left it to be counted. evaluated says
// whether sc holds the members already (countKey).
func (s *search) countGroupsUnder(cj *conjunction, key uint16, n int, evaluated bool, sc *keyScratch) {
	p := &s.w.plain
	if p.groupsOf == nil || n == 0 {
		return
	}
	if !evaluated {
		cj.eval(s.w.lists, key, sc)
	}
	p.groups += p.groupsOf.keyGroups(&s.w.seen, &sc.out, uint32(key)<<16)
}

// wordGroups is the number of groups a search of one word and nothing
// else matches when the indexer counted them (see format's word groups):
// ok is false for a word that finds too few stations to have been
// counted, which are then counted here.
func (s *search) wordGroups(q Query) (n int, ok bool, err error) {
	if len(s.w.words) != 1 || filterCount(q) > 0 || q.Near != nil {
		return 0, false, nil
	}
	v := s.lookup(format.BucketWordGroups, s.keyOf(s.w.words[0]))
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
// but for the grouped entries outside runs (see inRun): a run lies under
// one key, so no run is counted both ways.
func (gi *groupIndex) keyGroups(seen *groupSet, out *keySet, base uint32) int {
	if !out.inBlk {
		n := 0
		for _, v := range out.vals {
			if gi.firstIn(seen, base|uint32(v)) {
				n++
			}
		}
		return n
	}
	from := min(int(base>>6), len(gi.isGrouped))
	to := min(from+len(out.blk), len(gi.isGrouped))
	c := runCounter{grouped: gi.isGrouped[from:to], inRun: gi.inRun[from:to], next: gi.runNext[from:to]}
	n := 0
	for i, m := range out.blk {
		if i >= len(c.grouped) {
			n += bits.OnesCount64(m) // past the records: a damaged list, read as alone
			continue
		}
		loose := c.word(i, m, &n)
		for x := loose; x != 0; x &= x - 1 {
			if gi.firstIn(seen, base+uint32(i<<6+bits.TrailingZeros64(x))) {
				n++
			}
		}
	}
	return n
}

// runCounter counts groups a word of records at a time over one key's
// words of isGrouped, inRun and runNext.
type runCounter struct {
	grouped, inRun, next []uint64
	top                  uint64 // the last word's highest bit of the set
	carry                uint64 // a run met in the set goes on past the last word
}

// word adds to *n the groups word i of the set, m, has that need no
// lookup: its entries standing alone, and the runs it meets that no
// earlier word of the set met. It returns the grouped entries outside
// runs, to be looked up.
//
// An entry of a run is a duplicate when an earlier entry of its run is
// in the set. Seeds are the entries of runNext whose predecessor is in
// the set; a seed's signal travels on through runNext, which is one run
// (runNext's bits continue the run of the bit before them). Adding the
// seeds to runNext sends a carry through exactly those bits, so the carry
// into each position, (runNext + seeds) ^ runNext ^ seeds, marks the
// entries of runs met earlier; the last carry passes to the next word.
func (c *runCounter) word(i int, m uint64, n *int) (loose uint64) {
	if m == 0 && c.carry == 0 {
		c.top = 0
		return 0
	}
	g, run, next := c.grouped[i], c.inRun[i], c.next[i]
	seeds := (m<<1 | c.top) & next
	sum, carry := bits.Add64(next, seeds, c.carry)
	dup := m & next & (seeds | sum ^ next ^ seeds)
	*n += bits.OnesCount64(m&^g) + bits.OnesCount64(m&run) - bits.OnesCount64(dup)
	c.top, c.carry = m>>63, carry
	return m & g &^ run
}

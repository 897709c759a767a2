package query

import (
	"math/bits"
)

// A distinct search without facets or a distance filter takes the plain
// path (plain.go): its total is the number of groups of the match set,
// counted key by key from the conjunction's members (plainGroups), and
// its page is the tiers walked in rank order from their first key,
// passing over each entry whose group was met before (collectPlain with
// a group index). The tiers' sizes in groups are never needed: a page is
// found by walking to it, which costs what the offset costs, where the
// bitmap path of distinctTiers intersects the words' unions in full
// first.

// plainGroups is the number of groups among the plain search's matches,
// all of them: read from the index where the indexer counted them (a
// search of one filter value), else counted under each key where the set
// has members. It leaves w.seen
// holding the groups met.
func (s *search) plainGroups(q Query, gi *groupIndex) (int, error) {
	p := &s.w.plain
	seen := gi.newSeen(&s.w.seen)
	switch {
	case p.empty:
		return 0, nil
	case !p.words && !p.filtered:
		return s.stations - int(gi.later.GetCardinality()), nil
	}
	if n, ok, err := s.storedGroups(q); err != nil || ok {
		return n, err
	}
	all := &p.sets[setAll]
	sc := s.w.scratchA()
	n := 0
	for k, c := range p.counts[setAll] {
		if c == 0 || all.eval(s.w.lists, uint16(k), sc) == 0 {
			continue
		}
		n += gi.keyGroups(seen, &sc.out, uint32(k)<<16)
	}
	return n, nil
}

// keyGroups counts the members of out, the members of a set under the
// key whose first record is base, that are the first of their group met,
// adding their groups to seen. In a block of bits an entry standing alone
// is counted by the word, as a bit of out outside isGrouped; only the
// grouped entries (about a quarter) are looked up.
func (gi *groupIndex) keyGroups(seen *groupSet, out *keySet, base uint32) int {
	n := 0
	if !out.inBlk {
		for _, v := range out.vals {
			if gi.firstIn(seen, base|uint32(v)) {
				n++
			}
		}
		return n
	}
	grouped := gi.isGrouped[min(int(base>>6), len(gi.isGrouped)):]
	for i, w := range out.blk {
		if w == 0 {
			continue
		}
		var g uint64
		if i < len(grouped) {
			g = grouped[i]
		}
		n += bits.OnesCount64(w &^ g)
		for x := w & g; x != 0; x &= x - 1 {
			if gi.firstIn(seen, base+uint32(i<<6+bits.TrailingZeros64(x))) {
				n++
			}
		}
	}
	return n
}

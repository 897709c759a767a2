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

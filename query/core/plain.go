package core

import (
	"fmt"
	"math/bits"

	"stationdex/internal/format"
	"stationdex/query/rawroaring"
)

// A plain search (no distance filter; facets only with several words) is
// answered from conjunctions evaluated key by key (see conjunction.go),
// with the same tiers and order as the bitmap path of rank and locate:
//
//	all    = words in any field ∩ filters
//	byName = words in the name ∩ filters      (byName ⊆ all)
//	exact  = exact name ∩ all                 (exact ⊆ byName)
//
// tier 0 is exact, tier 1 byName − exact, tier 2 all − byName, so their
// sizes follow from the three sets' counts under each key, and a page
// evaluates only the keys it reads; nothing is allocated.
//
// A faceted search needs its match set as a bitmap anyway. With one word
// or none, the bitmap path builds it from one or two stored lists and
// locates a page by rank, faster than the conjunctions; with several
// words it intersects their unions (roaring's FastOr and And, tens of
// microseconds for a station's full name), where the conjunctions
// evaluate only what the counts and the page need, and plainMatches
// builds the bitmap from them. A distance filter keeps the bitmap path:
// its set is computed, not stored. So does a distinct search with facets,
// which count groups from the tiers' sets (see distinct.go); one without
// takes the plain path (see distinct_plain.go).
func plainQuery(q Query, words int) bool {
	if q.Near != nil || q.Distinct && q.Facets.Any() || q.Sort != SortRelevance {
		return false
	}
	return q.Distinct || !q.Facets.Any() || words > 1 || words+filterCount(q) > 2
}

// plainSets names the sets of a plain search's tiers.
type plainSets int

const (
	setExact plainSets = iota
	setByName
	setAll
	setCount
)

// plain is the state of a plain search: its conjunctions, their counts
// per key, and whether it has words or filters at all.
type plain struct {
	sets      [setCount]conjunction
	nameParts []conjunct        // the name words' conjuncts of sets[setByName]
	counts    [setCount][]int32 // by key
	words     bool              // three tiers; else one (setAll)
	filtered  bool
	empty     bool // some operand has no station: nothing matches
	keys      int  // container keys of the record range
	// groupsOf, for a distinct search whose total is not stored, has the
	// groups of all counted into groups as all is counted (see
	// distinct_plain.go)
	groupsOf *GroupIndex
	groups   int
}

// planPlain reads the operands of q and counts its sets. It returns the
// total number of matches. With gi, the search is distinct, and its
// groups are in w.plain.groups (see planGroups).
func planPlain(s *Search, q Query, gi *GroupIndex) (int, error) {
	w := s.Work
	p := &w.plain
	*p = plain{counts: p.counts, keys: (s.Stations + 1<<16 - 1) >> 16}
	w.nlists = 0
	w.parts = w.parts[:0]
	p.words = len(s.Work.Words) > 0
	filters, err := plainFilters(s, q)
	if err != nil || p.empty {
		return 0, err
	}
	// after the filters: a stored count is looked up for a value that
	// exists
	if err := planGroups(s, q, gi); err != nil {
		return 0, err
	}
	p.filtered = len(filters) > 0
	if !p.words {
		if !p.filtered {
			return s.Stations, nil
		}
		p.sets[setAll] = conjunction{parts: filters}
		return countSet(s, setAll), nil
	}
	if err := plainWords(s, filters); err != nil || p.empty {
		p.groups = 0
		return 0, err
	}
	return countWords(s), nil
}

// countSet evaluates a set under every key, keeping the counts.
func countSet(s *Search, which plainSets) int {
	p := &s.Work.plain
	c := p.counts[which][:0]
	total := 0
	for k := range p.keys {
		n, _ := countAll(s, &p.sets[which], uint16(k), s.Work.scratchA())
		c = append(c, int32(n))
		total += n
	}
	p.counts[which] = c
	return total
}

// countKey is the number of members of cj under key: read from the
// container headers when cj is one list, counted by pairCount when it is
// a pair of containers, else evaluated into sc. It reports whether sc
// holds the members (only when evaluated).
func countKey(s *Search, cj *conjunction, key uint16, sc *keyScratch) (int, bool) {
	switch {
	case len(cj.parts) == 0:
		return 0, false
	case oneList(cj):
		if c := containerAt(s.Work.lists[cj.parts[0].first], key); c != nil {
			return rawCard(c), false
		}
		return 0, false
	}
	if n := cj.pairCount(s.Work.lists, key); n >= 0 {
		return n, false
	}
	return cj.eval(s.Work.lists, key, sc), true
}

// oneList reports whether cj is a single stored list.
func oneList(cj *conjunction) bool { return len(cj.parts) == 1 && cj.parts[0].n == 1 }

// countWords counts all under every key and returns its size. Where all's
// members were evaluated, byName is all narrowed by the name words (byName
// ⊆ all), which spares evaluating the filters again, and exact is
// evaluated on its own, seeded by the exact name's few stations. Elsewhere
// (all counted from headers or as a pair) byName and exact are left
// unknown until a page needs them (known): a page filled from the
// first keys of byName never counts it under the others.
func countWords(s *Search) int {
	p := &s.Work.plain
	for i := range p.counts {
		p.counts[i] = p.counts[i][:0]
	}
	a, b := s.Work.scratchA(), s.Work.scratchB()
	byNameAlone := oneList(&p.sets[setByName])
	total := 0
	for k := range p.keys {
		key := uint16(k)
		nAll, evaluated := countAll(s, &p.sets[setAll], key, a)
		nName, nExact := 0, 0
		if nAll > 0 {
			switch {
			case len(p.sets[setByName].parts) == 0:
			case byNameAlone || !evaluated:
				nName, nExact = unknownCount, unknownCount
			default:
				nName = b.narrowFrom(&a.out, s.Work.lists, p.nameParts, key)
			}
			if nName > 0 {
				nExact, _ = countKey(s, &p.sets[setExact], key, b)
			}
		}
		p.counts[setAll] = append(p.counts[setAll], int32(nAll))
		p.counts[setByName] = append(p.counts[setByName], int32(nName))
		p.counts[setExact] = append(p.counts[setExact], int32(nExact))
		total += nAll
	}
	return total
}

// plainFilters adds one conjunct per filter of q, returning them.
func plainFilters(s *Search, q Query) ([]conjunct, error) {
	w := s.Work
	start := len(w.parts)
	err := s.EachFilter(q, NoDim, func(_ Dim, lists [][]byte) (bool, error) {
		err := addConjunct(s, lists)
		return err == nil && !w.plain.empty, err
	})
	return w.parts[start:len(w.parts):len(w.parts)], err
}

// plainWords adds the word conjuncts of the all and byName sets, and the
// exact name's, and sets up the three conjunctions.
func plainWords(s *Search, filters []conjunct) error {
	w := s.Work
	p := &w.plain
	all := len(w.parts)
	for _, word := range w.Words {
		if err := addWord(s, AllSpace, word); err != nil || p.empty {
			return err
		}
	}
	w.parts = append(w.parts, filters...)
	p.sets[setAll] = conjunction{parts: w.parts[all:len(w.parts):len(w.parts)]}
	byName := len(w.parts)
	p.nameParts = nil
	for _, word := range w.Words {
		if err := addWord(s, NameSpace, word); err != nil {
			return err
		}
		if p.empty {
			// no name matches: tiers 0 and 1 are empty, tier 2 is all
			p.empty = false
			return nil
		}
	}
	p.nameParts = w.parts[byName:len(w.parts):len(w.parts)]
	w.parts = append(w.parts, filters...)
	p.sets[setByName] = conjunction{parts: w.parts[byName:len(w.parts):len(w.parts)]}
	exact := len(w.parts)
	w.key = exactKey(w.key[:0], w.Words)
	var exactList [1][]byte
	lists := exactList[:0]
	if v := s.Lookup(format.BucketNames, w.key); v != nil {
		lists = append(lists, v)
	}
	if err := addConjunct(s, lists); err != nil {
		return err
	}
	if p.empty {
		p.empty = false // an absent exact name empties only its tier
		p.sets[setExact] = conjunction{}
		return nil
	}
	w.parts = append(w.parts, p.sets[setAll].parts...)
	p.sets[setExact] = conjunction{parts: w.parts[exact:len(w.parts):len(w.parts)]}
	return nil
}

// addWord adds the conjunct of one word in ns: the stored union of its
// prefix, or the few tokens starting with it (see wordLists).
func addWord(s *Search, ns Namespace, word string) error {
	lists, err := s.WordLists(ns, word)
	if err != nil {
		return err
	}
	if err := addConjunct(s, lists); err != nil {
		return fmt.Errorf("word %q: %w", word, err)
	}
	return nil
}

// addConjunct parses lists into one conjunct. No list (or only empty ones)
// means no station matches: plain.empty.
func addConjunct(s *Search, lists [][]byte) error {
	w := s.Work
	first := w.nlists
	for _, v := range lists {
		if w.nlists == len(w.lists) {
			w.lists = append(w.lists, nil)
		}
		cs, err := rawroaring.Parse(v, w.lists[w.nlists])
		w.lists[w.nlists] = cs
		if err != nil {
			return err
		}
		if len(cs) > 0 {
			w.nlists++
		}
	}
	if w.nlists == first {
		w.plain.empty = true
		return nil
	}
	w.parts = append(w.parts, conjunct{first: first, n: w.nlists - first})
	return nil
}

// exactKey is the name key of the words: the key of format.BucketNames.
func exactKey(dst []byte, words []string) []byte {
	for i, word := range words {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, word...)
	}
	return dst
}

// plainTier is one tier of a plain search: the members of of not in minus
// (setCount: none).
type plainTier struct{ of, minus plainSets }

var (
	wordTiers   = []plainTier{{setExact, setCount}, {setByName, setExact}, {setAll, setByName}}
	filterTiers = []plainTier{{setAll, setCount}}
)

// collectPlain collects the record numbers of the page into w.recs. With
// gi, the search is distinct: only the first entry of each group met
// counts (gi.firstIn, over w.seen, which must be empty), and as a key's
// count of them is unknown every key with members is walked up to the
// page's end.
func collectPlain(s *Search, offset, limit int, gi *GroupIndex) {
	p := &s.Work.plain
	if p.empty {
		return
	}
	if !p.words && !p.filtered {
		collectEvery(s, offset, limit, gi)
		return
	}
	tiers := filterTiers
	if p.words {
		tiers = wordTiers
	}
	skip := offset
	for _, t := range tiers {
		for k := 0; k < p.keys && len(s.Work.recs) < limit; k++ {
			n := tierCount(s, t, k)
			if n == 0 || gi == nil && skip >= n {
				skip -= min(skip, n)
				continue
			}
			skip = collectKey(s, t, uint16(k), skip, limit, gi)
		}
	}
}

// collectEvery collects a page of every station, in record order; with
// gi, of each group's first entry.
func collectEvery(s *Search, offset, limit int, gi *GroupIndex) {
	if gi == nil {
		for r := offset; r < s.Stations && len(s.Work.recs) < limit; r++ {
			s.Work.recs = append(s.Work.recs, uint32(r))
		}
		return
	}
	skip := offset
	for r := range uint32(s.Stations) {
		switch {
		case !gi.FirstIn(&s.Work.Seen, r):
		case skip > 0:
			skip--
		default:
			if s.Work.recs = append(s.Work.recs, r); len(s.Work.recs) == limit {
				return
			}
		}
	}
}

// unknownCount marks the count of byName or exact under a key that
// countWords left to be counted when a page needs it (known).
const unknownCount = -1

// known returns the count of set (byName or exact) under key k, counting
// it if countWords left it unknown. Each is counted on its own: the exact
// tier, read first, needs only exact, which costs next to nothing under
// the keys where the exact name has no station, so a page filled early in
// the byName tier never counts byName under the later keys. Exact counts
// only where byName is not empty, as countWords has it.
func known(s *Search, set plainSets, k int) int {
	p := &s.Work.plain
	c := p.counts[set]
	if k >= len(c) {
		return 0
	}
	if c[k] != unknownCount {
		return int(c[k])
	}
	n, _ := countKey(s, &p.sets[set], uint16(k), s.Work.scratchB())
	if set == setExact && n > 0 && known(s, setByName, k) == 0 {
		n = 0
	}
	c[k] = int32(n)
	return n
}

// tierCount is the number of members of the tier under key k.
func tierCount(s *Search, t plainTier, k int) int {
	n := known(s, t.of, k)
	if t.minus != setCount {
		n -= known(s, t.minus, k)
	}
	return max(n, 0)
}

// collectKey appends the tier's members under key, after skipping skip
// of them, until the page is full; it returns what is left to skip. With
// gi, only each group's first entry met counts (collectFirsts).
func collectKey(s *Search, t plainTier, key uint16, skip, limit int, gi *GroupIndex) int {
	members, minus := tierUnder(s, t, key)
	if members == nil {
		return skip
	}
	base := uint32(key) << 16
	if gi != nil {
		return collectFirsts(s, members, minus, base, skip, limit, gi)
	}
	// A closure called directly is inlined: a skip of thousands stays a
	// few instructions a record.
	emit := func(v uint16) bool {
		if minus != nil && minus.has(v) {
			return true
		}
		if skip > 0 {
			skip--
			return true
		}
		s.Work.recs = append(s.Work.recs, base|uint32(v))
		return len(s.Work.recs) < limit
	}
	if !members.inBlk {
		for _, v := range members.vals {
			if !emit(v) {
				break
			}
		}
		return skip
	}
	for i, word := range members.blk {
		for ; word != 0; word &= word - 1 {
			if !emit(uint16(i<<6 | bits.TrailingZeros64(word))) {
				return skip
			}
		}
	}
	return skip
}

// tierUnder evaluates the tier's sets under key: its base set's members
// (nil when none) and the members of the set it leaves out (nil when
// none).
func tierUnder(s *Search, t plainTier, key uint16) (members, minus *keySet) {
	p := &s.Work.plain
	a := s.Work.scratchA()
	if p.sets[t.of].eval(s.Work.lists, key, a) == 0 {
		return nil, nil
	}
	if t.minus != setCount && len(p.sets[t.minus].parts) > 0 {
		b := s.Work.scratchB()
		if p.sets[t.minus].eval(s.Work.lists, key, b) > 0 {
			minus = &b.out
		}
	}
	return &a.out, minus
}

// collectFirsts is collectKey for a distinct search: the members not in
// minus that are the first of their group met (gi.firstIn over w.seen).
func collectFirsts(s *Search, members, minus *keySet, base uint32, skip, limit int, gi *GroupIndex) int {
	for it := members.iterate(); ; {
		v, ok := it.next()
		if !ok {
			return skip
		}
		switch {
		case minus != nil && minus.has(v), !gi.FirstIn(&s.Work.Seen, base|uint32(v)):
		case skip > 0:
			skip--
		default:
			if s.Work.recs = append(s.Work.recs, base|uint32(v)); len(s.Work.recs) == limit {
				return skip
			}
		}
	}
}

// plainMatches is all as a bitmap, for the facets the memo does not
// answer, evaluated under the keys where it has members.
func PlainMatches(s *Search) Set {
	p := &s.Work.plain
	switch {
	case p.empty:
		return s.Work.Scratch()
	case !p.words && !p.filtered:
		all := s.Work.Scratch()
		all.BM.AddRange(0, uint64(s.Stations))
		return all
	}
	return materialize(s, &p.sets[setAll], p.counts[setAll])
}

// sparseShare: a set of at most stations/sparseShare records is
// materialised from a list of its values; a larger one through a dense
// buffer of every key, which FromDense scans whole.
const sparseShare = 512

// materialize evaluates cj into a bitmap under the keys where counts (its
// count per key) says it has members.
func materialize(s *Search, cj *conjunction, counts []int32) Set {
	w := s.Work
	total := 0
	for _, n := range counts {
		total += max(int(n), 0)
	}
	if total == 0 {
		return w.Scratch()
	}
	sc := w.scratchA()
	if total*sparseShare <= s.Stations {
		out := w.Scratch()
		vals := w.vals[:0]
		for k, n := range counts {
			if n <= 0 || cj.eval(w.lists, uint16(k), sc) == 0 {
				continue
			}
			vals = sc.out.appendTo(vals, uint32(k)<<16)
		}
		out.BM.AddMany(vals)
		w.vals = vals[:0]
		return out
	}
	dense := w.DenseBuffer(containerWords * len(counts))
	for k, n := range counts {
		if n <= 0 || cj.eval(w.lists, uint16(k), sc) == 0 {
			continue
		}
		sc.out.writeTo((*[rawroaring.BlockWords]uint64)(dense[k*containerWords:]))
	}
	out := w.Scratch()
	out.BM.FromDense(dense, false) // bitmap containers share dense copy-on-write
	return out
}

package core

import (
	"fmt"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"stationdex/internal/fold"
	"stationdex/internal/format"
)

// Suggester is the "did you mean" step of a search without result
// (package spell's Suggest): Run calls it when the query asks for
// suggestions (Query.Suggest), has words and matches nothing. nil suggests
// nothing.
type Suggester func(s *Search, q Query) ([]Suggestion, error)

// FacetCounter counts the facets of a search (package facets' Count): Run
// calls it when the query asks for facets, with the whole match set m
// when the search was not plain (plain says which path answered). nil
// counts none.
type FacetCounter func(s *Search, q Query, m Set, plain bool) (Facets, error)

// Run runs q: one read transaction, posting lists combined into at most
// three tiers (see the package comment), and only the page's records
// decoded; or with stored not nil, the page's stored JSON appended to
// *stored instead (SearchJSON in package query).
func (ix *Index) Run(q Query, stored *[]byte, count FacetCounter, suggest Suggester) (Result, []byte, error) {
	if err := checkQuery(q); err != nil {
		return Result{}, nil, err
	}
	var res Result
	err := ix.WithSearch(func(s *Search) error { return s.run(q, ix.meta.Stations, &res, stored, count, suggest) })
	if err != nil {
		return Result{}, nil, fmt.Errorf("search %q: %w", q.Q, err)
	}
	if stored == nil {
		return res, nil, nil
	}
	return res, *stored, nil
}

func (s *Search) run(q Query, stations int, res *Result, stored *[]byte, count FacetCounter, suggest Suggester) error {
	start := time.Now()
	s.Work.Words = fold.AppendTokens(s.Work.Words[:0], q.Q)
	plain := plainQuery(q, len(s.Work.Words))
	var err error
	var gi *GroupIndex // a distinct plain search's
	if plain && q.Distinct {
		if gi, err = GroupIndexOf(s); err != nil {
			return err
		}
	}
	if plain {
		res.Total, err = planPlain(s, q, gi)
	} else if err = s.Rank(q, stations); err == nil {
		res.Total = s.total()
	}
	if err != nil {
		return err
	}
	res.Entries = res.Total
	var m Set
	if !plain {
		m = s.Matches() // before distinctTiers narrows the tiers
	}
	if q.Sort != SortRelevance {
		s.oneTier()
	}
	switch {
	case gi != nil:
		res.Total = s.Work.plain.groups
		gi.NewSeen(&s.Work.Seen) // the page's walk meets the groups again
	case q.Distinct:
		if err := distinctTiers(s, q); err != nil {
			return err
		}
		res.Total = s.total()
	}
	if err := s.facetsAndSuggestions(q, res, plain, m, count, suggest); err != nil {
		return err
	}
	switch {
	case plain:
		collectPlain(s, q.Offset, q.Limit, gi)
	case q.Sort > SortName:
		if err := s.sortedPage(q, res); err != nil {
			return err
		}
	default:
		if err := s.locate(q.Offset, q.Limit); err != nil {
			return err
		}
	}
	if q.CountVariants {
		if res.Variants, err = variantCounts(s); err != nil {
			return err
		}
	}
	decode := time.Now()
	res.Timing.Bitmap = decode.Sub(start)
	if stored != nil {
		*stored, err = s.copyPageJSON(*stored, res.Distances)
	} else {
		res.Stations, err = s.decodePage()
	}
	res.Timing.Decode = time.Since(decode)
	return err
}

// Rank fills w.tiers with the result tiers, best first, for q's words in
// w.words (run tokenises them).
func (s *Search) Rank(q Query, stations int) error {
	f, filtered, err := s.Filtered(q, NoDim)
	if err != nil || (filtered && f.Empty()) {
		return err
	}
	if len(s.Work.Words) == 0 {
		return s.rankWithoutWords(f, filtered, stations)
	}
	return s.rankWords(f, filtered, q.Facets.Any())
}

// rankWithoutWords is a single alphabetical tier. Every station is the
// record range [0, stations): a run bitmap of one interval per 65536
// records, not a list of records.
func (s *Search) rankWithoutWords(f Set, filtered bool, stations int) error {
	if !filtered {
		f = s.Work.Scratch()
		f.BM.AddRange(0, uint64(stations))
	}
	s.Work.tiers = append(s.Work.tiers, wholeTier(f))
	return nil
}

// rankWords sets up the three tiers:
//
//	tier0 = exact name ∩ matches
//	tier1 = name matches − tier0
//	tier2 = matches − name matches
//
// where matches = (∩ over words of the all-field sets) ∩ filters and name
// matches = (∩ over words of the name-field sets) ∩ filters. Name tokens
// are among a station's tokens and an exact name matches every word, so
// tier0 ⊆ name matches ⊆ matches: the tiers' sizes follow from three
// cardinalities, and a difference is computed only for a tier the page
// reaches into.
func (s *Search) rankWords(f Set, filtered, keepWords bool) error {
	words := s.Work.Words
	matches, err := s.allWords(AllSpace, words)
	if err != nil || matches.Empty() {
		return err
	}
	if filtered {
		if keepWords {
			// facets leave a filter out of this search: keep the words'
			// set for them, intersecting into a fresh bitmap.
			matches.Owned = false
			s.words = matches
		}
		matches = s.Work.And(matches, f)
	}
	byName, err := s.allWords(NameSpace, words)
	if err != nil {
		return err
	}
	if filtered {
		byName = s.Work.And(byName, f)
	}
	exact, err := s.exactName(words)
	if err != nil {
		return err
	}
	exact = s.Work.And(exact, matches)
	s.Work.tiers = append(s.Work.tiers, wholeTier(exact), diffTier(byName, exact), diffTier(matches, byName))
	return nil
}

// tier is one relevance tier: the set of minus removed from of, with its
// size n known before the difference is computed (if it ever is).
// Distinct searches may leave minus unknown and walk (see walkDistinct):
// then n counts the groups of of, and a group's entries after its first
// are passed over as the page is collected. A distinct search's tier
// also leaves out dups, its duplicates (dups ⊆ of − minus), so that the
// difference is never built: at 5M stations a tier of a broad search is
// hundreds of kilobytes of containers.
type tier struct {
	of, minus, dups Set
	n               int
	walk            bool
}

// without reports whether the tier leaves r out (r in of).
func (t *tier) without(r uint32) bool {
	return t.minus.BM != nil && t.minus.BM.Contains(r) || t.dups.BM != nil && t.dups.BM.Contains(r)
}

// rank is the number of the tier's members up to x (of's, less those of
// minus and dups, which are in of).
func (t *tier) rank(x uint32) int {
	n := int(t.of.BM.Rank(x))
	for _, out := range [...]Set{t.minus, t.dups} {
		if out.BM != nil && !out.Empty() {
			n -= int(out.BM.Rank(x))
		}
	}
	return n
}

// hasOut reports whether the tier leaves anything of of out.
func (t *tier) hasOut() bool {
	return t.minus.BM != nil && !t.minus.Empty() || t.dups.BM != nil && !t.dups.Empty()
}

func wholeTier(t Set) tier { return tier{of: t, n: t.Card()} }

// diffTier is of − minus where minus ⊆ of.
func diffTier(of, minus Set) tier {
	return tier{of: of, minus: minus, n: max(0, of.Card()-minus.Card())}
}

// members is the tier as a set, computing the difference now. roaring's
// AndNot leaves both operands alone: minus is another tier's of.
func (s *Search) members(t tier) Set {
	if !t.hasOut() {
		return t.of
	}
	m := s.Work.Settle(t.of)
	for _, out := range [...]Set{t.minus, t.dups} {
		if out.BM != nil && !out.Empty() {
			m = Set{BM: roaring.AndNot(m.BM, s.Work.Settle(out).BM), Owned: true}
		}
	}
	return m
}

func (s *Search) total() int {
	n := 0
	for _, t := range s.Work.tiers {
		n += t.n
	}
	return n
}

// locate collects the record numbers of the page into w.recs: it skips
// whole tiers by size, selects the first record inside the tier where the
// page starts, and iterates from there across tiers.
func (s *Search) locate(offset, limit int) error {
	skip := offset
	for _, t := range s.Work.tiers {
		if len(s.Work.recs) == limit {
			return nil
		}
		if skip >= t.n {
			skip -= t.n
			continue
		}
		if t.walk {
			if err := walkDistinct(s, t, skip, limit); err != nil {
				return err
			}
		} else {
			s.collectTier(t, skip, limit)
		}
		skip = 0
	}
	return nil
}

// collectTier collects from tier t as collect does from its members,
// without computing the difference: the first record is found by rank
// (the records of of up to x, less those of minus, minus ⊆ of), and those
// of minus are passed over from there.
func (s *Search) collectTier(t tier, skip, limit int) {
	if !t.hasOut() {
		s.collect(t.of, skip, limit)
		return
	}
	it := &s.Work.it
	it.Initialize(t.of.BM)
	it.AdvanceIfNeeded(t.selectAt(skip))
	for it.HasNext() && len(s.Work.recs) < limit {
		if r := it.Next(); !t.without(r) {
			s.Work.recs = append(s.Work.recs, r)
		}
	}
}

// selectAt is the tier's i-th member (from 0, i below its size): the
// smallest x with i+1 members up to it, found by rank.
func (t *tier) selectAt(i int) uint32 {
	lo, hi := uint64(t.of.BM.Minimum()), uint64(t.of.BM.Maximum())
	for lo < hi {
		mid := lo + (hi-lo)/2
		if t.rank(uint32(mid)) > i {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return uint32(lo)
}

func (s *Search) collect(t Set, skip, limit int) {
	it := &s.Work.it
	it.Initialize(t.BM)
	if skip > 0 {
		first, err := t.BM.Select(uint32(skip))
		if err != nil {
			return // unreachable: skip < cardinality
		}
		it.AdvanceIfNeeded(first)
	}
	for it.HasNext() && len(s.Work.recs) < limit {
		s.Work.recs = append(s.Work.recs, it.Next())
	}
}

// records reads the blocks of bucket (stations or their JSON) through the
// search's open bucket, with its key buffer.
func (s *Search) Records(bucket []byte) RecordReader {
	return RecordReader{Stations: s.Bucket(bucket), Blocks: s.blocksOf(bucket), key: s.Work.key[:0]}
}

// decodePage decodes the collected records; they own their memory.
func (s *Search) decodePage() ([]format.Record, error) {
	out, raw, err := DecodeRecords(s.Records(format.BucketStations), s.Work.recs, s.Work.raw)
	s.Work.raw = raw
	return out, err
}

// facetsAndSuggestions adds what q asks for beyond the page: facet counts, and
// suggestions when a query with words has no result. plain says which
// path answered the search, and so where its match set is: m when not
// plain.
func (s *Search) facetsAndSuggestions(q Query, res *Result, plain bool, m Set, count FacetCounter, suggest Suggester) error {
	if count != nil && q.Facets.Any() {
		if q.FacetLimit == 0 {
			q.FacetLimit = DefaultFacetLimit
		}
		f, err := count(s, q, m, plain)
		if err != nil {
			return err
		}
		res.Facets, res.MemoFacets, res.MemoBounded = f, s.MemoFacets, s.MemoBounded
	}
	if suggest != nil && q.Suggest && res.Total == 0 && len(s.Work.Words) > 0 {
		sg, err := suggest(s, q)
		if err != nil {
			return err
		}
		res.Suggestions = sg
	}
	return nil
}

// Matches is the whole match set of the ranked search: the widest tier's
// base set (see rankWords and rankWithoutWords), or empty.
func (s *Search) Matches() Set {
	switch len(s.Work.tiers) {
	case 0:
		return s.Work.Scratch()
	case 1:
		return s.Work.tiers[0].of
	}
	return s.Work.tiers[len(s.Work.tiers)-1].of
}

// matchSet is the match set of q with the filter of dimension except left
// out: the words' set kept by rankWords (or computed again) and the other
// filters.
func (s *Search) MatchSet(q Query, except Dim) (Set, error) {
	f, filtered, err := s.Filtered(q, except)
	if err != nil || filtered && f.Empty() {
		return s.Work.Scratch(), err
	}
	if len(s.Work.Words) == 0 {
		if filtered {
			return f, nil
		}
		all := s.Work.Scratch()
		all.BM.AddRange(0, uint64(s.Stations))
		return all, nil
	}
	m := s.words
	if m.BM == nil {
		var err error
		if m, err = s.allWords(AllSpace, s.Work.Words); err != nil {
			return Set{}, err
		}
		// kept for the other facets' sets: and intersects it into a
		// fresh bitmap
		m.Owned = false
		s.words = m
	}
	if m.Empty() || !filtered {
		return m, nil
	}
	return s.Work.And(m, f), nil
}

package core

import (
	"fmt"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"stationdex/internal/fold"
	"stationdex/internal/format"
)

// Search runs q: one read transaction, posting lists combined into at most
// three tiers (see the package comment), and only the page's records
// decoded.
func (ix *Index) Search(q Query) (Result, error) {
	res, _, err := ix.search(q, nil)
	return res, err
}

// search runs q, decoding the page's records, or with stored not nil
// appending the page's stored JSON to *stored instead (SearchJSON).
func (ix *Index) search(q Query, stored *[]byte) (Result, []byte, error) {
	if err := checkQuery(q); err != nil {
		return Result{}, nil, err
	}
	var res Result
	err := ix.withSearch(func(s *search) error { return s.run(q, ix.meta.Stations, &res, stored) })
	if err != nil {
		return Result{}, nil, fmt.Errorf("search %q: %w", q.Q, err)
	}
	if stored == nil {
		return res, nil, nil
	}
	return res, *stored, nil
}

func (s *search) run(q Query, stations int, res *Result, stored *[]byte) error {
	start := time.Now()
	s.w.words = fold.AppendTokens(s.w.words[:0], q.Q)
	plain := plainQuery(q, len(s.w.words))
	var err error
	var gi *groupIndex // a distinct plain search's
	if plain && q.Distinct {
		if gi, err = s.groupIndex(); err != nil {
			return err
		}
	}
	if plain {
		res.Total, err = s.planPlain(q, gi)
	} else if err = s.rank(q, stations); err == nil {
		res.Total = s.total()
	}
	if err != nil {
		return err
	}
	res.Entries = res.Total
	var m Set
	if !plain {
		m = s.matches() // before distinctTiers narrows the tiers
	}
	switch {
	case gi != nil:
		res.Total = s.w.plain.groups
		gi.newSeen(&s.w.seen) // the page's walk meets the groups again
	case q.Distinct:
		if err := s.distinctTiers(q); err != nil {
			return err
		}
		res.Total = s.total()
	}
	if err := s.facetsAndSuggestions(q, res, plain, m); err != nil {
		return err
	}
	if plain {
		s.collectPlain(q.Offset, q.Limit, gi)
	} else if err := s.locate(q.Offset, q.Limit); err != nil {
		return err
	}
	if q.CountVariants {
		if res.Variants, err = s.variantCounts(); err != nil {
			return err
		}
	}
	decode := time.Now()
	res.Timing.Bitmap = decode.Sub(start)
	if stored != nil {
		*stored, err = s.copyPageJSON(*stored)
	} else {
		res.Stations, err = s.decodePage()
	}
	res.Timing.Decode = time.Since(decode)
	return err
}

// rank fills w.tiers with the result tiers, best first, for q's words in
// w.words (run tokenises them).
func (s *search) rank(q Query, stations int) error {
	f, filtered, err := s.filters(q, noDim)
	if err != nil || (filtered && f.empty()) {
		return err
	}
	if len(s.w.words) == 0 {
		return s.rankWithoutWords(f, filtered, stations)
	}
	return s.rankWords(f, filtered, q.Facets.Any())
}

// rankWithoutWords is a single alphabetical tier. Every station is the
// record range [0, stations): a run bitmap of one interval per 65536
// records, not a list of records.
func (s *search) rankWithoutWords(f Set, filtered bool, stations int) error {
	if !filtered {
		f = s.w.scratch()
		f.bm.AddRange(0, uint64(stations))
	}
	s.w.tiers = append(s.w.tiers, wholeTier(f))
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
func (s *search) rankWords(f Set, filtered, keepWords bool) error {
	words := s.w.words
	matches, err := s.allWords(AllSpace, words)
	if err != nil || matches.empty() {
		return err
	}
	if filtered {
		if keepWords {
			// facets leave a filter out of this search: keep the words'
			// set for them, intersecting into a fresh bitmap.
			matches.owned = false
			s.words = matches
		}
		matches = s.w.And(matches, f)
	}
	byName, err := s.allWords(NameSpace, words)
	if err != nil {
		return err
	}
	if filtered {
		byName = s.w.And(byName, f)
	}
	exact, err := s.exactName(words)
	if err != nil {
		return err
	}
	exact = s.w.And(exact, matches)
	s.w.tiers = append(s.w.tiers, wholeTier(exact), diffTier(byName, exact), diffTier(matches, byName))
	return nil
}

// tier is one relevance tier: the set of minus removed from of, with its
// size n known before the difference is computed (if it ever is).
// Distinct searches may leave minus unknown and walk (see walkDistinct):
// then n counts the groups of of, and a group's entries after its first
// are passed over as the page is collected.
type tier struct {
	of, minus Set
	n         int
	walk      bool
}

func wholeTier(t Set) tier { return tier{of: t, n: t.Card()} }

// diffTier is of − minus where minus ⊆ of.
func diffTier(of, minus Set) tier {
	return tier{of: of, minus: minus, n: max(0, of.Card()-minus.Card())}
}

// members is the tier as a set, computing the difference now. roaring's
// AndNot leaves both operands alone: minus is another tier's of.
func (s *search) members(t tier) Set {
	if t.minus.bm == nil || t.minus.empty() {
		return t.of
	}
	of, minus := s.w.Settle(t.of), s.w.Settle(t.minus)
	return Set{bm: roaring.AndNot(of.bm, minus.bm), owned: true}
}

func (s *search) total() int {
	n := 0
	for _, t := range s.w.tiers {
		n += t.n
	}
	return n
}

// locate collects the record numbers of the page into w.recs: it skips
// whole tiers by size, selects the first record inside the tier where the
// page starts, and iterates from there across tiers.
func (s *search) locate(offset, limit int) error {
	skip := offset
	for _, t := range s.w.tiers {
		if len(s.w.recs) == limit {
			return nil
		}
		if skip >= t.n {
			skip -= t.n
			continue
		}
		if t.walk {
			if err := s.walkDistinct(t, skip, limit); err != nil {
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
func (s *search) collectTier(t tier, skip, limit int) {
	if t.minus.bm == nil || t.minus.empty() {
		s.collect(t.of, skip, limit)
		return
	}
	of, minus := t.of.bm, t.minus.bm
	// the smallest x with skip+1 records of the tier up to it
	lo, hi := uint64(of.Minimum()), uint64(of.Maximum())
	for lo < hi {
		mid := lo + (hi-lo)/2
		if int(of.Rank(uint32(mid))-minus.Rank(uint32(mid))) > skip {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	it := &s.w.it
	it.Initialize(of)
	it.AdvanceIfNeeded(uint32(lo))
	for it.HasNext() && len(s.w.recs) < limit {
		if r := it.Next(); !minus.Contains(r) {
			s.w.recs = append(s.w.recs, r)
		}
	}
}

func (s *search) collect(t Set, skip, limit int) {
	it := &s.w.it
	it.Initialize(t.bm)
	if skip > 0 {
		first, err := t.bm.Select(uint32(skip))
		if err != nil {
			return // unreachable: skip < cardinality
		}
		it.AdvanceIfNeeded(first)
	}
	for it.HasNext() && len(s.w.recs) < limit {
		s.w.recs = append(s.w.recs, it.Next())
	}
}

// records reads the blocks of bucket (stations or their JSON) through the
// search's open bucket, with its key buffer.
func (s *search) records(bucket []byte) RecordReader {
	return RecordReader{Stations: s.bucket(bucket), Blocks: s.blocksOf(bucket), key: s.w.key[:0]}
}

// decodePage decodes the collected records; they own their memory.
func (s *search) decodePage() ([]format.Record, error) {
	out, raw, err := decodeRecords(s.records(format.BucketStations), s.w.recs, s.w.raw)
	s.w.raw = raw
	return out, err
}

// facetsAndSuggestions adds what q asks for beyond the page: facet counts, and
// suggestions when a query with words has no result. plain says which
// path answered the search, and so where its match set is: m when not
// plain.
func (s *search) facetsAndSuggestions(q Query, res *Result, plain bool, m Set) error {
	if q.Facets.Any() {
		if q.FacetLimit == 0 {
			q.FacetLimit = DefaultFacetLimit
		}
		f, err := s.facets(q, m, plain)
		if err != nil {
			return err
		}
		res.Facets, res.MemoFacets = f, s.memoFacets
	}
	if q.Suggest && res.Total == 0 && len(s.w.words) > 0 {
		sg, err := s.suggest(q)
		if err != nil {
			return err
		}
		res.Suggestions = sg
	}
	return nil
}

// matches is the whole match set of the ranked search: the widest tier's
// base set (see rankWords and rankWithoutWords), or empty.
func (s *search) matches() Set {
	switch len(s.w.tiers) {
	case 0:
		return s.w.scratch()
	case 1:
		return s.w.tiers[0].of
	}
	return s.w.tiers[len(s.w.tiers)-1].of
}

// matchSet is the match set of q with the filter of dimension except left
// out: the words' set kept by rankWords (or computed again) and the other
// filters.
func (s *search) matchSet(q Query, except Dim) (Set, error) {
	f, filtered, err := s.filters(q, except)
	if err != nil || filtered && f.empty() {
		return s.w.scratch(), err
	}
	if len(s.w.words) == 0 {
		if filtered {
			return f, nil
		}
		all := s.w.scratch()
		all.bm.AddRange(0, uint64(s.stations))
		return all, nil
	}
	m := s.words
	if m.bm == nil {
		var err error
		if m, err = s.allWords(AllSpace, s.w.words); err != nil {
			return Set{}, err
		}
		// kept for the other facets' sets: and intersects it into a
		// fresh bitmap
		m.owned = false
		s.words = m
	}
	if m.empty() || !filtered {
		return m, nil
	}
	return s.w.And(m, f), nil
}

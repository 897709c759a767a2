package query

import (
	"bytes"
	"math"

	"stationdex/indexer/format"
)

// dimension names a faceted filter, so that a facet can count its own
// dimension with that one filter left out (see Facets).
type dimension int

const (
	dimNone dimension = iota
	dimCountry
	dimLanguage
	dimGenre
)

// filters is the intersection of the requested filters, leaving out the
// one of dimension except; ok is false when no filter applies, so that
// "no filter" is not a set of every station. It stops at the first empty
// filter.
func (s *search) filters(q Query, except dimension) (f set, ok bool, err error) {
	add := func(one set, err2 error) bool {
		if err2 != nil {
			err = err2
			return false
		}
		f = s.intersect(f, ok, one)
		ok = true
		return !f.empty()
	}
	switch {
	case q.Country != "" && except != dimCountry && !add(s.country(q.Country)):
	case q.Language != "" && except != dimLanguage && !add(s.language(q.Language)):
	case q.Genre != "" && except != dimGenre && !add(s.genre(q.Genre)):
	case len(q.Codecs) > 0 && !add(s.codecs(q.Codecs)):
	case (q.BitrateMin > 0 || q.BitrateMax > 0) && !add(s.bitrates(q.BitrateMin, q.BitrateMax)):
	case q.Near != nil && !add(s.near(*q.Near)):
	}
	return f, ok, err
}

// bitrateRange is the first and last key of format.BucketBitrates in
// [lo, hi] kbps; 0 leaves that end open.
func bitrateRange(lo, hi int) (from, end []byte) {
	to := uint32(math.MaxUint32)
	if hi > 0 {
		to = uint32(hi)
	}
	return format.BitrateKey(uint32(max(lo, 1))), format.BitrateKey(to)
}

// codecs is the union of the stations of each codec.
func (s *search) codecs(names []string) (set, error) {
	lists := s.w.rawLists[:0]
	defer func() { clear(lists); s.w.rawLists = lists[:0] }()
	for _, c := range names {
		if v := s.lookup(format.BucketCodecs, s.keyOf(c)); v != nil {
			lists = append(lists, v)
		}
	}
	return s.w.unionRaw(lists)
}

// bitrates is the union of the stations of every bitrate in [lo, hi]; 0
// leaves that end open. Real data has a few hundred distinct bitrates.
func (s *search) bitrates(lo, hi int) (set, error) {
	lists := s.w.rawLists[:0]
	defer func() { clear(lists); s.w.rawLists = lists[:0] }()
	from, end := bitrateRange(lo, hi)
	c := s.bucket(format.BucketBitrates).cursor()
	for k, v := c.Seek(from); k != nil && bytes.Compare(k, end) <= 0; k, v = c.Next() {
		lists = append(lists, v)
	}
	return s.w.unionRaw(lists)
}

// near is the stations within n's radius: the points of every cell that
// can hold one, each checked by its exact distance.
func (s *search) near(n Near) (set, error) {
	out := s.w.scratch()
	err := walkNear(s.tx, n, func(p format.GeoPoint, _ float64) {
		out.bm.Add(p.Record)
	})
	return out, err
}

func (s *search) intersect(acc set, started bool, one set) set {
	if !started {
		return one
	}
	return s.w.and(acc, one)
}

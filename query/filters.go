package query

import (
	"bytes"
	"math"

	"stationdex/indexer/format"
	"stationdex/indexer/iso"
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
	add := func(one set) bool {
		f = s.intersect(f, ok, one)
		ok = true
		return !f.empty()
	}
	err = s.eachFilter(q, except, func(_ dimension, lists [][]byte) (bool, error) {
		one, err := s.w.unionRaw(lists)
		if err != nil {
			return false, err
		}
		return add(one), nil
	})
	if err != nil || (ok && f.empty()) || q.Near == nil {
		return f, ok, err
	}
	near, err := s.near(*q.Near)
	if err == nil {
		add(near)
	}
	return f, ok, err
}

// eachFilter calls fn with the dimension and the stored lists of each
// filter of q but the one of dimension except, in a fixed order, until fn
// says to stop: the list of a country, language or genre (none for a
// value nothing has), those of every value for codecs and bitrates (of no
// dimension a facet leaves out: dimNone). Both search paths build on it
// (filters; plainFilters), and the facet memo's operands. The distance
// filter has no stored list (see near). lists is scratch, valid during
// the call.
func (s *search) eachFilter(q Query, except dimension, fn func(dim dimension, lists [][]byte) (more bool, err error)) error {
	lists := s.w.rawLists[:0]
	defer func() { clear(lists[:cap(lists)]); s.w.rawLists = lists[:0] }()
	one := func(dim dimension, bucket, key []byte) (bool, error) {
		lists = lists[:0]
		if v := s.lookup(bucket, key); v != nil {
			lists = append(lists, v)
		}
		return fn(dim, lists)
	}
	more, err := true, error(nil)
	if q.Country != "" && except != dimCountry {
		more, err = one(dimCountry, format.BucketCountries, s.countryKey(q.Country))
	}
	if q.Language != "" && except != dimLanguage && more && err == nil {
		bucket, key := s.languageKey(q.Language)
		more, err = one(dimLanguage, bucket, key)
	}
	if q.Genre != "" && except != dimGenre && more && err == nil {
		more, err = one(dimGenre, format.BucketGenres, s.keyOf(format.FacetKey(q.Genre)))
	}
	if len(q.Codecs) > 0 && more && err == nil {
		lists = lists[:0]
		for _, c := range q.Codecs {
			if v := s.lookup(format.BucketCodecs, s.keyOf(c)); v != nil {
				lists = append(lists, v)
			}
		}
		more, err = fn(dimNone, lists)
	}
	if (q.BitrateMin > 0 || q.BitrateMax > 0) && more && err == nil {
		// every bitrate in the range: real data has a few hundred
		lists = lists[:0]
		from, end := bitrateRange(q.BitrateMin, q.BitrateMax)
		c := s.bucket(format.BucketBitrates).cursor()
		for k, v := c.Seek(from); k != nil && bytes.Compare(k, end) <= 0; k, v = c.Next() {
			lists = append(lists, v)
		}
		_, err = fn(dimNone, lists)
	}
	return err
}

// filterCount is the number of filters of q that eachFilter visits.
func filterCount(q Query) int {
	n := 0
	for _, on := range [...]bool{q.Country != "", q.Language != "", q.Genre != "", len(q.Codecs) > 0, q.BitrateMin > 0 || q.BitrateMax > 0} {
		if on {
			n++
		}
	}
	return n
}

// countryKey is the code in upper case, as countries are filed; only
// ASCII letters can match.
func (s *search) countryKey(code string) []byte {
	key := s.keyOf(code)
	for i, c := range key {
		if 'a' <= c && c <= 'z' {
			key[i] = c - 'a' + 'A'
		}
	}
	return key
}

// languageKey accepts an exact source label or anything iso.LanguageCode
// resolves (codes of every ISO 639 part, English and native names). When
// v resolves to a code, its label's stations are already filed under that
// code (the indexer files every label under the code it resolves to), so
// the code's list alone is the union of both.
func (s *search) languageKey(v string) (bucket, key []byte) {
	if code, ok := iso.LanguageCode(v); ok {
		return format.BucketLangCodes, s.keyOf(code)
	}
	return format.BucketLangLabels, s.keyOf(format.FacetKey(v))
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

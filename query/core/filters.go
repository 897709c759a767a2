package core

import (
	"bytes"
	"math"

	"stationdex/internal/format"
)

// filters is the intersection of the requested filters, leaving out the
// one of dimension except; ok is false when no filter applies, so that
// "no filter" is not a set of every station. It stops at the first empty
// filter.
func (s *Search) Filtered(q Query, except Dim) (f Set, ok bool, err error) {
	add := func(one Set) bool {
		f = s.intersect(f, ok, one)
		ok = true
		return !f.Empty()
	}
	err = s.EachFilter(q, except, func(_ Dim, lists [][]byte) (bool, error) {
		one, err := s.Work.UnionRaw(lists)
		if err != nil {
			return false, err
		}
		return add(one), nil
	})
	if err != nil || (ok && f.Empty()) || q.Near == nil {
		return f, ok, err
	}
	near, err := s.near(*q.Near, q.Sort == SortDistance && except == NoDim)
	if err == nil {
		add(near)
	}
	return f, ok, err
}

// eachFilter calls fn with the dimension and the stored lists of each
// filter of q but the one of dimension except, in a fixed order (the
// dimensions', then bitrates), until fn says to stop: the lists of the
// dimension's values that some station has (none when no station has
// any), those of every bitrate in range (of noDim: no facet leaves it
// out). Both search paths build on it (filters; plainFilters), and the
// facet memo's operands. The distance filter has no stored list (see
// near). lists is scratch, valid during the call.
func (s *Search) EachFilter(q Query, except Dim, fn func(d Dim, lists [][]byte) (more bool, err error)) error {
	lists := s.Work.RawLists[:0]
	defer func() { clear(lists[:cap(lists)]); s.Work.RawLists = lists[:0] }()
	for d := range NumDims {
		if len(q.Filter[d]) == 0 || d == except {
			continue
		}
		lists = lists[:0]
		for _, value := range q.Filter[d] {
			bucket, key := Dims[d].Key(s.Work.key[:0], value)
			s.Work.key = key
			if v := s.Lookup(bucket, key); v != nil {
				lists = append(lists, v)
			}
		}
		if more, err := fn(d, lists); err != nil || !more {
			return err
		}
	}
	if q.BitrateMin > 0 || q.BitrateMax > 0 {
		// every bitrate in the range: real data has a few hundred
		lists = lists[:0]
		from, end := bitrateRange(q.BitrateMin, q.BitrateMax)
		c := s.Bucket(format.BucketBitrates).cursor()
		for k, v := c.Seek(from); k != nil && bytes.Compare(k, end) <= 0; k, v = c.Next() {
			lists = append(lists, v)
		}
		_, err := fn(NoDim, lists)
		return err
	}
	return nil
}

// filterCount is the number of filters of q that eachFilter visits.
func filterCount(q Query) int {
	n := q.Filter.Filtered().Len()
	if q.BitrateMin > 0 || q.BitrateMax > 0 {
		n++
	}
	return n
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
// can hold one, each checked by its exact distance. With keep (a search
// by distance), each station is kept with its distance for the page
// (nearestPage), once a search.
func (s *Search) near(n Near, keep bool) (Set, error) {
	out := s.Work.Scratch()
	if keep = keep && !s.Work.nearKept; keep {
		s.Work.nearHits, s.Work.nearKept = s.Work.nearHits[:0], true
	}
	err := walkNear(s.Bucket(format.BucketGeo).cursor(), n, func(p format.GeoPoint, km float64) {
		out.BM.Add(p.Record)
		if keep {
			s.Work.nearHits = append(s.Work.nearHits, nearHit{p.Record, km})
		}
	})
	return out, err
}

func (s *Search) intersect(acc Set, started bool, one Set) Set {
	if !started {
		return one
	}
	return s.Work.And(acc, one)
}

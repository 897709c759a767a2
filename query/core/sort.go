package core

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"

	"stationdex/internal/format"
)

// Sorts: the orders a search's results may come in. Relevance is the
// tiers (see the package comment); every other order takes the matches
// as one set. Name is record order, the set's members in turn. Popular
// and bitrate are permutations of the record numbers the indexer stored
// (format.BucketSearchOrders), each sorted by its key and then by
// record number (a total order: pages never overlap), walked against
// the set only as far as the page needs, as the name order is, so that
// a page still decodes only its own records; a set small beside the
// index is sorted by its members' places in the permutation instead
// (ranks, made from it once per index). Distance is the stations of the
// near filter's circle, measured as the filter measures them, sorted
// nearest first (ties by record number).

// Sort is the order of a search's results.
type Sort uint8

const (
	SortRelevance Sort = iota
	SortName
	SortPopular
	SortDistance
	SortBitrate
	NumSorts
)

// SortNames are the sorts' names, as the sort parameter takes them.
var SortNames = [NumSorts]string{"relevance", "name", "popular", "distance", "bitrate"}

func (o Sort) String() string {
	if o < NumSorts {
		return SortNames[o]
	}
	return fmt.Sprintf("sort(%d)", o)
}

// SortOf is the sort named name ("" is relevance).
func SortOf(name string) (Sort, bool) {
	if name == "" {
		return SortRelevance, true
	}
	for o, n := range SortNames {
		if n == name {
			return Sort(o), true
		}
	}
	return 0, false
}

// stored is o's permutation in format.SearchSorts, -1 for an order that
// has none.
func (o Sort) stored() int {
	switch o {
	case SortPopular:
		return format.SortPopular
	case SortBitrate:
		return format.SortBitrate
	}
	return -1
}

// checkSort refuses a sort the query cannot have.
func checkSort(q Query) error {
	switch {
	case q.Sort >= NumSorts:
		return fmt.Errorf("%w: %s", ErrInvalidQuery, q.Sort)
	case q.Sort == SortDistance && q.Near == nil:
		return fmt.Errorf("%w: sort by distance without near", ErrInvalidQuery)
	}
	return nil
}

// oneTier makes the ranked matches one tier, in record order: the set
// every order other than relevance takes.
func (s *Search) oneTier() {
	if len(s.Work.tiers) > 1 {
		s.Work.tiers = append(s.Work.tiers[:0], wholeTier(s.Matches()))
	}
}

// sortedPage collects the page of a search in an order that is not
// record order (popular, bitrate, distance) into s.Work.recs, and with
// distance each one's distance in res.Distances.
func (s *Search) sortedPage(q Query, res *Result) error {
	if len(s.Work.tiers) == 0 || s.Work.tiers[0].n == 0 {
		return nil
	}
	m := s.members(s.Work.tiers[0])
	upto := q.Offset + q.Limit
	if q.Sort == SortDistance {
		return s.nearestPage(q, m, upto, res)
	}
	o := q.Sort.stored()
	k := int(m.Card())
	if sortsCheaper(k, min(upto, k), s.Stations) {
		ranks, err := searchRanks(s, o)
		if err != nil {
			return err
		}
		return s.sortMembers(m, ranks, q.Offset, upto)
	}
	return s.walkOrder(m, o, q.Offset, upto)
}

// sortOrWalk weighs the two ways for a set of k members, to the upto-th
// in order, in an index of n stations, as query/rbapi does for the
// Radio Browser API's orders: sorting costs about k (the members' ranks
// and a sort), walking about upto·n/k tests of a bit.
const sortOrWalk = 1.0 / 16

func sortsCheaper(k, upto, n int) bool {
	return float64(k)*float64(k) < float64(upto)*float64(n)*sortOrWalk
}

// orderChunk is chunk c of permutation o, checked for its length.
func orderChunk(ob *openBucket, key []byte, o int, c uint32, stations int) ([]byte, []byte, error) {
	key = format.SearchOrderKey(key[:0], o, c)
	chunk := ob.Get(key)
	first := int(c) * format.OrderChunkLen
	if want := 4 * min(format.OrderChunkLen, stations-first); len(chunk) != want {
		return key, nil, fmt.Errorf("%w: order %s: chunk of %d bytes at %d, want %d", format.ErrCorrupt, format.SearchSorts[o], len(chunk), first, want)
	}
	return key, chunk, nil
}

// walkOrder walks permutation o from its start, keeping the members of
// m from the offset-th to the upto-th. A walk tests a station per step,
// about upto·n/k steps for k members of n stations (sortsCheaper keeps
// that short), each a look-up in m's container of the station's key.
func (s *Search) walkOrder(m Set, o, offset, upto int) error {
	ob, stations := s.Bucket(format.BucketSearchOrders), s.Stations
	seen := 0
	for c := uint32(0); int(c)*format.OrderChunkLen < stations && seen < upto; c++ {
		var chunk []byte
		var err error
		if s.Work.key, chunk, err = orderChunk(ob, s.Work.key, o, c, stations); err != nil {
			return err
		}
		for i := 0; i+4 <= len(chunk) && seen < upto; i += 4 {
			n := binary.LittleEndian.Uint32(chunk[i:])
			if !m.BM.Contains(n) {
				continue
			}
			if seen >= offset {
				s.Work.recs = append(s.Work.recs, n)
			}
			seen++
		}
	}
	return nil
}

// sortMembers puts m's members in order by their ranks in the
// permutation and keeps those from the offset-th to the upto-th.
func (s *Search) sortMembers(m Set, ranks []uint32, offset, upto int) error {
	keyed := make([]uint64, 0, m.Card())
	for it := m.BM.Iterator(); it.HasNext(); {
		n := it.Next()
		if int(n) >= len(ranks) {
			return fmt.Errorf("%w: record %d past the stations", format.ErrCorrupt, n)
		}
		keyed = append(keyed, uint64(ranks[n])<<32|uint64(n))
	}
	slices.Sort(keyed)
	for _, k := range keyed[min(offset, len(keyed)):min(upto, len(keyed))] {
		s.Work.recs = append(s.Work.recs, uint32(k))
	}
	return nil
}

// searchRanks is each record's place in permutation o, made from it once
// per index (4 bytes a station), read through s.
func searchRanks(s *Search, o int) ([]uint32, error) {
	v, err := s.Index.Derived("core: ranks in the order "+format.SearchSorts[o], func(*Index) (any, error) {
		stations := s.Stations
		ranks := make([]uint32, stations)
		ob := s.Bucket(format.BucketSearchOrders)
		var key, chunk []byte
		var err error
		for c := uint32(0); int(c)*format.OrderChunkLen < stations; c++ {
			if key, chunk, err = orderChunk(ob, key, o, c, stations); err != nil {
				return nil, err
			}
			first := int(c) * format.OrderChunkLen
			for i := range len(chunk) / 4 {
				n := binary.LittleEndian.Uint32(chunk[4*i:])
				if int(n) >= stations {
					return nil, fmt.Errorf("%w: order %s: record %d past the stations", format.ErrCorrupt, format.SearchSorts[o], n)
				}
				ranks[n] = uint32(first + i)
			}
		}
		return ranks, nil
	})
	ranks, _ := v.([]uint32)
	return ranks, err
}

// nearestPage collects the members of m within the near filter's circle
// (all of them: the filter made m) by distance, nearest first, ties by
// record number, from the offset-th to the upto-th, with their distances.
func (s *Search) nearestPage(q Query, m Set, upto int, res *Result) error {
	var hits []nearHit
	err := walkNear(s.Bucket(format.BucketGeo).cursor(), *q.Near, func(p format.GeoPoint, km float64) {
		if m.BM.Contains(p.Record) {
			hits = append(hits, nearHit{p.Record, km})
		}
	})
	if err != nil {
		return err
	}
	slices.SortFunc(hits, func(a, b nearHit) int { return cmp.Or(cmp.Compare(a.km, b.km), cmp.Compare(a.rec, b.rec)) })
	page := hits[min(q.Offset, len(hits)):min(upto, len(hits))]
	res.Distances = make([]float64, len(page))
	for i, h := range page {
		s.Work.recs = append(s.Work.recs, h.rec)
		res.Distances[i] = h.km
	}
	return nil
}

// appendDistance ends a station's stored JSON (its closing brace cut
// off) with its distance_km, rounded to the metre.
func appendDistance(dst []byte, km float64) []byte {
	dst = strconv.AppendFloat(append(dst, `,"distance_km":`...), math.Round(km*1000)/1000, 'f', -1, 64)
	return append(dst, '}')
}

package core

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
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
// a page still decodes only its own records; where the walk would be
// long, the members' places in the permutation (ranks, made from it
// once per index) find the page instead (planOrder weighs the ways).
// Distance is the stations of the near filter's circle, measured once,
// as the filter measures them (it keeps them for the page), the nearest
// upto of them put in order, nearest first (ties by record number).

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
	k := m.Card()
	if q.Offset >= k {
		return nil
	}
	upto = min(upto, k)
	o := q.Sort.stored()
	ord, err := orderOf(s, o)
	if err != nil {
		return err
	}
	p := planOrder(k, q.Offset, upto, s.Stations, len(ord.blocks[0]))
	switch p.way {
	case sortWay:
		return s.sortMembers(m, ord.ranks, q.Offset, upto)
	case rankWay:
		return s.rankPage(m, o, ord.ranks, q.Offset, upto)
	}
	var dense []uint64
	if p.dense {
		dense = s.denseSet(m)
	}
	if done, err := s.walkOrder(m, dense, p.skip, o, ord, q.Offset, upto, p.budget); done || err != nil {
		return err
	}
	s.Work.recs = s.Work.recs[:0] // the walk met fewer members than the odds said: rank them
	return s.rankPage(m, o, ord.ranks, q.Offset, upto)
}

// The ways to the page of a stored order, for a set of k members whose
// page is its offset-th to upto-th in the order, in an index of n
// stations:
//
//   - walkWay walks the permutation, testing each station against the
//     set: about upto·n/k steps (members spread evenly over the order).
//     A short walk tests the set itself; a longer one a dense copy of
//     it (a bit per record), a step then costing about what copying a
//     member does. Up to the offset, whole blocks of the order
//     (orderIndex) are passed over by counting the members in each,
//     n/64 words ANDed, and only the last is walked. It suits a page
//     near the start of a set large beside the page.
//   - rankWay marks each member's place in the permutation (its rank) in
//     a bit per station, then counts the bits to the page: a member
//     costs about two steps, plus a pass over n/64 words, whatever the
//     page and however the members lie in the order.
//   - sortWay sorts the members by rank: for a few members, where the
//     pass over n/64 words would cost more.
//
// A walk stops after a budget of about twice what ranking costs, and
// ranks instead: members the order puts late cost at most that.
const (
	walkWay = iota
	rankWay
	sortWay
)

// Costs in units of a step of a dense walk, as measured on the real
// snapshot: a member copied into the dense set, a test of the set
// itself (a roaring look-up), a member ranked, a word of the rank bits
// or of a block's AND counted.
const (
	denseMemberCost = 1
	containsCost    = 10
	rankMemberCost  = 2
	wordCost        = 1
)

// orderPlan is the way sortedPage takes; for a walk, whether over a
// dense copy of the set, whether it counts blocks up to the offset, and
// its budget of steps.
type orderPlan struct {
	way         int
	dense, skip bool
	budget      int
}

func planOrder(k, offset, upto, n, blockWords int) orderPlan {
	words := n/64 + 1
	rank := rankMemberCost*k + wordCost*words
	if k*16 < words {
		return orderPlan{way: sortWay}
	}
	perMember := float64(n) / float64(k) // steps between members
	steps := float64(upto-offset) * perMember
	skip := float64(offset) * perMember
	blockLen := float64(orderBlockLen(n))
	blocks := skip / blockLen
	if blocks >= 1 {
		skip = blocks*float64(wordCost*blockWords) + blockLen/2
	}
	steps += skip
	// the copy: arrays a member at a time, denser containers whole
	containers := n>>16 + 1
	prep := float64(denseMemberCost*k + words/8)
	if k > 4096*containers {
		prep = float64(denseMemberCost*containerWords*containers + words/8)
	}
	if steps*containsCost < prep {
		return orderPlan{way: walkWay, budget: 2 * rank / containsCost}
	}
	if prep+steps <= float64(rank) {
		return orderPlan{way: walkWay, dense: true, skip: blocks >= 1, budget: 2 * rank}
	}
	return orderPlan{way: rankWay}
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

// denseSet is m as a bit per record number, in the workspace's pooled
// buffer (valid until the search ends).
func (s *Search) denseSet(m Set) []uint64 {
	if m.Empty() {
		return nil
	}
	dense := s.Work.DenseBuffer(containerWords * (int(m.BM.Maximum()>>16) + 1))
	m.BM.WriteDenseTo(dense)
	return dense
}

// has reports whether record n is in dense (a denseSet).
func has(dense []uint64, n uint32) bool {
	w := int(n >> 6)
	return w < len(dense) && dense[w]>>(n&63)&1 != 0
}

// andCount is the number of bits a and b share.
func andCount(a, b []uint64) int {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	c0, c1 := 0, 0
	i := 0
	for ; i+2 <= n; i += 2 {
		c0 += bits.OnesCount64(a[i] & b[i])
		c1 += bits.OnesCount64(a[i+1] & b[i+1])
	}
	if i < n {
		c0 += bits.OnesCount64(a[i] & b[i])
	}
	return c0 + c1
}

// walkOrder walks permutation o, keeping the members of m from the
// offset-th to the upto-th, for at most budget steps; done is false when
// the budget ran out first (the page is then partial). With dense (m as
// a denseSet), with skip the blocks of the order wholly before the
// offset are counted, not walked, and up to the offset members are counted without
// a branch per station; without, each station is looked up in m.
func (s *Search) walkOrder(m Set, dense []uint64, skip bool, o int, ord *orderIndex, offset, upto, budget int) (done bool, err error) {
	ob, stations := s.Bucket(format.BucketSearchOrders), s.Stations
	seen, from := 0, 0
	if dense != nil && skip {
		for _, block := range ord.blocks {
			c := andCount(dense, block)
			if seen+c > offset {
				break
			}
			seen += c
			from += ord.blockLen
		}
	}
	steps := 0
	for c := uint32(from / format.OrderChunkLen); int(c)*format.OrderChunkLen < stations && seen < upto; c++ {
		var chunk []byte
		if s.Work.key, chunk, err = orderChunk(ob, s.Work.key, o, c, stations); err != nil {
			return false, err
		}
		if first := int(c) * format.OrderChunkLen; from > first {
			chunk = chunk[4*(from-first):]
		}
		if left := budget - steps; len(chunk) > 4*left {
			chunk = chunk[:4*max(left, 0)]
		}
		steps += len(chunk) / 4
		i := 0
		if dense != nil {
			for ; i+4 <= len(chunk) && seen < offset; i += 4 {
				n := binary.LittleEndian.Uint32(chunk[i:])
				if w := int(n >> 6); w < len(dense) {
					seen += int(dense[w] >> (n & 63) & 1)
				}
			}
		}
		for ; i+4 <= len(chunk) && seen < upto; i += 4 {
			n := binary.LittleEndian.Uint32(chunk[i:])
			if dense != nil && !has(dense, n) || dense == nil && !m.BM.Contains(n) {
				continue
			}
			if seen >= offset {
				s.Work.recs = append(s.Work.recs, n)
			}
			seen++
		}
		if steps >= budget && seen < upto {
			return false, nil
		}
	}
	return true, nil
}

// rankPage marks the rank of each member of m in permutation o (ranks)
// as a bit per station, counts the bits to the offset-th and keeps the
// ranks from there to the upto-th, then reads their records from the
// permutation.
func (s *Search) rankPage(m Set, o int, ranks []uint32, offset, upto int) error {
	marks := s.Work.DenseBuffer(len(ranks)/64 + 1)
	err := EachBatch(s, m.BM, func(batch []uint32) error {
		for _, n := range batch {
			if int(n) >= len(ranks) {
				return fmt.Errorf("%w: record %d past the stations", format.ErrCorrupt, n)
			}
			r := ranks[n]
			marks[r>>6] |= 1 << (r & 63)
		}
		return nil
	})
	if err != nil {
		return err
	}
	seen := 0
	for w, word := range marks {
		c := bits.OnesCount64(word)
		if seen+c <= offset {
			seen += c
			continue
		}
		for ; word != 0 && seen < upto; word &= word - 1 {
			if seen >= offset {
				s.Work.recs = append(s.Work.recs, uint32(w*64+bits.TrailingZeros64(word)))
			}
			seen++
		}
		if seen >= upto {
			break
		}
	}
	return s.recordsAt(o, s.Work.recs)
}

// recordsAt replaces each rank of rs, ascending, by the record at that
// place of permutation o.
func (s *Search) recordsAt(o int, rs []uint32) error {
	ob, stations := s.Bucket(format.BucketSearchOrders), s.Stations
	var chunk []byte
	c := -1
	for i, r := range rs {
		if rc := int(r) / format.OrderChunkLen; rc != c {
			var err error
			if s.Work.key, chunk, err = orderChunk(ob, s.Work.key, o, uint32(rc), stations); err != nil {
				return err
			}
			c = rc
		}
		rs[i] = binary.LittleEndian.Uint32(chunk[4*(int(r)%format.OrderChunkLen):])
	}
	return nil
}

// sortMembers puts m's members in order by their ranks in the
// permutation and keeps those from the offset-th to the upto-th.
func (s *Search) sortMembers(m Set, ranks []uint32, offset, upto int) error {
	keyed := s.Work.sortKeys[:0]
	err := EachBatch(s, m.BM, func(batch []uint32) error {
		for _, n := range batch {
			if int(n) >= len(ranks) {
				return fmt.Errorf("%w: record %d past the stations", format.ErrCorrupt, n)
			}
			keyed = append(keyed, uint64(ranks[n])<<32|uint64(n))
		}
		return nil
	})
	s.Work.sortKeys = keyed[:0]
	if err != nil {
		return err
	}
	slices.Sort(keyed)
	for _, k := range keyed[min(offset, len(keyed)):min(upto, len(keyed))] {
		s.Work.recs = append(s.Work.recs, uint32(k))
	}
	return nil
}

// orderIndex is what the searches of an index derive from a stored
// order once: each record's place in it (its rank), and the order cut
// into orderBlocks blocks of blockLen ranks, each as a bit per record of
// the records it holds. 4 bytes a station and 2 bits.
type orderIndex struct {
	ranks    []uint32
	blocks   [][]uint64
	blockLen int
}

// orderBlocks is the number of blocks an order is cut into.
const orderBlocks = 16

func orderBlockLen(n int) int { return (n + orderBlocks - 1) / orderBlocks }

// orderKeys name the stored orders' orderIndex among an index's derived
// values.
var orderKeys = func() (keys [len(format.SearchSorts)]string) {
	for o, name := range format.SearchSorts {
		keys[o] = "core: the order " + name
	}
	return keys
}()

// orderOf is permutation o's orderIndex, made from it once per index,
// read through s.
func orderOf(s *Search, o int) (*orderIndex, error) {
	v, err := s.Index.Derived(orderKeys[o], func(*Index) (any, error) {
		stations := s.Stations
		ord := &orderIndex{ranks: make([]uint32, stations), blockLen: max(orderBlockLen(stations), 1)}
		words := stations/64 + 1
		for range orderBlocks {
			ord.blocks = append(ord.blocks, make([]uint64, words))
		}
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
				r := first + i
				ord.ranks[n] = uint32(r)
				ord.blocks[r/ord.blockLen][n>>6] |= 1 << (n & 63)
			}
		}
		return ord, nil
	})
	ord, _ := v.(*orderIndex)
	return ord, err
}

// nearestPage collects the members of m within the near filter's circle
// (all of them: the filter made m) by distance, nearest first, ties by
// record number, from the offset-th to the upto-th, with their distances.
// The filter kept every station of its circle with its distance
// (keptNear); those of m are the circle's stations when m has as many,
// and otherwise are found by a dense copy of m. Only the nearest upto
// are put in order.
func (s *Search) nearestPage(q Query, m Set, upto int, res *Result) error {
	if !s.Work.nearKept {
		if err := s.keepNear(*q.Near); err != nil {
			return err
		}
	}
	hits := s.Work.nearHits
	if k := m.Card(); k != len(hits) {
		dense := s.denseSet(m)
		in := hits[:0] // filtered in place: the kept hits serve this page only
		for _, h := range hits {
			if has(dense, h.rec) {
				in = append(in, h)
			}
		}
		hits = in
	}
	if q.Offset >= len(hits) {
		return nil
	}
	page := nearestFirst(hits, min(upto, len(hits)))[q.Offset:]
	res.Distances = make([]float64, len(page))
	for i, h := range page {
		s.Work.recs = append(s.Work.recs, h.rec)
		res.Distances[i] = h.km
	}
	return nil
}

// keepNear keeps every station within n's radius, with its distance, in
// the workspace for nearestPage.
func (s *Search) keepNear(n Near) error {
	s.Work.nearHits, s.Work.nearKept = s.Work.nearHits[:0], true
	return walkNear(s.Bucket(format.BucketGeo).cursor(), n, func(p format.GeoPoint, km float64) {
		s.Work.nearHits = append(s.Work.nearHits, nearHit{p.Record, km})
	})
}

// closer is the distance order: nearest first, ties by record number.
func closer(a, b nearHit) bool { return a.km < b.km || a.km == b.km && a.rec < b.rec }

// nearestFirst reorders hits so that its first k are the nearest k in
// order, and returns them: a heap of the k nearest seen (the farthest on
// top) when k is small beside the hits, else a sort of them all.
func nearestFirst(hits []nearHit, k int) []nearHit {
	if k <= 0 {
		return nil
	}
	if k*4 >= len(hits) {
		slices.SortFunc(hits, cmpNear)
		return hits[:k]
	}
	heap := hits[:k]
	for i := k/2 - 1; i >= 0; i-- {
		siftDown(heap, i)
	}
	for _, h := range hits[k:] {
		if closer(h, heap[0]) {
			heap[0] = h
			siftDown(heap, 0)
		}
	}
	slices.SortFunc(heap, cmpNear)
	return heap
}

func cmpNear(a, b nearHit) int { return cmp.Or(cmp.Compare(a.km, b.km), cmp.Compare(a.rec, b.rec)) }

// siftDown restores the heap below i, the farthest on top.
func siftDown(heap []nearHit, i int) {
	for {
		top, l, r := i, 2*i+1, 2*i+2
		if l < len(heap) && closer(heap[top], heap[l]) {
			top = l
		}
		if r < len(heap) && closer(heap[top], heap[r]) {
			top = r
		}
		if top == i {
			return
		}
		heap[i], heap[top] = heap[top], heap[i]
		i = top
	}
}

// appendDistance ends a station's stored JSON (its closing brace cut
// off) with its distance_km, rounded to the metre.
func appendDistance(dst []byte, km float64) []byte {
	dst = strconv.AppendFloat(append(dst, `,"distance_km":`...), math.Round(km*1000)/1000, 'f', -1, 64)
	return append(dst, '}')
}

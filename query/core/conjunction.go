package core

import (
	"encoding/binary"
	"math/bits"

	"stationdex/query/rawroaring"
)

// A conjunction is the intersection of stored posting lists evaluated one
// container key (a range of 65,536 records) at a time, in place in the
// file's mapping: a plain search counts its tiers and collects its page
// this way without building a bitmap of its matches, so it costs no
// allocation whatever the number of stations (roaring's FromBuffer and
// And allocate one container object per 65,536 records).
//
// Each operand (a conjunct) is the union of one or more lists: one list
// for a stored prefix or a filter value, several for a word whose tokens
// have no stored union, or a filter with several values.
type conjunction struct {
	parts []conjunct
}

// conjunct is the union of w.lists[first : first+n].
type conjunct struct{ first, n int }

// keySet is the members of a conjunction under one key, as sorted values
// (at most arrayMaxCard) or as a bitmap block.
type keySet struct {
	vals  []uint16
	blk   *[rawroaring.BlockWords]uint64
	inBlk bool
	n     int // members of blk when known, else -1
}

// keySetIter walks a keySet's members in ascending order.
type keySetIter struct {
	k    *keySet
	i    int    // next value, or word of the block
	word uint64 // the block word's members not yet returned
}

func (k *keySet) iterate() keySetIter { return keySetIter{k: k, i: -1} }

// next is the next member, false after the last.
func (it *keySetIter) next() (uint16, bool) {
	if !it.k.inBlk {
		if it.i++; it.i >= len(it.k.vals) {
			return 0, false
		}
		return it.k.vals[it.i], true
	}
	for it.word == 0 {
		if it.i++; it.i >= len(it.k.blk) {
			return 0, false
		}
		it.word = it.k.blk[it.i]
	}
	v := uint16(it.i<<6 | bits.TrailingZeros64(it.word))
	it.word &= it.word - 1
	return v, true
}

func (k *keySet) card() int {
	if !k.inBlk {
		return len(k.vals)
	}
	if k.n >= 0 {
		return k.n
	}
	n := 0
	for _, w := range k.blk {
		n += bits.OnesCount64(w)
	}
	return n
}

// appendTo appends the members to dst as records, base being the key's
// first record.
func (k *keySet) appendTo(dst []uint32, base uint32) []uint32 {
	if !k.inBlk {
		for _, v := range k.vals {
			dst = append(dst, base|uint32(v))
		}
		return dst
	}
	for i, word := range k.blk {
		for word != 0 {
			dst = append(dst, base|uint32(i<<6|bits.TrailingZeros64(word)))
			word &= word - 1
		}
	}
	return dst
}

// writeTo sets the members' bits in a zeroed block.
func (k *keySet) writeTo(blk *[rawroaring.BlockWords]uint64) {
	if k.inBlk {
		*blk = *k.blk
		return
	}
	for _, v := range k.vals {
		blk[v>>6] |= 1 << (v & 63)
	}
}

// has reports whether v is a member; vals are searched by bisection.
func (k *keySet) has(v uint16) bool {
	if k.inBlk {
		return k.blk[v>>6]>>(v&63)&1 != 0
	}
	lo, hi := 0, len(k.vals)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if k.vals[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(k.vals) && k.vals[lo] == v
}

// containerAt is the container of cs with the key, or nil. Keys ascend
// strictly from 0 up (rawroaring.Parse checks it), so the key's container, if
// any, is at most key places in: a list with a container under every key
// up to this one (a common word or filter value) has it exactly there,
// found without a search. Small enough to be inlined; the others are
// searched below that place.
func containerAt(cs []rawroaring.Container, key uint16) *rawroaring.Container {
	if int(key) < len(cs) && cs[key].Key == key {
		return &cs[key]
	}
	return searchContainer(cs, key)
}

// searchContainer is containerAt's bisection, over the places before
// key. It is kept out of line so that containerAt stays cheap enough to
// be inlined.
//
//go:noinline
func searchContainer(cs []rawroaring.Container, key uint16) *rawroaring.Container {
	lo, hi := 0, min(len(cs), int(key))
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cs[m].Key < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(cs) && cs[lo].Key == key {
		return &cs[lo]
	}
	return nil
}

// rawCard is the number of values of a container.
func rawCard(c *rawroaring.Container) int {
	if c.Kind == rawroaring.Run {
		return rawroaring.RunCard(c.Data)
	}
	return c.Card
}

// keyScratch is the memory a conjunction's evaluation under one key uses:
// the result, and blocks for a union operand and a run mask.
type keyScratch struct {
	out       keySet
	union     [rawroaring.BlockWords]uint64
	mask      [rawroaring.BlockWords]uint64
	main      [rawroaring.BlockWords]uint64
	vals      [rawroaring.KernelOut]uint16 // values of the result, or of the next one
	kern      [rawroaring.KernelOut]uint16 // the same, the two taking turns
	order     []int
	estimates []int
}

// eval computes the conjunction's members under key into sc.out and
// returns their number. lists holds the parsed lists the conjuncts name.
func (cj *conjunction) eval(lists [][]rawroaring.Container, key uint16, sc *keyScratch) int {
	sc.out = keySet{}
	if len(cj.parts) == 0 {
		return 0
	}
	sc.order, sc.estimates = sc.order[:0], sc.estimates[:0]
	for i, p := range cj.parts {
		n := 0
		for _, cs := range lists[p.first : p.first+p.n] {
			if c := containerAt(cs, key); c != nil {
				n += rawCard(c)
			}
		}
		if n == 0 {
			return 0
		}
		sc.order = append(sc.order, i)
		sc.estimates = append(sc.estimates, n)
	}
	// smallest operand first: it seeds the result, which the others
	// only shrink
	for i := 1; i < len(sc.order); i++ {
		for j := i; j > 0 && sc.estimates[sc.order[j]] < sc.estimates[sc.order[j-1]]; j-- {
			sc.order[j], sc.order[j-1] = sc.order[j-1], sc.order[j]
		}
	}
	rest := sc.order[1:]
	if a, b := sc.arrayPair(cj, lists, key); a != nil {
		// the commonest cases, a word and a filter: no seed to copy
		if b.Kind == rawroaring.Array {
			sc.out = keySet{vals: rawroaring.IntersectArrays(&sc.kern, a.Data, b.Data)}
		} else {
			sc.out = keySet{vals: arrayInBitmap(&sc.kern, a.Data, b.Data)}
		}
		rest = sc.order[2:]
	} else {
		seed := cj.parts[sc.order[0]]
		sc.seed(lists[seed.first:seed.first+seed.n], key)
	}
	for _, i := range rest {
		p := cj.parts[i]
		if n := sc.and(lists[p.first:p.first+p.n], key); n == 0 {
			sc.out = keySet{}
			return 0
		}
	}
	return sc.out.card()
}

// pairCount is the number of members under key of a conjunction of two
// conjuncts, each one array or bitmap container there, counted without
// storing them; -1 when the conjunction is not of that shape. A search of
// a word and a filter counts every key this way, and stores members only
// under the keys its page reads.
func (cj *conjunction) pairCount(lists [][]rawroaring.Container, key uint16) int {
	if len(cj.parts) != 2 {
		return -1
	}
	p, q := cj.parts[0], cj.parts[1]
	a, na := only(lists[p.first:p.first+p.n], key)
	b, nb := only(lists[q.first:q.first+q.n], key)
	switch {
	case na == 0 || nb == 0:
		return 0
	case na > 1 || nb > 1 || a.Kind == rawroaring.Run || b.Kind == rawroaring.Run:
		return -1
	case a.Kind == rawroaring.Bitmap && b.Kind == rawroaring.Bitmap:
		return countBitmaps(a.Data, b.Data)
	case a.Kind == rawroaring.Bitmap:
		return countInBitmap(b.Data, a.Data)
	case b.Kind == rawroaring.Bitmap:
		return countInBitmap(a.Data, b.Data)
	case !rawroaring.BlockKernels || len(a.Data) > gallopRatio*len(b.Data) || len(b.Data) > gallopRatio*len(a.Data):
		return -1 // eval gallops
	}
	return rawroaring.CountArrays(a.Data, b.Data)
}

// only is the container of the lists under key when there is one, and the
// number of lists that have one.
func only(lists [][]rawroaring.Container, key uint16) (*rawroaring.Container, int) {
	var one *rawroaring.Container
	n := 0
	for _, cs := range lists {
		if c := containerAt(cs, key); c != nil {
			one = c
			n++
		}
	}
	return one, n
}

// countBitmaps is the number of values set in both serialized bitmap
// containers.
func countBitmaps(a, b []byte) int {
	x, y := (*[rawroaring.BitmapBytes]byte)(a), (*[rawroaring.BitmapBytes]byte)(b)
	n := 0
	for i := 0; i < rawroaring.BitmapBytes; i += 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(x[i:]) & binary.LittleEndian.Uint64(y[i:]))
	}
	return n
}

// countInBitmap is the number of values of a serialized array container
// set in a serialized bitmap container. Four values are read at once and
// counted apart, so that the bit tests overlap instead of queuing behind
// one sum and one loop test per value.
func countInBitmap(data, bitmap []byte) int {
	set := (*[rawroaring.BitmapBytes]byte)(bitmap)
	var n0, n1, n2, n3 int
	i := 0
	for ; i+8 <= len(data); i += 8 {
		a, b, c, d := four(data[i:])
		n0 += bitOf(set, a)
		n1 += bitOf(set, b)
		n2 += bitOf(set, c)
		n3 += bitOf(set, d)
	}
	for ; i+1 < len(data); i += 2 {
		n0 += bitOf(set, binary.LittleEndian.Uint16(data[i:]))
	}
	return n0 + n1 + n2 + n3
}

// four is the first four values of a serialized array.
func four(data []byte) (a, b, c, d uint16) {
	w := binary.LittleEndian.Uint64(data)
	return uint16(w), uint16(w >> 16), uint16(w >> 32), uint16(w >> 48)
}

// bitOf is bit v of a serialized bitmap container, as 0 or 1.
func bitOf(set *[rawroaring.BitmapBytes]byte, v uint16) int { return int(set[v>>3] >> (v & 7) & 1) }

// blockBit is bit v of a block, as 0 or 1.
func blockBit(b *[rawroaring.BlockWords]uint64, v uint16) int { return int(b[v>>6] >> (v & 63) & 1) }

// arrayPair returns the containers of the two smallest conjuncts under key
// when each is a single container, the first an array and the second an
// array (the array kernels running here, and the second not so much larger
// that galloping wins) or a bitmap, for eval to start from their
// intersection.
func (sc *keyScratch) arrayPair(cj *conjunction, lists [][]rawroaring.Container, key uint16) (a, b *rawroaring.Container) {
	if len(sc.order) < 2 {
		return nil, nil
	}
	p, q := cj.parts[sc.order[0]], cj.parts[sc.order[1]]
	a, b = single(lists[p.first:p.first+p.n], key), single(lists[q.first:q.first+q.n], key)
	switch {
	case a == nil || b == nil || a.Kind != rawroaring.Array:
	case b.Kind == rawroaring.Bitmap:
		return a, b
	case b.Kind == rawroaring.Array && rawroaring.BlockKernels && len(b.Data) <= gallopRatio*len(a.Data):
		return a, b
	}
	return nil, nil
}

// narrow intersects the result with more conjuncts and returns the number
// of members left.
func (sc *keyScratch) narrow(lists [][]rawroaring.Container, parts []conjunct, key uint16) int {
	for _, p := range parts {
		if n := sc.and(lists[p.first:p.first+p.n], key); n == 0 {
			sc.out = keySet{}
			return 0
		}
	}
	return sc.out.card()
}

// narrowFrom sets the result to k narrowed by more conjuncts, as copyOf
// then narrow, but a block meeting a bitmap container first is
// intersected while copied.
func (sc *keyScratch) narrowFrom(k *keySet, lists [][]rawroaring.Container, parts []conjunct, key uint16) int {
	if k.inBlk && len(parts) > 0 {
		p := parts[0]
		if c := single(lists[p.first:p.first+p.n], key); c != nil && c.Kind == rawroaring.Bitmap {
			n := andWords(&sc.main, k.blk, c.Data)
			sc.out = keySet{blk: &sc.main, inBlk: true, n: n}
			if n == 0 {
				return 0
			}
			return sc.narrow(lists, parts[1:], key)
		}
	}
	sc.copyOf(k)
	return sc.narrow(lists, parts, key)
}

// copyOf makes the result a copy of k, in sc's own memory.
func (sc *keyScratch) copyOf(k *keySet) {
	if k.inBlk {
		sc.main = *k.blk
		sc.out = keySet{blk: &sc.main, inBlk: true, n: k.n}
		return
	}
	sc.out = keySet{vals: append(sc.vals[:0], k.vals...)}
}

// seed sets the result to the union of the lists' containers under key.
func (sc *keyScratch) seed(lists [][]rawroaring.Container, key uint16) {
	if c := single(lists, key); c != nil && (c.Kind == rawroaring.Array || c.Kind == rawroaring.Run && rawroaring.RunCard(c.Data) <= rawroaring.ArrayMaxCard) {
		sc.out = keySet{vals: appendValues(sc.vals[:0:rawroaring.ArrayMaxCard], c)}
		return
	}
	if c := single(lists, key); c != nil && c.Kind == rawroaring.Bitmap {
		copyWords(&sc.main, c.Data)
		sc.out = keySet{blk: &sc.main, inBlk: true, n: c.Card}
		return
	}
	clear(sc.main[:])
	for _, cs := range lists {
		if c := containerAt(cs, key); c != nil {
			rawroaring.OrInto(&sc.main, c)
		}
	}
	sc.out = keySet{blk: &sc.main, inBlk: true, n: -1}
}

// copyWords sets a block to a serialized bitmap container.
func copyWords(b *[rawroaring.BlockWords]uint64, data []byte) {
	_ = data[rawroaring.BitmapBytes-1]
	for i := range b {
		b[i] = binary.LittleEndian.Uint64(data[8*i:])
	}
}

// single is the only container of the lists under key, or nil when there
// are none or several.
func single(lists [][]rawroaring.Container, key uint16) *rawroaring.Container {
	if c, n := only(lists, key); n == 1 {
		return c
	}
	return nil
}

// and intersects the result with the union of the lists' containers under
// key, returning the number of members left when it is known cheaply (-1
// when not yet counted, 0 when empty).
func (sc *keyScratch) and(lists [][]rawroaring.Container, key uint16) int {
	c := single(lists, key)
	if c == nil && !sc.out.inBlk && len(sc.out.vals) <= smallUnionTest {
		sc.out.vals = filterUnion(sc.out.vals, lists, key)
		return len(sc.out.vals)
	}
	if c == nil {
		// several containers: their union as a block
		clear(sc.union[:])
		for _, cs := range lists {
			if c := containerAt(cs, key); c != nil {
				rawroaring.OrInto(&sc.union, c)
			}
		}
		return sc.andBlock(&sc.union)
	}
	switch c.Kind {
	case rawroaring.Bitmap:
		if sc.out.inBlk {
			sc.out.n = andWords(sc.out.blk, sc.out.blk, c.Data)
			return sc.out.n
		}
		sc.out.vals = filterBitmap(sc.out.vals, c.Data)
	case rawroaring.Array:
		switch {
		case sc.out.inBlk:
			sc.out = keySet{vals: arrayInBlock(&sc.vals, c.Data, sc.out.blk)}
		case rawroaring.BlockKernels && len(c.Data) <= 2*gallopRatio*len(sc.out.vals):
			sc.out.vals = rawroaring.IntersectArrays(sc.other(sc.out.vals), rawroaring.ValueBytes(sc.out.vals), c.Data)
		default:
			sc.out.vals = intersectArray(sc.out.vals, c.Data)
		}
	case rawroaring.Run:
		if sc.out.inBlk {
			clear(sc.mask[:])
			rawroaring.OrInto(&sc.mask, c)
			return sc.andBlock(&sc.mask)
		}
		sc.out.vals = filterRuns(sc.out.vals, c.Data)
	}
	return len(sc.out.vals)
}

// other is the value buffer of sc that vals is not in, for a result
// computed from vals.
func (sc *keyScratch) other(vals []uint16) *[rawroaring.KernelOut]uint16 {
	if cap(vals) > 0 && &vals[:1][0] == &sc.kern[0] {
		return &sc.vals
	}
	return &sc.kern
}

func (sc *keyScratch) andBlock(b *[rawroaring.BlockWords]uint64) int {
	if !sc.out.inBlk {
		sc.out.vals = filterBlock(sc.out.vals, b)
		return len(sc.out.vals)
	}
	n := 0
	for i := range sc.out.blk {
		sc.out.blk[i] &= b[i]
		n += bits.OnesCount64(sc.out.blk[i])
	}
	sc.out.n = n
	return n
}

package query

import (
	"encoding/binary"
	"math/bits"
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
	blk   *[blockWords]uint64
	inBlk bool
	n     int // members of blk when known, else -1
}

const blockWords = 1 << 16 / 64

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
func (k *keySet) writeTo(blk *[blockWords]uint64) {
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
// strictly from 0 up (parseRaw checks it), so the key's container, if
// any, is at most key places in: a list with a container under every key
// up to this one (a common word or filter value) has it exactly there,
// found without a search. Small enough to be inlined; the others are
// searched below that place.
func containerAt(cs []rawContainer, key uint16) *rawContainer {
	if int(key) < len(cs) && cs[key].key == key {
		return &cs[key]
	}
	return searchContainer(cs, key)
}

// searchContainer is containerAt's bisection, over the places before
// key. It is kept out of line so that containerAt stays cheap enough to
// be inlined.
//
//go:noinline
func searchContainer(cs []rawContainer, key uint16) *rawContainer {
	lo, hi := 0, min(len(cs), int(key))
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cs[m].key < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(cs) && cs[lo].key == key {
		return &cs[lo]
	}
	return nil
}

// rawCard is the number of values of a container.
func rawCard(c *rawContainer) int {
	if c.kind == rawRun {
		return runCard(c.data)
	}
	return c.card
}

// keyScratch is the memory a conjunction's evaluation under one key uses:
// the result, and blocks for a union operand and a run mask.
type keyScratch struct {
	out       keySet
	union     [blockWords]uint64
	mask      [blockWords]uint64
	main      [blockWords]uint64
	vals      [kernelOut]uint16 // values of the result, or of the next one
	kern      [kernelOut]uint16 // the same, the two taking turns
	order     []int
	estimates []int
}

// eval computes the conjunction's members under key into sc.out and
// returns their number. lists holds the parsed lists the conjuncts name.
func (cj *conjunction) eval(lists [][]rawContainer, key uint16, sc *keyScratch) int {
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
		if b.kind == rawArray {
			sc.out = keySet{vals: intersectArrays(&sc.kern, a.data, b.data)}
		} else {
			sc.out = keySet{vals: arrayInBitmap(&sc.kern, a.data, b.data)}
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
func (cj *conjunction) pairCount(lists [][]rawContainer, key uint16) int {
	if len(cj.parts) != 2 {
		return -1
	}
	p, q := cj.parts[0], cj.parts[1]
	a, na := only(lists[p.first:p.first+p.n], key)
	b, nb := only(lists[q.first:q.first+q.n], key)
	switch {
	case na == 0 || nb == 0:
		return 0
	case na > 1 || nb > 1 || a.kind == rawRun || b.kind == rawRun:
		return -1
	case a.kind == rawBitmap && b.kind == rawBitmap:
		return countBitmaps(a.data, b.data)
	case a.kind == rawBitmap:
		return countInBitmap(b.data, a.data)
	case b.kind == rawBitmap:
		return countInBitmap(a.data, b.data)
	case !blockKernels || len(a.data) > gallopRatio*len(b.data) || len(b.data) > gallopRatio*len(a.data):
		return -1 // eval gallops
	}
	return countArrays(a.data, b.data)
}

// only is the container of the lists under key when there is one, and the
// number of lists that have one.
func only(lists [][]rawContainer, key uint16) (*rawContainer, int) {
	var one *rawContainer
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
	x, y := (*[bitmapBytes]byte)(a), (*[bitmapBytes]byte)(b)
	n := 0
	for i := 0; i < bitmapBytes; i += 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(x[i:]) & binary.LittleEndian.Uint64(y[i:]))
	}
	return n
}

// countInBitmap is the number of values of a serialized array container
// set in a serialized bitmap container. Four values are read at once and
// counted apart, so that the bit tests overlap instead of queuing behind
// one sum and one loop test per value.
func countInBitmap(data, bitmap []byte) int {
	set := (*[bitmapBytes]byte)(bitmap)
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
func bitOf(set *[bitmapBytes]byte, v uint16) int { return int(set[v>>3] >> (v & 7) & 1) }

// blockBit is bit v of a block, as 0 or 1.
func blockBit(b *[blockWords]uint64, v uint16) int { return int(b[v>>6] >> (v & 63) & 1) }

// arrayPair returns the containers of the two smallest conjuncts under key
// when each is a single container, the first an array and the second an
// array (the array kernels running here, and the second not so much larger
// that galloping wins) or a bitmap, for eval to start from their
// intersection.
func (sc *keyScratch) arrayPair(cj *conjunction, lists [][]rawContainer, key uint16) (a, b *rawContainer) {
	if len(sc.order) < 2 {
		return nil, nil
	}
	p, q := cj.parts[sc.order[0]], cj.parts[sc.order[1]]
	a, b = single(lists[p.first:p.first+p.n], key), single(lists[q.first:q.first+q.n], key)
	switch {
	case a == nil || b == nil || a.kind != rawArray:
	case b.kind == rawBitmap:
		return a, b
	case b.kind == rawArray && blockKernels && len(b.data) <= gallopRatio*len(a.data):
		return a, b
	}
	return nil, nil
}

// narrow intersects the result with more conjuncts and returns the number
// of members left.
func (sc *keyScratch) narrow(lists [][]rawContainer, parts []conjunct, key uint16) int {
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
func (sc *keyScratch) narrowFrom(k *keySet, lists [][]rawContainer, parts []conjunct, key uint16) int {
	if k.inBlk && len(parts) > 0 {
		p := parts[0]
		if c := single(lists[p.first:p.first+p.n], key); c != nil && c.kind == rawBitmap {
			n := andWords(&sc.main, k.blk, c.data)
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
func (sc *keyScratch) seed(lists [][]rawContainer, key uint16) {
	if c := single(lists, key); c != nil && (c.kind == rawArray || c.kind == rawRun && runCard(c.data) <= arrayMaxCard) {
		sc.out = keySet{vals: appendValues(sc.vals[:0:arrayMaxCard], c)}
		return
	}
	if c := single(lists, key); c != nil && c.kind == rawBitmap {
		copyWords(&sc.main, c.data)
		sc.out = keySet{blk: &sc.main, inBlk: true, n: c.card}
		return
	}
	clear(sc.main[:])
	for _, cs := range lists {
		if c := containerAt(cs, key); c != nil {
			orInto(&sc.main, c)
		}
	}
	sc.out = keySet{blk: &sc.main, inBlk: true, n: -1}
}

// copyWords sets a block to a serialized bitmap container.
func copyWords(b *[blockWords]uint64, data []byte) {
	_ = data[bitmapBytes-1]
	for i := range b {
		b[i] = binary.LittleEndian.Uint64(data[8*i:])
	}
}

// single is the only container of the lists under key, or nil when there
// are none or several.
func single(lists [][]rawContainer, key uint16) *rawContainer {
	if c, n := only(lists, key); n == 1 {
		return c
	}
	return nil
}

// and intersects the result with the union of the lists' containers under
// key, returning the number of members left when it is known cheaply (-1
// when not yet counted, 0 when empty).
func (sc *keyScratch) and(lists [][]rawContainer, key uint16) int {
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
				orInto(&sc.union, c)
			}
		}
		return sc.andBlock(&sc.union)
	}
	switch c.kind {
	case rawBitmap:
		if sc.out.inBlk {
			sc.out.n = andWords(sc.out.blk, sc.out.blk, c.data)
			return sc.out.n
		}
		sc.out.vals = filterBitmap(sc.out.vals, c.data)
	case rawArray:
		switch {
		case sc.out.inBlk:
			sc.out = keySet{vals: arrayInBlock(&sc.vals, c.data, sc.out.blk)}
		case blockKernels && len(c.data) <= 2*gallopRatio*len(sc.out.vals):
			sc.out.vals = intersectArrays(sc.other(sc.out.vals), valueBytes(sc.out.vals), c.data)
		default:
			sc.out.vals = intersectArray(sc.out.vals, c.data)
		}
	case rawRun:
		if sc.out.inBlk {
			clear(sc.mask[:])
			orInto(&sc.mask, c)
			return sc.andBlock(&sc.mask)
		}
		sc.out.vals = filterRuns(sc.out.vals, c.data)
	}
	return len(sc.out.vals)
}

// other is the value buffer of sc that vals is not in, for a result
// computed from vals.
func (sc *keyScratch) other(vals []uint16) *[kernelOut]uint16 {
	if cap(vals) > 0 && &vals[:1][0] == &sc.kern[0] {
		return &sc.vals
	}
	return &sc.kern
}

func (sc *keyScratch) andBlock(b *[blockWords]uint64) int {
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

// appendValues appends the values of an array or run container.
func appendValues(dst []uint16, c *rawContainer) []uint16 {
	switch c.kind {
	case rawArray:
		for i := 0; i+1 < len(c.data); i += 2 {
			dst = append(dst, binary.LittleEndian.Uint16(c.data[i:]))
		}
	case rawRun:
		for i := 0; i+3 < len(c.data); i += 4 {
			lo := int(binary.LittleEndian.Uint16(c.data[i:]))
			hi := min(lo+int(binary.LittleEndian.Uint16(c.data[i+2:])), 1<<16-1)
			for v := lo; v <= hi && len(dst) < cap(dst); v++ {
				dst = append(dst, uint16(v))
			}
		}
	}
	return dst
}

// orInto adds a container's values to a block.
func orInto(b *[blockWords]uint64, c *rawContainer) {
	switch c.kind {
	case rawArray:
		for i := 0; i+1 < len(c.data); i += 2 {
			v := binary.LittleEndian.Uint16(c.data[i:])
			b[v>>6] |= 1 << (v & 63)
		}
	case rawBitmap:
		for i := range b {
			b[i] |= binary.LittleEndian.Uint64(c.data[8*i:])
		}
	case rawRun:
		for i := 0; i+3 < len(c.data); i += 4 {
			lo := int(binary.LittleEndian.Uint16(c.data[i:]))
			hi := min(lo+int(binary.LittleEndian.Uint16(c.data[i+2:])), 1<<16-1)
			setRange(b, lo, hi)
		}
	}
}

// setRange sets the bits [lo, hi] of a block.
func setRange(b *[blockWords]uint64, lo, hi int) {
	lw, hw := lo>>6, hi>>6
	loMask := ^uint64(0) << (lo & 63)
	hiMask := ^uint64(0) >> (63 - hi&63)
	if lw == hw {
		b[lw] |= loMask & hiMask
		return
	}
	b[lw] |= loMask
	for i := lw + 1; i < hw; i++ {
		b[i] = ^uint64(0)
	}
	b[hw] |= hiMask
}

// andWords sets dst to src ∩ a serialized bitmap container (dst may be
// src) and returns its number of members: the count comes with the
// pass, not from a second one.
func andWords(dst, src *[blockWords]uint64, data []byte) int {
	_ = data[bitmapBytes-1]
	n := 0
	for i := range dst {
		dst[i] = src[i] & binary.LittleEndian.Uint64(data[8*i:])
		n += bits.OnesCount64(dst[i])
	}
	return n
}

// The filters below keep values without a branch on the test: every value
// is written and the count advances by the tested bit. Whether a value of
// a word's list is also in a filter's is close to a coin toss, and a
// mispredicted branch per value cost more than the test (a search with a
// word and a language at 5M stations spent most of its time in them).

// filterBitmap keeps the values set in a serialized bitmap container.
func filterBitmap(vals []uint16, data []byte) []uint16 {
	set := (*[bitmapBytes]byte)(data)
	n := 0
	for _, v := range vals {
		vals[n] = v // n <= index of v: in place is safe
		n += bitOf(set, v)
	}
	return vals[:n]
}

// filterBlock keeps the values set in a block.
func filterBlock(vals []uint16, b *[blockWords]uint64) []uint16 {
	n := 0
	for _, v := range vals {
		vals[n] = v
		n += blockBit(b, v)
	}
	return vals[:n]
}

// arrayInBlock stores in dst the values of a serialized array container
// set in a block, four values a step as countInBitmap does. An array has
// at most arrayMaxCard values (parseRaw), well within dst.
func arrayInBlock(dst *[kernelOut]uint16, data []byte, b *[blockWords]uint64) []uint16 {
	data = data[:min(len(data), 2*arrayMaxCard)]
	n, i := 0, 0
	for ; i+8 <= len(data); i += 8 {
		v0, v1, v2, v3 := four(data[i:])
		dst[n] = v0
		n += blockBit(b, v0)
		dst[n] = v1
		n += blockBit(b, v1)
		dst[n] = v2
		n += blockBit(b, v2)
		dst[n] = v3
		n += blockBit(b, v3)
	}
	for ; i+1 < len(data); i += 2 {
		v := binary.LittleEndian.Uint16(data[i:])
		dst[n] = v
		n += blockBit(b, v)
	}
	return dst[:n]
}

// arrayInBitmap stores in dst the values of a serialized array container
// set in a serialized bitmap container, as arrayInBlock does.
func arrayInBitmap(dst *[kernelOut]uint16, data, bitmap []byte) []uint16 {
	set := (*[bitmapBytes]byte)(bitmap)
	data = data[:min(len(data), 2*arrayMaxCard)]
	n, i := 0, 0
	for ; i+8 <= len(data); i += 8 {
		v0, v1, v2, v3 := four(data[i:])
		dst[n] = v0
		n += bitOf(set, v0)
		dst[n] = v1
		n += bitOf(set, v1)
		dst[n] = v2
		n += bitOf(set, v2)
		dst[n] = v3
		n += bitOf(set, v3)
	}
	for ; i+1 < len(data); i += 2 {
		v := binary.LittleEndian.Uint16(data[i:])
		dst[n] = v
		n += bitOf(set, v)
	}
	return dst[:n]
}

// intersectArray keeps the values also in a serialized array container;
// both are sorted. Sets of comparable sizes are merged; when the container
// is much the larger, it is searched by galloping instead of walked.
func intersectArray(vals []uint16, data []byte) []uint16 {
	n := len(data) / 2
	if n > gallopRatio*len(vals) {
		return gallopArray(vals, data)
	}
	out := vals[:0]
	i, j := 0, 0
	for i < len(vals) && j < n {
		a, b := vals[i], binary.LittleEndian.Uint16(data[2*j:])
		switch {
		case a < b:
			i++
		case a > b:
			j++
		default:
			out = append(out, a) // at or before i: in place is safe
			i++
			j++
		}
	}
	return out
}

// gallopRatio is how much larger an array container must be than the
// values intersected with it for galloping to beat a merge.
const gallopRatio = 16

func gallopArray(vals []uint16, data []byte) []uint16 {
	n := len(data) / 2
	at := func(i int) uint16 { return binary.LittleEndian.Uint16(data[2*i:]) }
	out := vals[:0]
	j := 0
	for _, v := range vals {
		if j < n && at(j) < v {
			// gallop: find a bound, then bisect
			step := 1
			for j+step < n && at(j+step) < v {
				j += step
				step <<= 1
			}
			lo, hi := j+1, min(j+step, n)
			for lo < hi {
				m := int(uint(lo+hi) >> 1)
				if at(m) < v {
					lo = m + 1
				} else {
					hi = m
				}
			}
			j = lo
		}
		if j == n {
			break
		}
		if at(j) == v {
			out = append(out, v)
			j++
		}
	}
	return out
}

// filterRuns keeps the values inside the runs of a serialized run
// container; both are sorted.
func filterRuns(vals []uint16, data []byte) []uint16 {
	out := vals[:0]
	i := 0
	for _, v := range vals {
		for ; i+3 < len(data); i += 4 {
			lo := int(binary.LittleEndian.Uint16(data[i:]))
			hi := lo + int(binary.LittleEndian.Uint16(data[i+2:]))
			if int(v) < lo {
				break
			}
			if int(v) <= hi {
				out = append(out, v)
				break
			}
		}
		if i+3 >= len(data) {
			break
		}
	}
	return out
}

// smallUnionTest is the number of members up to which a result is
// intersected with a union by testing each member against each container,
// rather than by building the union's block (1,024 words per container).
const smallUnionTest = 64

// filterUnion keeps the values in any of the lists' containers under key.
func filterUnion(vals []uint16, lists [][]rawContainer, key uint16) []uint16 {
	out := vals[:0]
	for _, v := range vals {
		for _, cs := range lists {
			if c := containerAt(cs, key); c != nil && rawHas(c, v) {
				out = append(out, v)
				break
			}
		}
	}
	return out
}

// rawHas reports whether a container holds v.
func rawHas(c *rawContainer, v uint16) bool {
	switch c.kind {
	case rawBitmap:
		return c.data[v>>3]>>(v&7)&1 != 0
	case rawArray:
		n := len(c.data) / 2
		lo, hi := 0, n
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if binary.LittleEndian.Uint16(c.data[2*m:]) < v {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return lo < n && binary.LittleEndian.Uint16(c.data[2*lo:]) == v
	case rawRun:
		for i := 0; i+3 < len(c.data); i += 4 {
			lo := int(binary.LittleEndian.Uint16(c.data[i:]))
			if int(v) < lo {
				return false
			}
			if int(v) <= lo+int(binary.LittleEndian.Uint16(c.data[i+2:])) {
				return true
			}
		}
	}
	return false
}

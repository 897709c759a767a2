package rawroaring

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unsafe"
)

// AppendDense appends to dst the portable serialization of the bitset
// dense (bit r set: record r), array and bitmap containers only, as
// roaring's FromDense would make them: a container of more than 4,096
// values is a bitmap. Read back with roaring's FromBuffer, the bitmap's
// containers point into the bytes, so they must outlive it.
//
// Why not FromDense: it writes an array container's values one bit at a
// time, a multiplication-free but branchy loop that mispredicts once per
// word, into a new allocation per container. Over a set of 6% of 5M
// stations (the words of a search intersected with a language), that is
// 1.4 ms and 600 KB; here each word's first eight values are written
// unconditionally, and the bytes are the caller's, so the same set costs
// 0.6 ms and no allocation (BenchmarkAppendDense).
//
// cards, when not nil, is each key's number of records, known to the
// caller (DenseCards); else they are counted here.
func AppendDense(dst []byte, dense []uint64, cards []int) []byte {
	keys := (len(dense) + BlockWords - 1) / BlockWords
	if cards == nil {
		cards = DenseCards(nil, dense)
	}
	n, size := 0, 8
	for k := range keys {
		switch c := cards[k]; {
		case c > ArrayMaxCard:
			n, size = n+1, size+8*BlockWords
		case c > 0:
			n, size = n+1, size+2*c
		}
	}
	size += 8 * n // the keys and cardinalities, and the offsets
	start := len(dst)
	dst = grow(dst, size+denseSlack)
	out := dst[start:]
	binary.LittleEndian.PutUint32(out, serialCookieNoRun)
	binary.LittleEndian.PutUint32(out[4:], uint32(n))
	head, offset, at := 8, 8+4*n, 8+8*n
	for k := range keys {
		words, c := denseKey(dense, k), cards[k]
		if c == 0 {
			continue
		}
		binary.LittleEndian.PutUint16(out[head:], uint16(k))
		binary.LittleEndian.PutUint16(out[head+2:], uint16(c-1))
		binary.LittleEndian.PutUint32(out[offset:], uint32(at))
		head, offset = head+4, offset+4
		if c > ArrayMaxCard {
			for i, w := range words {
				binary.LittleEndian.PutUint64(out[at+8*i:], w)
			}
			at += 8 * BlockWords
			continue
		}
		appendValues(out[at:at+2*c+denseSlack], words)
		at += 2 * c
	}
	return dst[:start+size]
}

// denseSlack is the room past the end appendValues may write into.
const denseSlack = 2 * 8

// denseKey is key k's words of dense: 1,024, or fewer at the end.
func denseKey(dense []uint64, k int) []uint64 {
	return dense[k*BlockWords : min((k+1)*BlockWords, len(dense))]
}

// DenseCards appends to dst the number of records of each key of dense.
func DenseCards(dst []int, dense []uint64) []int {
	for k := range (len(dense) + BlockWords - 1) / BlockWords {
		dst = append(dst, popcount(denseKey(dense, k)))
	}
	return dst
}

// DenseKinds is what cards (DenseCards) would make: the records of the
// keys that become array containers, and the number of bitmap containers.
func DenseKinds(cards []int) (arrayValues, bitmaps int) {
	for _, c := range cards {
		if c > ArrayMaxCard {
			bitmaps++
		} else {
			arrayValues += c
		}
	}
	return arrayValues, bitmaps
}

func popcount(words []uint64) int {
	n := 0
	for _, w := range words {
		n += bits.OnesCount64(w)
	}
	return n
}

// appendValues writes the positions of words' set bits as little-endian
// uint16 into out, which has room for eight past the last (and, to be
// written as uint16, is aligned to two bytes): each word's
// first eight are written whether it has them or not (a bit position past
// a word's last is overwritten by the next word's, or lands in the room),
// so that the loop leaves a word after a fixed number of steps, and only
// a word of more than eight values takes a branch of its own.
func appendValues(out []byte, words []uint64) {
	if !littleEndian || uintptr(unsafe.Pointer(unsafe.SliceData(out)))%2 != 0 {
		appendValuesPortable(out, words)
		return
	}
	vals := unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(out))), len(out)/2)
	j := 0
	for i, w := range words {
		if w == 0 {
			continue
		}
		base, n := uint16(i*64), bits.OnesCount64(w)
		o := (*[8]uint16)(vals[j : j+8])
		for k := range o {
			o[k] = base + uint16(bits.TrailingZeros64(w))
			w &= w - 1
		}
		for k := 8; k < n; k++ {
			vals[j+k] = base + uint16(bits.TrailingZeros64(w))
			w &= w - 1
		}
		j += n
	}
}

// appendValuesPortable is appendValues for any byte order.
func appendValuesPortable(out []byte, words []uint64) {
	j := 0
	for i, w := range words {
		for ; w != 0; w &= w - 1 {
			binary.LittleEndian.PutUint16(out[j:], uint16(i*64+bits.TrailingZeros64(w)))
			j += 2
		}
	}
}

// littleEndian: the machine stores a uint16 as the serialization does.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// grow extends dst by n bytes, reusing its room.
func grow(dst []byte, n int) []byte { return slices.Grow(dst, n)[:len(dst)+n] }

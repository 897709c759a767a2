package core

import (
	"encoding/binary"
	"math/bits"

	"stationdex/query/rawroaring"
)

// The kernels of a conjunction (conjunction.go): value lists and blocks
// intersected with serialized roaring containers, one container key at a
// time, without a branch on the test where a value is kept or not.

// appendValues appends the values of an array or run container.
func appendValues(dst []uint16, c *rawroaring.Container) []uint16 {
	switch c.Kind {
	case rawroaring.Array:
		for i := 0; i+1 < len(c.Data); i += 2 {
			dst = append(dst, binary.LittleEndian.Uint16(c.Data[i:]))
		}
	case rawroaring.Run:
		for i := 0; i+3 < len(c.Data); i += 4 {
			lo := int(binary.LittleEndian.Uint16(c.Data[i:]))
			hi := min(lo+int(binary.LittleEndian.Uint16(c.Data[i+2:])), 1<<16-1)
			for v := lo; v <= hi && len(dst) < cap(dst); v++ {
				dst = append(dst, uint16(v))
			}
		}
	}
	return dst
}

// andWords sets dst to src ∩ a serialized bitmap container (dst may be
// src) and returns its number of members: the count comes with the
// pass, not from a second one.
func andWords(dst, src *[rawroaring.BlockWords]uint64, data []byte) int {
	_ = data[rawroaring.BitmapBytes-1]
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
	set := (*[rawroaring.BitmapBytes]byte)(data)
	n := 0
	for _, v := range vals {
		vals[n] = v // n <= index of v: in place is safe
		n += bitOf(set, v)
	}
	return vals[:n]
}

// filterBlock keeps the values set in a block.
func filterBlock(vals []uint16, b *[rawroaring.BlockWords]uint64) []uint16 {
	n := 0
	for _, v := range vals {
		vals[n] = v
		n += blockBit(b, v)
	}
	return vals[:n]
}

// arrayInBlock stores in dst the values of a serialized array container
// set in a block, four values a step as countInBitmap does. An array has
// at most rawroaring.ArrayMaxCard values (rawroaring.Parse), well within dst.
func arrayInBlock(dst *[rawroaring.KernelOut]uint16, data []byte, b *[rawroaring.BlockWords]uint64) []uint16 {
	data = data[:min(len(data), 2*rawroaring.ArrayMaxCard)]
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
func arrayInBitmap(dst *[rawroaring.KernelOut]uint16, data, bitmap []byte) []uint16 {
	set := (*[rawroaring.BitmapBytes]byte)(bitmap)
	data = data[:min(len(data), 2*rawroaring.ArrayMaxCard)]
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
func filterUnion(vals []uint16, lists [][]rawroaring.Container, key uint16) []uint16 {
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
func rawHas(c *rawroaring.Container, v uint16) bool {
	switch c.Kind {
	case rawroaring.Bitmap:
		return c.Data[v>>3]>>(v&7)&1 != 0
	case rawroaring.Array:
		n := len(c.Data) / 2
		lo, hi := 0, n
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if binary.LittleEndian.Uint16(c.Data[2*m:]) < v {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return lo < n && binary.LittleEndian.Uint16(c.Data[2*lo:]) == v
	case rawroaring.Run:
		for i := 0; i+3 < len(c.Data); i += 4 {
			lo := int(binary.LittleEndian.Uint16(c.Data[i:]))
			if int(v) < lo {
				return false
			}
			if int(v) <= lo+int(binary.LittleEndian.Uint16(c.Data[i+2:])) {
				return true
			}
		}
	}
	return false
}

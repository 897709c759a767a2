package rawroaring

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"stationdex/internal/format"
)

// A Container is one container of a bitmap in roaring's portable
// serialization, read in place: counting against a posting list this way
// costs no allocation, where roaring's FromBuffer allocates a container
// value per container.
type Container struct {
	Key  uint16
	Kind uint8
	Card int    // values in the container (array and bitmap)
	Data []byte // array: card little-endian uint16; bitmap: 1024 words; run: pairs (start, length-1)
}

const (
	Array uint8 = iota
	Bitmap
	Run
)

// The cookies and thresholds of roaring's portable format.
const (
	serialCookieNoRun = 12346
	serialCookieRun   = 12347
	noOffsetThreshold = 4
	ArrayMaxCard      = 4096
	BitmapBytes       = 8192
)

var errRawBitmap = fmt.Errorf("%w: posting list", format.ErrCorrupt)

// Parse splits a serialized bitmap into its containers, appended to
// out[:0]. Every length is checked against v: a damaged value is an error,
// never a read out of range.
func Parse(v []byte, out []Container) ([]Container, error) {
	out = out[:0]
	size, pos, runFlags, ok := parseHeader(v)
	if !ok {
		return out, errRawBitmap
	}
	header := v[pos : pos+4*size]
	pos += 4 * size
	if runFlags == nil || size >= noOffsetThreshold {
		pos += 4 * size
	}
	last := -1
	for i := range size {
		key := binary.LittleEndian.Uint16(header[4*i:])
		if int(key) <= last {
			return out, errRawBitmap
		}
		last = int(key)
		card := int(binary.LittleEndian.Uint16(header[4*i+2:])) + 1
		c := Container{Key: key, Card: card}
		var n int
		switch {
		case runFlags != nil && runFlags[i/8]&(1<<(i%8)) != 0:
			if len(v) < pos+2 {
				return out, errRawBitmap
			}
			runs := int(binary.LittleEndian.Uint16(v[pos:]))
			pos += 2
			c.Kind, n = Run, 4*runs
		case card > ArrayMaxCard:
			c.Kind, n = Bitmap, BitmapBytes
		default:
			c.Kind, n = Array, 2*card
		}
		if pos > len(v) || len(v)-pos < n {
			return out, errRawBitmap
		}
		c.Data = v[pos : pos+n]
		pos += n
		out = append(out, c)
	}
	if pos != len(v) {
		return out, errRawBitmap
	}
	return out, nil
}

// parseHeader reads the cookie: the number of containers, where their
// key and cardinality pairs start (all of them inside v), and the run
// flags when the bitmap has run containers.
func parseHeader(v []byte) (size, pos int, runFlags []byte, ok bool) {
	if len(v) < 4 {
		return 0, 0, nil, false
	}
	cookie := binary.LittleEndian.Uint32(v)
	switch {
	case cookie&0xFFFF == serialCookieRun:
		size = int(cookie>>16) + 1
		pos = 4 + (size+7)/8
		if len(v) < pos {
			return 0, 0, nil, false
		}
		runFlags = v[4:pos]
	case cookie == serialCookieNoRun:
		if len(v) < 8 {
			return 0, 0, nil, false
		}
		size, pos = int(binary.LittleEndian.Uint32(v[4:])), 8
		if size > 1<<16 {
			return 0, 0, nil, false
		}
	default:
		return 0, 0, nil, false
	}
	return size, pos, runFlags, len(v) >= pos+4*size
}

// AndCount is the number of values of the containers that are set in
// dense (bit r of word r/64; values beyond dense are not set). When need
// is positive and total is the containers' cardinality, it may stop early
// and return a count below need once the containers left (total minus
// those seen) cannot bring it to need.
func AndCount(cs []Container, blocks []DenseBlock, dense []uint64, need, total int) int {
	n := 0
	rest := total
	for _, c := range cs {
		if need > 0 {
			if n+rest < need {
				return n
			}
			if c.Kind == Run {
				rest -= RunCard(c.Data)
			} else {
				rest -= c.Card
			}
		}
		base := int(c.Key) << 16
		if base>>6 >= len(dense) {
			break
		}
		for len(blocks) > 0 && blocks[0].Key < c.Key {
			blocks = blocks[1:]
		}
		switch {
		case c.Kind == Array && len(blocks) > 0 && blocks[0].Key == c.Key:
			n += andPopcount(dense[base>>6:], blocks[0].Words)
		case c.Kind == Array:
			for i := 0; i+1 < len(c.Data); i += 2 {
				r := base | int(binary.LittleEndian.Uint16(c.Data[i:]))
				if w := r >> 6; w < len(dense) {
					n += int(dense[w] >> (r & 63) & 1)
				}
			}
		case c.Kind == Bitmap:
			words := dense[base>>6:]
			for i := 0; i < len(words) && i < BitmapBytes/8; i++ {
				n += bits.OnesCount64(words[i] & binary.LittleEndian.Uint64(c.Data[8*i:]))
			}
		case c.Kind == Run:
			for i := 0; i+3 < len(c.Data); i += 4 {
				lo := base | int(binary.LittleEndian.Uint16(c.Data[i:]))
				hi := lo + int(binary.LittleEndian.Uint16(c.Data[i+2:]))
				n += rangeCount(dense, lo, hi)
			}
		}
	}
	return n
}

// rangeCount is the number of bits set in dense in [lo, hi].
func rangeCount(dense []uint64, lo, hi int) int {
	if lo>>6 >= len(dense) {
		return 0
	}
	if hi>>6 >= len(dense) {
		hi = len(dense)<<6 - 1
	}
	lw, hw := lo>>6, hi>>6
	loMask := ^uint64(0) << (lo & 63)
	hiMask := ^uint64(0) >> (63 - hi&63)
	if lw == hw {
		return bits.OnesCount64(dense[lw] & loMask & hiMask)
	}
	n := bits.OnesCount64(dense[lw]&loMask) + bits.OnesCount64(dense[hw]&hiMask)
	for _, w := range dense[lw+1 : hw] {
		n += bits.OnesCount64(w)
	}
	return n
}

// Each calls fn with the values of the containers, in increasing order,
// in batches.
func Each(cs []Container, buf []uint32, fn func([]uint32)) {
	buf = buf[:0]
	flush := func() {
		if len(buf) > 0 {
			fn(buf)
			buf = buf[:0]
		}
	}
	add := func(r uint32) {
		if len(buf) == cap(buf) {
			flush()
		}
		buf = append(buf, r)
	}
	for _, c := range cs {
		base := uint32(c.Key) << 16
		switch c.Kind {
		case Array:
			for i := 0; i+1 < len(c.Data); i += 2 {
				add(base | uint32(binary.LittleEndian.Uint16(c.Data[i:])))
			}
		case Bitmap:
			for i := 0; i+7 < len(c.Data); i += 8 {
				w := binary.LittleEndian.Uint64(c.Data[i:])
				for w != 0 {
					add(base | uint32(i*8+bits.TrailingZeros64(w)))
					w &= w - 1
				}
			}
		case Run:
			for i := 0; i+3 < len(c.Data); i += 4 {
				lo := uint32(binary.LittleEndian.Uint16(c.Data[i:]))
				hi := lo + uint32(binary.LittleEndian.Uint16(c.Data[i+2:]))
				for r := lo; r <= hi && r < 1<<16; r++ {
					add(base | r)
				}
			}
		}
	}
	flush()
}

// andPopcount is the number of bits set in both a and b, over the shorter.
func andPopcount(a, b []uint64) int {
	m := min(len(a), len(b))
	a, b = a[:m], b[:m]
	n := 0
	i := 0
	for ; i+4 <= m; i += 4 {
		n += bits.OnesCount64(a[i]&b[i]) + bits.OnesCount64(a[i+1]&b[i+1]) +
			bits.OnesCount64(a[i+2]&b[i+2]) + bits.OnesCount64(a[i+3]&b[i+3])
	}
	for ; i < m; i++ {
		n += bits.OnesCount64(a[i] & b[i])
	}
	return n
}

// Cardinality is the number of stations of a posting list, read from
// its container headers without decoding it.
func Cardinality(v []byte, cs *[]Container) (int, error) {
	var err error
	if *cs, err = Parse(v, *cs); err != nil {
		return 0, err
	}
	n := 0
	for _, c := range *cs {
		if c.Kind == Run {
			n += RunCard(c.Data)
		} else {
			n += c.Card
		}
	}
	return n, nil
}

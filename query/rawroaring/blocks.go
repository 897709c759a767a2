package rawroaring

import "encoding/binary"

// Blocks: a container as a dense bitset of 1,024 words, and bitset
// copies of array containers.

// BlockWords is the size of a container as a bitset, in words.
const BlockWords = 1 << 16 / 64

// DenseBlock is a bitset copy of one array container of a posting list.
type DenseBlock struct {
	Key   uint16
	Words []uint64
}

// Dense is the bitset copy of an array container.
func Dense(c *Container) DenseBlock {
	words := make([]uint64, BitmapBytes/8)
	for i := 0; i+1 < len(c.Data); i += 2 {
		x := binary.LittleEndian.Uint16(c.Data[i:])
		words[x>>6] |= 1 << (x & 63)
	}
	return DenseBlock{c.Key, words}
}

// RunCard is the number of values of a run container's data.
func RunCard(data []byte) int {
	n := 0
	for i := 0; i+3 < len(data); i += 4 {
		n += int(data[i+2]) | int(data[i+3])<<8 + 1
	}
	return n
}

// OrInto adds a container's values to a block.
func OrInto(b *[BlockWords]uint64, c *Container) {
	switch c.Kind {
	case Array:
		for i := 0; i+1 < len(c.Data); i += 2 {
			v := binary.LittleEndian.Uint16(c.Data[i:])
			b[v>>6] |= 1 << (v & 63)
		}
	case Bitmap:
		for i := range b {
			b[i] |= binary.LittleEndian.Uint64(c.Data[8*i:])
		}
	case Run:
		for i := 0; i+3 < len(c.Data); i += 4 {
			lo := int(binary.LittleEndian.Uint16(c.Data[i:]))
			hi := min(lo+int(binary.LittleEndian.Uint16(c.Data[i+2:])), 1<<16-1)
			setRange(b, lo, hi)
		}
	}
}

// setRange sets the bits [lo, hi] of a block.
func setRange(b *[BlockWords]uint64, lo, hi int) {
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

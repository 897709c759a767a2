package query

import "encoding/binary"

// kernelOut is the size of a buffer the array intersection writes into:
// an array container's values at most, and the block the kernel stores
// whole past the last value found.
const kernelOut = arrayMaxCard + 8

// merge finds the values common to two serialized array containers by
// merging them: the portable path, and the kernel's tail. It appends them
// to dst unless dst is nil, and returns their number either way.
func merge(dst []uint16, a, b []byte) ([]uint16, int) {
	n, i, j := 0, 0, 0
	for i+1 < len(a) && j+1 < len(b) {
		x, y := binary.LittleEndian.Uint16(a[i:]), binary.LittleEndian.Uint16(b[j:])
		switch {
		case x < y:
			i += 2
		case x > y:
			j += 2
		default:
			if dst != nil {
				dst = append(dst, x)
			}
			n++
			i += 2
			j += 2
		}
	}
	return dst, n
}

package rawroaring

import "encoding/binary"

// KernelOut is the size of a buffer the array intersection writes into.
// Two array containers share at most arrayMaxCard values, and the kernel
// stores a whole block past the last one found. But a file can be
// damaged, or made, with valid checksums and arrays that repeat values
// (roaring never writes them): then every step of the kernel may find
// eight, up to na+nb values in all. The kernel is only given arrays of up
// to arrayMaxCard values (intersectArrays), so twice that bounds what it
// stores, whatever the bytes.
const KernelOut = 2*ArrayMaxCard + 8

// Merge finds the values common to two serialized array containers by
// merging them: the portable path, and the kernel's tail. It appends them
// to dst unless dst is nil, and returns their number either way.
func Merge(dst []uint16, a, b []byte) ([]uint16, int) {
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

// appendArray appends vals as a serialized array container: little-endian
// uint16s.
func appendArray(dst []byte, vals []uint16) []byte {
	for _, v := range vals {
		dst = binary.LittleEndian.AppendUint16(dst, v)
	}
	return dst
}

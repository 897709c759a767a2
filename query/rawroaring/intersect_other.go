//go:build !amd64 || purego

package rawroaring

import "encoding/binary"

// Without the amd64 kernels the arrays are merged.

const BlockKernels = false

func CountArrays(a, b []byte) int {
	_, n := Merge(nil, a, b)
	return n
}

func IntersectArrays(out *[KernelOut]uint16, a, b []byte) []uint16 {
	vals, _ := Merge(out[:0], a, b)
	return vals
}

// ValueBytes is vals as a serialized array container: little-endian words,
// copied, since this machine's own order may differ.
func ValueBytes(vals []uint16) []byte {
	b := make([]byte, 0, 2*len(vals))
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint16(b, v)
	}
	return b
}

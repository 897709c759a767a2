//go:build !amd64 || purego

package rawroaring

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

// ValueBytes is vals as a serialized array container, copied: this
// machine's own byte order may differ.
func ValueBytes(vals []uint16) []byte { return appendArray(make([]byte, 0, 2*len(vals)), vals) }

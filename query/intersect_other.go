//go:build !amd64 || purego

package query

// Without the amd64 kernels the arrays are merged.

const blockKernels = false

func countArrays(a, b []byte) int {
	_, n := merge(nil, a, b)
	return n
}

func intersectArrays(out *[kernelOut]uint16, a, b []byte) []uint16 {
	vals, _ := merge(out[:0], a, b)
	return vals
}

// valueBytes is vals as a serialized array container.
func valueBytes(vals []uint16) []byte { return appendArray(nil, vals) }

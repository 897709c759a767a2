//go:build !purego

package rawroaring

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// BlockKernels: the SSE4.2 block intersection of intersect_amd64.s can run
// here (PCMPESTRM, POPCNT). Every x86-64 server CPU of the last decade has
// them; without, the scalar merge does the work.
var BlockKernels = cpu.X86.HasSSE42 && cpu.X86.HasPOPCNT

//go:noescape
func intersectBlocks(a, b *byte, na, nb int, out *uint16) (n, i, j int)

// packWords[m] is the PSHUFB control that moves the words of a block whose
// bits are set in m to the front, in order.
//
//lint:ignore U1000 read by intersectBlocks (intersect_amd64.s)
var packWords = func() (t [256][16]byte) {
	for m := range t {
		at := 0
		for w := range 8 {
			if m>>w&1 != 0 {
				t[m][at], t[m][at+1] = byte(2*w), byte(2*w+1)
				at += 2
			}
		}
		for ; at < 16; at++ {
			t[m][at] = 0x80 // PSHUFB writes zero
		}
	}
	return t
}()

// CountArrays is the number of values common to two serialized array
// containers.
func CountArrays(a, b []byte) int {
	na, nb := len(a)/2, len(b)/2
	if !BlockKernels || na < 8 || nb < 8 {
		_, n := Merge(nil, a, b)
		return n
	}
	n, i, j := intersectBlocks(&a[0], &b[0], na, nb, nil)
	_, tail := Merge(nil, a[2*i:], b[2*j:])
	return n + tail
}

// IntersectArrays stores the values common to two serialized array
// containers in out and returns them; out is an array so that it always
// has the room the kernel's whole-block stores need.
func IntersectArrays(out *[KernelOut]uint16, a, b []byte) []uint16 {
	na, nb := len(a)/2, len(b)/2
	if !BlockKernels || na < 8 || nb < 8 || na > ArrayMaxCard || nb > ArrayMaxCard {
		vals, _ := Merge(out[:0], a, b)
		return vals
	}
	n, i, j := intersectBlocks(&a[0], &b[0], na, nb, &out[0])
	vals, _ := Merge(out[:n], a[2*i:], b[2*j:])
	return vals
}

// ValueBytes is vals as a serialized array container: the same bytes on a
// little-endian machine.
func ValueBytes(vals []uint16) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vals))), 2*len(vals))
}

//go:build !purego

package rawroaring

import "testing"

// TestIntersectArraysWithoutKernels runs the array checks with the
// kernels switched off, as on a CPU without SSE4.2: the merge must give
// the same answers.
func TestIntersectArraysWithoutKernels(t *testing.T) {
	if !BlockKernels {
		t.Log("this CPU has no SSE4.2: every other test already runs the fallback")
	}
	defer func(was bool) { BlockKernels = was }(BlockKernels)
	BlockKernels = false
	TestIntersectArraysAgreesWithAMerge(t)
}

// TestIntersectArraysBoundsItsStores gives the kernel what a made file
// could hold, arrays that repeat values, arranged so that nearly every step
// finds eight values while only one side moves on, and checks that nothing
// past the output buffer is written.
func TestIntersectArraysBoundsItsStores(t *testing.T) {
	var guarded struct {
		out    [KernelOut]uint16
		canary [64]uint16
	}
	for i := range guarded.canary {
		guarded.canary[i] = 0xBEEF
	}
	// a: blocks of seven 7s and an 8, so a block stays while b's blocks of
	// 7s pass under it; b ends with seven 7s and a 9, which then stays
	// while a's blocks pass.
	a := make([]uint16, 0, ArrayMaxCard)
	for len(a) < ArrayMaxCard {
		a = append(a, 7, 7, 7, 7, 7, 7, 7, 8)
	}
	b := make([]uint16, 0, ArrayMaxCard)
	for len(b) < ArrayMaxCard-8 {
		b = append(b, 7, 7, 7, 7, 7, 7, 7, 7)
	}
	b = append(b, 7, 7, 7, 7, 7, 7, 7, 9)
	got := IntersectArrays(&guarded.out, arrayBytes(a), arrayBytes(b))
	if BlockKernels && len(got) <= ArrayMaxCard+8 {
		t.Errorf("%d values found: the input no longer makes the kernel find more than the old bound", len(got))
	}
	for i, c := range guarded.canary {
		if c != 0xBEEF {
			t.Fatalf("written past the buffer at %d", i)
		}
	}
	if n := CountArrays(arrayBytes(a), arrayBytes(b)); n != len(got) {
		t.Errorf("count %d, stored %d", n, len(got))
	}
}

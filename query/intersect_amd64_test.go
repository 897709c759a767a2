//go:build !purego

package query

import "testing"

// TestConjunctionWithoutKernels runs the conjunction and plain-path checks
// with the array kernels switched off, as on a CPU without SSE4.2: the
// fallback (merge, galloping, seeding) must give the same answers.
func TestConjunctionWithoutKernels(t *testing.T) {
	if !blockKernels {
		t.Log("this CPU has no SSE4.2: every other test already runs the fallback")
	}
	defer func(was bool) { blockKernels = was }(blockKernels)
	blockKernels = false
	t.Run("conjunction", TestConjunctionMatchesRoaring)
	t.Run("arrays", TestIntersectArraysAgreesWithAMerge)
	t.Run("plain", TestPlainMatchesBitmapPathAcrossKeys)
}

// TestIntersectArraysBoundsItsStores gives the kernel what a made file
// could hold, arrays that repeat values, arranged so that nearly every step
// finds eight values while only one side moves on, and checks that nothing
// past the output buffer is written.
func TestIntersectArraysBoundsItsStores(t *testing.T) {
	var guarded struct {
		out    [kernelOut]uint16
		canary [64]uint16
	}
	for i := range guarded.canary {
		guarded.canary[i] = 0xBEEF
	}
	// a: blocks of seven 7s and an 8, so a block stays while b's blocks of
	// 7s pass under it; b ends with seven 7s and a 9, which then stays
	// while a's blocks pass.
	a := make([]uint16, 0, arrayMaxCard)
	for len(a) < arrayMaxCard {
		a = append(a, 7, 7, 7, 7, 7, 7, 7, 8)
	}
	b := make([]uint16, 0, arrayMaxCard)
	for len(b) < arrayMaxCard-8 {
		b = append(b, 7, 7, 7, 7, 7, 7, 7, 7)
	}
	b = append(b, 7, 7, 7, 7, 7, 7, 7, 9)
	got := intersectArrays(&guarded.out, arrayBytes(a), arrayBytes(b))
	if blockKernels && len(got) <= arrayMaxCard+8 {
		t.Errorf("%d values found: the input no longer makes the kernel find more than the old bound", len(got))
	}
	for i, c := range guarded.canary {
		if c != 0xBEEF {
			t.Fatalf("written past the buffer at %d", i)
		}
	}
	if n := countArrays(arrayBytes(a), arrayBytes(b)); n != len(got) {
		t.Errorf("count %d, stored %d", n, len(got))
	}
}

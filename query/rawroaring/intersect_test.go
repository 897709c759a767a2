package rawroaring

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestIntersectArraysAgreesWithAMerge checks the array kernels (and the
// merge they fall back on) against a plain two-pointer merge of values,
// over arrays of every length around the kernels' block of eight, sparse
// and dense, overlapping little and much, with equal last values in a
// block, and at the edges of the value range.
func TestIntersectArraysAgreesWithAMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var out [KernelOut]uint16
	check := func(a, b []uint16) {
		t.Helper()
		want := mergeValues(a, b)
		da, db := arrayBytes(a), arrayBytes(b)
		if got := CountArrays(da, db); got != len(want) {
			t.Fatalf("countArrays(%v, %v) = %d, want %d", a, b, got, len(want))
		}
		if got := IntersectArrays(&out, da, db); !slices.Equal(got, want) {
			t.Fatalf("intersectArrays(%v, %v) = %v, want %v", a, b, got, want)
		}
	}
	for n := range 40 {
		for m := range 40 {
			check(randomSet(rng, n, 64), randomSet(rng, m, 64))
		}
	}
	for range 3000 {
		span := []int{20, 200, 5000, 1 << 16}[rng.IntN(4)]
		a := randomSet(rng, rng.IntN(min(span, ArrayMaxCard)+1), span)
		b := randomSet(rng, rng.IntN(min(span, ArrayMaxCard)+1), span)
		check(a, b)
		check(b, a)
		check(a, a)
	}
	top := []uint16{65528, 65529, 65530, 65531, 65532, 65533, 65534, 65535}
	check(top, top)
	check(append([]uint16{0, 1}, top...), top[2:])
	full := make([]uint16, ArrayMaxCard)
	for i := range full {
		full[i] = uint16(i)
	}
	check(full, full)
	check(full, full[8:])
}

// randomSet is n distinct values below span, sorted.
func randomSet(rng *rand.Rand, n, span int) []uint16 {
	n = min(n, span)
	seen := make(map[uint16]bool, n)
	for len(seen) < n {
		seen[uint16(rng.IntN(span))] = true
	}
	out := make([]uint16, 0, n)
	for v := range seen {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

func arrayBytes(vals []uint16) []byte { return appendArray(nil, vals) }

func mergeValues(a, b []uint16) []uint16 {
	out := []uint16{}
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// FuzzIntersectArrays reads two sets from the input and compares the
// kernels with the merge.
func FuzzIntersectArrays(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}, uint8(9))
	f.Fuzz(func(t *testing.T, data []byte, split uint8) {
		set := func(b []byte) []uint16 {
			var vals []uint16
			for i := 0; i+1 < len(b); i += 2 {
				vals = append(vals, binary.LittleEndian.Uint16(b[i:]))
			}
			slices.Sort(vals)
			return slices.Compact(vals)
		}
		cut := min(int(split)*2, len(data))
		a, b := set(data[:cut]), set(data[cut:])
		if len(a) > ArrayMaxCard || len(b) > ArrayMaxCard {
			return
		}
		var out [KernelOut]uint16
		want := mergeValues(a, b)
		if got := CountArrays(arrayBytes(a), arrayBytes(b)); got != len(want) {
			t.Fatalf("count %d, want %d", got, len(want))
		}
		if got := IntersectArrays(&out, arrayBytes(a), arrayBytes(b)); !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})
}

// BenchmarkCountArrays counts the common values of two array containers of
// comparable size and of very different sizes, as a search combining a
// word and a filter does under each key at millions of stations.
func BenchmarkCountArrays(b *testing.B) {
	for _, sizes := range [][2]int{{800, 920}, {300, 2400}, {50, 2000}, {3000, 3500}} {
		rng := rand.New(rand.NewPCG(1, 2))
		x, y := arrayBytes(randomSet(rng, sizes[0], 1<<16)), arrayBytes(randomSet(rng, sizes[1], 1<<16))
		b.Run(fmt.Sprintf("kernel/%dx%d", sizes[0], sizes[1]), func(b *testing.B) {
			for b.Loop() {
				CountArrays(x, y)
			}
		})
		b.Run(fmt.Sprintf("merge/%dx%d", sizes[0], sizes[1]), func(b *testing.B) {
			for b.Loop() {
				Merge(nil, x, y)
			}
		})
	}
}

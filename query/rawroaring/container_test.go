package rawroaring

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"stationdex/internal/format"
)

// randomBitmap has array, bitmap and (after RunOptimize) run containers.
func randomBitmap(r *rand.Rand, n uint32) *roaring.Bitmap {
	b := roaring.New()
	for range r.IntN(3000) {
		b.Add(r.Uint32N(n))
	}
	for range r.IntN(3) {
		lo := r.Uint64N(uint64(n))
		b.AddRange(lo, min(uint64(n), lo+r.Uint64N(70000)))
	}
	if r.IntN(2) == 0 {
		b.RunOptimize()
	}
	return b
}

func TestRawBitmapMatchesRoaring(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var cs []Container
	for i := range 300 {
		n := uint32(1 + r.IntN(300000))
		a, m := randomBitmap(r, n), randomBitmap(r, n)
		v, err := a.ToBytes()
		if err != nil {
			t.Fatal(err)
		}
		if cs, err = Parse(v, cs); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		dense := make([]uint64, int(m.Maximum()>>6)+1)
		m.WriteDenseTo(dense)
		var blocks []DenseBlock
		for j := range cs {
			if cs[j].Kind == Array && cs[j].Card > 512 && r.IntN(2) == 0 { // some arrays as bitsets
				blocks = append(blocks, Dense(&cs[j]))
			}
		}
		if got, want := AndCount(cs, blocks, dense, 0, 0), int(a.AndCardinality(m)); got != want {
			t.Fatalf("case %d: andCount %d, roaring %d", i, got, want)
		}
		var all []uint32
		Each(cs, make([]uint32, 0, 100), func(recs []uint32) { all = append(all, recs...) })
		if want := a.ToArray(); !equalUint32(all, want) {
			t.Fatalf("case %d: eachRaw gives %d values, want %d", i, len(all), len(want))
		}
	}
}

func equalUint32(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRawBitmapDamaged: every truncation and many byte flips of a valid
// bitmap are either parsed or reported as corrupt, never a panic.
func TestRawBitmapDamaged(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	b := randomBitmap(r, 200000)
	v, err := b.ToBytes()
	if err != nil {
		t.Fatal(err)
	}
	dense := make([]uint64, 200000/64+1)
	var cs []Container
	check := func(v []byte) {
		cs, err = Parse(v, cs)
		if err != nil {
			if !errors.Is(err, format.ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		AndCount(cs, nil, dense, 0, 0)
		Each(cs, make([]uint32, 0, 64), func([]uint32) {})
	}
	for i := range len(v) {
		check(v[:i])
	}
	for range 2000 {
		w := append([]byte(nil), v...)
		w[r.IntN(len(w))] ^= byte(1 + r.IntN(255))
		check(w)
	}
}

package core

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"stationdex/query/rawroaring"
)

// randomList is a bitmap over three container keys whose containers are,
// at random, sparse (arrays), dense (bitmaps), runs, or absent.
func randomList(rng *rand.Rand) *roaring.Bitmap {
	bm := roaring.New()
	for key := range uint32(3) {
		base := key << 16
		switch rng.IntN(5) {
		case 0: // absent
		case 1: // sparse
			for range 1 + rng.IntN(300) {
				bm.Add(base | uint32(rng.IntN(1<<16)))
			}
		case 2: // dense
			for range 5000 + rng.IntN(30000) {
				bm.Add(base | uint32(rng.IntN(1<<16)))
			}
		case 3: // runs
			for range 1 + rng.IntN(20) {
				lo := uint64(base) + uint64(rng.IntN(1<<16))
				bm.AddRange(lo, min(lo+uint64(rng.IntN(5000)), uint64(base)+1<<16))
			}
		case 4: // a few values around a boundary
			bm.AddMany([]uint32{base, base | 63, base | 64, base | 0xFFFF})
		}
	}
	bm.RunOptimize()
	return bm
}

// TestConjunctionMatchesRoaring evaluates random conjunctions of unions key
// by key and compares each key's members with roaring's And and Or of the
// same lists, in every mix of array, bitmap and run containers.
func TestConjunctionMatchesRoaring(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	sc := new(keyScratch)
	other := new(keyScratch)
	for round := range 400 {
		var lists [][]rawroaring.Container
		var cj conjunction
		want := (*roaring.Bitmap)(nil)
		for range 1 + rng.IntN(4) {
			p := conjunct{first: len(lists), n: 1 + rng.IntN(3)}
			union := roaring.New()
			for range p.n {
				bm := randomList(rng)
				var buf bytes.Buffer
				if _, err := bm.WriteTo(&buf); err != nil {
					t.Fatal(err)
				}
				cs, err := rawroaring.Parse(buf.Bytes(), nil)
				if err != nil {
					t.Fatal(err)
				}
				lists = append(lists, cs)
				union.Or(bm)
			}
			cj.parts = append(cj.parts, p)
			if want == nil {
				want = union
			} else {
				want.And(union)
			}
		}
		for key := range uint16(3) {
			n := cj.eval(lists, key, sc)
			got := members(&sc.out, key)
			if n != len(got) {
				t.Fatalf("round %d key %d: eval says %d, holds %d", round, key, n, len(got))
			}
			exp := inKey(want, key)
			if !slices.Equal(got, exp) {
				t.Fatalf("round %d key %d: %d members, want %d\n got %v\nwant %v", round, key, len(got), len(exp), head(got), head(exp))
			}
			for _, v := range exp {
				if !sc.out.has(uint16(v)) {
					t.Fatalf("round %d key %d: has(%d) false for a member", round, key, v)
				}
			}
			// narrowing a copy by a conjunct again changes nothing
			for _, p := range cj.parts {
				other.copyOf(&sc.out)
				if m := other.narrow(lists, []conjunct{p}, key); m != n {
					t.Fatalf("round %d key %d: narrowed copy has %d members, want %d", round, key, m, n)
				}
				if m := other.narrowFrom(&sc.out, lists, []conjunct{p}, key); m != n || !slices.Equal(members(&other.out, key), exp) {
					t.Fatalf("round %d key %d: narrowFrom has %d members, want %d", round, key, m, n)
				}
			}
		}
	}
}

// members lists the values of a key's result as record numbers.
func members(k *keySet, key uint16) []uint32 {
	var out []uint32
	base := uint32(key) << 16
	if !k.inBlk {
		for _, v := range k.vals {
			out = append(out, base|uint32(v))
		}
		return out
	}
	for i, w := range k.blk {
		for b := range 64 {
			if w>>b&1 != 0 {
				out = append(out, base|uint32(i*64+b))
			}
		}
	}
	return out
}

// inKey is the values of bm under one container key.
func inKey(bm *roaring.Bitmap, key uint16) []uint32 {
	var out []uint32
	lo := uint32(key) << 16
	it := bm.Iterator()
	it.AdvanceIfNeeded(lo)
	for it.HasNext() {
		v := it.Next()
		if v>>16 != uint32(key) {
			break
		}
		out = append(out, v)
	}
	return out
}

func head(xs []uint32) []uint32 { return xs[:min(len(xs), 12)] }

// BenchmarkIntersectArray intersects sorted values with an array container
// of comparable size (merged) and of 40 times their size (galloped): the
// per-key step of a search combining a word and a filter at millions of
// stations.
func BenchmarkIntersectArray(b *testing.B) {
	for _, sizes := range [][2]int{{800, 920}, {50, 2000}} {
		rng := rand.New(rand.NewPCG(1, 2))
		vals := sortedSample(rng, sizes[0])
		other := sortedSample(rng, sizes[1])
		data := make([]byte, 2*len(other))
		for i, v := range other {
			data[2*i], data[2*i+1] = byte(v), byte(v>>8)
		}
		buf := make([]uint16, len(vals))
		b.Run(fmt.Sprintf("%dx%d", sizes[0], sizes[1]), func(b *testing.B) {
			for b.Loop() {
				copy(buf, vals)
				intersectArray(buf, data)
			}
		})
	}
}

func sortedSample(rng *rand.Rand, n int) []uint16 {
	seen := map[uint16]bool{}
	for len(seen) < n {
		seen[uint16(rng.IntN(1<<16))] = true
	}
	out := make([]uint16, 0, n)
	for v := range seen {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// TestContainerAtFindsEveryKey checks the direct place and the bounded
// search against a scan, on lists whose keys are contiguous from their
// first, have gaps, or start late, for every key a search can ask.
func TestContainerAtFindsEveryKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 300 {
		var cs []rawroaring.Container
		key := rng.IntN(40)
		for key < 1<<16 && len(cs) < 80 {
			cs = append(cs, rawroaring.Container{Key: uint16(key)})
			if rng.IntN(4) == 0 {
				key += 1 + rng.IntN(5) // a gap
			} else {
				key++
			}
		}
		for k := range 200 {
			want := -1
			for i := range cs {
				if int(cs[i].Key) == k {
					want = i
				}
			}
			got := containerAt(cs, uint16(k))
			switch {
			case want < 0 && got != nil:
				t.Fatalf("trial %d: key %d: found key %d, want none", trial, k, got.Key)
			case want >= 0 && got != &cs[want]:
				t.Fatalf("trial %d: key %d: want position %d, got %v", trial, k, want, got)
			}
		}
	}
	if containerAt(nil, 0) != nil {
		t.Fatal("an empty list has no container")
	}
}

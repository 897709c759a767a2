package rawroaring

import (
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// randomDense is a bitset of keys containers' worth of records, each set
// with probability share, and runs of set records (the stations of one
// word sit together in name order).
func randomDense(rng *rand.Rand, words int, share float64) []uint64 {
	d := make([]uint64, words)
	for r := range words * 64 {
		if rng.Float64() < share {
			d[r/64] |= 1 << (r % 64)
		}
	}
	for range min(words, 3) {
		at := rng.IntN(words)
		for i := at; i < min(at+200, words); i++ {
			d[i] = ^uint64(0)
		}
	}
	return d
}

// TestAppendDenseReadsBackAsFromDense: the serialization, read with
// roaring's FromBuffer, is the bitmap FromDense makes, container kinds
// included, at densities on both sides of the array limit, with empty
// keys, a short last key, words of more than eight values, and after
// bytes already in the buffer (odd ones too, written the portable way).
func TestAppendDenseReadsBackAsFromDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for _, c := range []struct {
		words  int
		share  float64
		prefix int
	}{
		{77 * BlockWords, 0.06, 0}, {77 * BlockWords, 0.0005, 0}, {5 * BlockWords, 0.3, 0},
		{3*BlockWords + 100, 0.02, 0}, {2 * BlockWords, 0.9, 4}, {2 * BlockWords, 0.01, 3}, {0, 0, 0},
	} {
		d := randomDense(rng, c.words, c.share)
		want := roaring.New()
		want.FromDense(d, true)
		buf := AppendDense(make([]byte, c.prefix, 16), d, nil)
		got := roaring.New()
		if _, err := got.FromBuffer(buf[c.prefix:]); err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if !got.Equals(want) || got.GetCardinality() != want.GetCardinality() {
			t.Fatalf("%+v: %d values read back, FromDense has %d", c, got.GetCardinality(), want.GetCardinality())
		}
		if gs, ws := got.GetSerializedSizeInBytes(), want.GetSerializedSizeInBytes(); gs != ws {
			t.Fatalf("%+v: serialized size %d, FromDense's %d: other container kinds", c, gs, ws)
		}
		if n := len(buf) - c.prefix; uint64(n) != want.GetSerializedSizeInBytes() {
			t.Fatalf("%+v: %d bytes written, the serialization has %d", c, n, want.GetSerializedSizeInBytes())
		}
	}
}

func BenchmarkAppendDense(b *testing.B) {
	d := randomDense(rand.New(rand.NewPCG(1, 2)), 77*BlockWords, 0.06)
	b.Run("FromDense", func(b *testing.B) {
		b.ReportAllocs()
		bm := roaring.New()
		for b.Loop() {
			bm.Clear()
			bm.FromDense(d, false)
		}
	})
	b.Run("AppendDense", func(b *testing.B) {
		b.ReportAllocs()
		bm := roaring.New()
		var buf []byte
		for b.Loop() {
			bm.Clear()
			buf = AppendDense(buf[:0], d, nil)
			if _, err := bm.FromBuffer(buf); err != nil {
				b.Fatal(err)
			}
		}
	})
}

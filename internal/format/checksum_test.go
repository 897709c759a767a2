package format

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSummerIsTheDocumentedSum checks the sum against its definition
// (CRC-32C over uvarint(len(key)) key uvarint(len(value)) value, pair after
// pair), however the pairs are fed: whole through Add, whatever their size
// around smallValue and flushAt, or through Begin and Write in parts, as a
// reader summing a value from the file does.
func TestSummerIsTheDocumentedSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var framed []byte
	var whole, parts Summer
	pairs := 0
	for range 3000 {
		key := make([]byte, rng.IntN(40))
		value := make([]byte, []int{0, 1, smallValue, smallValue + 1, rng.IntN(flushAt * 3)}[rng.IntN(5)])
		for i := range key {
			key[i] = byte(rng.Uint32())
		}
		for i := range value {
			value[i] = byte(rng.Uint32())
		}
		framed = binary.AppendUvarint(framed, uint64(len(key)))
		framed = append(framed, key...)
		framed = binary.AppendUvarint(framed, uint64(len(value)))
		framed = append(framed, value...)
		whole.Add(key, value)
		parts.Begin(key, len(value))
		for rest := value; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(700))
			parts.Write(rest[:n])
			rest = rest[n:]
		}
		pairs++
	}
	want := BucketSum{Bucket: "b", Keys: pairs, CRC32C: crc32.Checksum(framed, crc32.MakeTable(crc32.Castagnoli)), Bytes: int64(len(framed))}
	if got := whole.Sum([]byte("b")); got != want {
		t.Errorf("Add: %+v, want %+v", got, want)
	}
	if got := parts.Sum([]byte("b")); got != want {
		t.Errorf("Begin and Write: %+v, want %+v", got, want)
	}
}

// TestJoinPartsIsTheWholeSum cuts a bucket's pairs into runs at every
// place, and into several runs, sums each run apart and checks that
// joining them gives the sum of the whole.
func TestJoinPartsIsTheWholeSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	var pairs [][2][]byte
	for i := range 40 {
		value := make([]byte, []int{0, 1, 7, 64, 65, 3000, 40 << 10}[rng.IntN(7)])
		for j := range value {
			value[j] = byte(rng.IntN(256))
		}
		pairs = append(pairs, [2][]byte{fmt.Appendf(nil, "key%03d", i), value})
	}
	var whole Summer
	for _, p := range pairs {
		whole.Add(p[0], p[1])
	}
	want := whole.Sum([]byte("b"))
	sumOf := func(run [][2][]byte) SumPart {
		var s Summer
		for _, p := range run {
			s.Add(p[0], p[1])
		}
		return s.Part()
	}
	for cut := range len(pairs) + 1 {
		got := JoinParts([]byte("b"), []SumPart{sumOf(pairs[:cut]), sumOf(pairs[cut:])})
		if got != want {
			t.Fatalf("cut at %d: %+v, want %+v", cut, got, want)
		}
	}
	var parts []SumPart
	for lo := 0; lo < len(pairs); lo += 7 {
		parts = append(parts, sumOf(pairs[lo:min(lo+7, len(pairs))]))
	}
	if got := JoinParts([]byte("b"), parts); got != want {
		t.Fatalf("seven-pair runs: %+v, want %+v", got, want)
	}
	// a run summed in the wrong order must not pass
	parts[0], parts[1] = parts[1], parts[0]
	if got := JoinParts([]byte("b"), parts); got.CRC32C == want.CRC32C {
		t.Fatal("swapped runs join to the whole sum")
	}
}

// TestCRCConcatMatchesTheLibrary checks the concatenation rule against
// hash/crc32 on random byte strings, the empty ones included.
func TestCRCConcatMatchesTheLibrary(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 1))
	for range 200 {
		a, b := make([]byte, rng.IntN(300)), make([]byte, rng.IntN(5000))
		for i := range a {
			a[i] = byte(rng.IntN(256))
		}
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		want := crc32.Checksum(append(slices.Clone(a), b...), castagnoli)
		got := crcConcat(crc32.Checksum(a, castagnoli), crc32.Checksum(b, castagnoli), int64(len(b)))
		if got != want {
			t.Fatalf("len %d + %d: %08x, want %08x", len(a), len(b), got, want)
		}
	}
}

// TestVerifyChecksumsComparesLengthWhenStored checks that a stored length
// must match the length summed, and that a document from before lengths
// were stored (none) still verifies on keys and CRC alone.
func TestVerifyChecksumsComparesLengthWhenStored(t *testing.T) {
	got := []BucketSum{{Bucket: "a", Keys: 2, CRC32C: 7, Bytes: 100}, {Bucket: "b", Keys: 1, CRC32C: 9, Bytes: 30}}
	doc := func(sums ...BucketSum) []byte {
		raw, err := EncodeChecksums(sums)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	if err := VerifyChecksums(doc(got...), got); err != nil {
		t.Fatalf("same sums: %v", err)
	}
	old := []BucketSum{{Bucket: "a", Keys: 2, CRC32C: 7}, {Bucket: "b", Keys: 1, CRC32C: 9}}
	if err := VerifyChecksums(doc(old...), got); err != nil {
		t.Fatalf("sums stored without lengths: %v", err)
	}
	longer := []BucketSum{got[0], {Bucket: "b", Keys: 1, CRC32C: 9, Bytes: 31}}
	if err := VerifyChecksums(doc(longer...), got); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("stored length 31, summed 30: %v, want ErrCorrupt", err)
	}
	if _, err := DecodeChecksums([]byte("{")); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("broken document: %v, want ErrCorrupt", err)
	}
}

package format

import (
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
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
	want := BucketSum{Bucket: "b", Keys: pairs, CRC32C: crc32.Checksum(framed, crc32.MakeTable(crc32.Castagnoli))}
	if got := whole.Sum([]byte("b")); got != want {
		t.Errorf("Add: %+v, want %+v", got, want)
	}
	if got := parts.Sum([]byte("b")); got != want {
		t.Errorf("Begin and Write: %+v, want %+v", got, want)
	}
}

package check

import (
	"bytes"
	"encoding/binary"
	"testing"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	"stationdex/query/internal/testindex"
)

// TestCheckFindsDamagedSearchOrders: a stored order of the search that
// is not a sorted permutation of the records is refused by Check, even
// with checksums to match (a faulty build), with a message naming the
// order and what is wrong; the index as built passes.
func TestCheckFindsDamagedSearchOrders(t *testing.T) {
	text, _ := testindex.RBAPIInput(t)
	path := testindex.Build(t, text)
	if _, err := Check(path); err != nil {
		t.Fatalf("Check of the index as built: %v", err)
	}
	chunk := func(tx *bolt.Tx, o int, change func(v []byte) []byte) error {
		b := tx.Bucket(format.BucketSearchOrders)
		k := format.SearchOrderKey(nil, o, 0)
		return b.Put(k, change(bytes.Clone(b.Get(k))))
	}
	swap := func(v []byte) []byte {
		a, b := binary.LittleEndian.Uint32(v), binary.LittleEndian.Uint32(v[4:])
		binary.LittleEndian.PutUint32(v, b)
		binary.LittleEndian.PutUint32(v[4:], a)
		return v
	}
	for _, tt := range []struct {
		name   string
		damage func(tx *bolt.Tx) error
		want   string
	}{
		{"two records swapped", func(tx *bolt.Tx) error { return chunk(tx, format.SortPopular, swap) },
			"corrupt index: search order popular: record 3 at place 1 sorts before record 2 at place 0"},
		{"equal keys out of record order", func(tx *bolt.Tx) error { return chunk(tx, format.SortBitrate, swap) },
			"corrupt index: search order bitrate: record 0 at place 1 sorts before record 1 at place 0"},
		{"a record twice", func(tx *bolt.Tx) error {
			return chunk(tx, format.SortBitrate, func(v []byte) []byte { copy(v[4:8], v[:4]); return v })
		}, "corrupt index: search order bitrate: record 0 at place 1 is listed twice"},
		{"a record past the end", func(tx *bolt.Tx) error {
			return chunk(tx, format.SortPopular, func(v []byte) []byte { binary.LittleEndian.PutUint32(v[8:], 1<<20); return v })
		}, "corrupt index: search order popular: record 1048576 at place 2: only 5 stations"},
		{"a short chunk", func(tx *bolt.Tx) error {
			return chunk(tx, format.SortBitrate, func(v []byte) []byte { return v[:len(v)-4] })
		}, "corrupt index: search order bitrate: chunk of 16 bytes at place 0, want 20"},
		{"a chunk missing", func(tx *bolt.Tx) error {
			return tx.Bucket(format.BucketSearchOrders).Delete(format.SearchOrderKey(nil, format.SortPopular, 0))
		}, "1 search order chunks, want 2"},
	} {
		t.Run(tt.name, func(t *testing.T) { checkRefusesDamage(t, path, tt.damage, tt.want) })
	}
}

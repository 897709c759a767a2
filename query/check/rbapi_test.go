package check

import (
	"bytes"
	"encoding/binary"
	"testing"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	"stationdex/query/internal/testindex"
)

// TestCheckFindsDamagedUpstreamOrders: a stored order that is not a
// sorted permutation of the records is refused by Check, even with
// checksums to match (a faulty build).
func TestCheckFindsDamagedUpstreamOrders(t *testing.T) {
	text, _ := testindex.RBAPIInput(t)
	path := testindex.Build(t, text)
	votes := -1
	for s, sort := range format.RBAPISorts {
		if sort.Name == "votes" {
			votes = s
		}
	}
	chunk := func(tx *bolt.Tx, s int, change func(v []byte) []byte) error {
		b := tx.Bucket(format.BucketRBAPIOrders)
		k := format.RBAPIOrderKey(s, 0)
		return b.Put(k, change(bytes.Clone(b.Get(k))))
	}
	for _, tt := range []struct {
		name   string
		damage func(tx *bolt.Tx) error
	}{
		{"two records swapped", func(tx *bolt.Tx) error {
			return chunk(tx, votes, func(v []byte) []byte {
				a, b := binary.LittleEndian.Uint32(v), binary.LittleEndian.Uint32(v[4:])
				binary.LittleEndian.PutUint32(v, b)
				binary.LittleEndian.PutUint32(v[4:], a)
				return v
			})
		}},
		{"a record twice", func(tx *bolt.Tx) error {
			return chunk(tx, votes, func(v []byte) []byte { copy(v[4:8], v[:4]); return v })
		}},
		{"a record past the end", func(tx *bolt.Tx) error {
			return chunk(tx, 0, func(v []byte) []byte { binary.LittleEndian.PutUint32(v, 1<<20); return v })
		}},
		{"a short chunk", func(tx *bolt.Tx) error {
			return chunk(tx, 0, func(v []byte) []byte { return v[:len(v)-4] })
		}},
		{"a chunk missing", func(tx *bolt.Tx) error {
			return tx.Bucket(format.BucketRBAPIOrders).Delete(format.RBAPIOrderKey(3, 0))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) { checkRefusesDamage(t, path, tt.damage, "") })
	}
}

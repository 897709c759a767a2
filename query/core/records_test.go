package core

import (
	"bytes"
	"encoding/binary"
	"testing"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
)

// TestReadBlocksNeedsTheBlockNumbers checks that a bucket is located only
// when its keys are the block numbers from 0 without a gap.
func TestReadBlocksNeedsTheBlockNumbers(t *testing.T) {
	key := func(n uint32) []byte { return binary.BigEndian.AppendUint32(nil, n) }
	from := func(keys ...[]byte) func() ([]byte, []byte) {
		i := 0
		return func() ([]byte, []byte) {
			if i == len(keys) {
				return nil, nil
			}
			i++
			return keys[i-1], []byte{byte(i)}
		}
	}
	if got := ReadBlocks(from(key(0), key(1), key(2))); len(got) != 3 || got[2][0] != 3 {
		t.Fatalf("blocks 0, 1, 2: %v", got)
	}
	for name, keys := range map[string][][]byte{
		"a gap":          {key(0), key(2)},
		"not from 0":     {key(1), key(2)},
		"a longer key":   {key(0), append(key(1), 0)},
		"a shorter key":  {key(0), {1}},
		"none":           nil,
		"a repeated key": {key(0), key(0)},
	} {
		if got := ReadBlocks(from(keys...)); got != nil {
			t.Errorf("%s: located %d blocks, want none", name, len(got))
		}
	}
}

// TestSearchesLocateTheStoredBlocks checks that after a search, a JSON
// search, a distinct search and a page of the Radio Browser API the record
// buckets are located, and that the locator holds exactly the values
// bbolt holds under each block key.
func TestSearchesLocateTheStoredBlocks(t *testing.T) {
	ix, _ := realIndex(t)
	q := Query{Q: "radio", Filter: filters("DE", "", ""), Limit: 20}
	if _, err := search(ix, q); err != nil {
		t.Fatal(err)
	}
	if _, _, err := searchJSON(ix, q, nil); err != nil {
		t.Fatal(err)
	}
	q.Distinct = true
	if _, err := search(ix, q); err != nil {
		t.Fatal(err)
	}
	if err := RBAPIPage(ix, filters("DE", "", "")); err != nil {
		t.Fatal(err)
	}
	want := (ix.Meta().Stations + format.RecordsPerBlock - 1) / format.RecordsPerBlock
	err := ix.View(func(tx *bolt.Tx) error {
		for i, name := range blockBuckets {
			got := ix.blocks[i].blocks
			if len(got) != want {
				t.Fatalf("%s: %d blocks located, want %d", name, len(got), want)
			}
			for b := range got {
				if v := tx.Bucket(name).Get(format.BlockKey(uint32(b))); !bytes.Equal(v, got[b]) {
					t.Fatalf("%s: block %d differs from the stored one", name, b)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBlocksLocatedAtOpenAreTheBucketsBlocks: the block locators Open
// fills from the verification's notes (locateFromTree) hold, for every
// record bucket of the real snapshot's index, the same blocks in the same
// order as reading the bucket does (ReadBlocks), and at least the station
// records and their JSON are located so.
func TestBlocksLocatedAtOpenAreTheBucketsBlocks(t *testing.T) {
	realIndex(t)
	ix, err := Open(real.ix.path) // a fresh one: no search has located anything in it
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	preset := 0
	for i, name := range blockBuckets {
		spans, all := ix.Tree.Large(string(name))
		if !all {
			continue
		}
		preset++
		var want [][]byte
		if err := ix.View(func(tx *bolt.Tx) error {
			c := tx.Bucket(name).Cursor()
			k, v := c.First()
			want = ReadBlocks(func() ([]byte, []byte) {
				defer func() { k, v = c.Next() }()
				return k, v
			})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		got := ix.blocks[i].blocks
		if len(got) != len(want) || len(got) != len(spans) || len(got) == 0 {
			t.Fatalf("bucket %s: %d blocks located at open, %d read from the bucket, %d noted", name, len(got), len(want), len(spans))
		}
		for j := range got {
			if !bytes.Equal(got[j], want[j]) {
				t.Fatalf("bucket %s: block %d located at open differs from the bucket's", name, j)
			}
		}
	}
	if preset < 2 {
		t.Errorf("%d record buckets located at open, want the station records and their JSON at least", preset)
	}
}

package query

import (
	"fmt"
	"strings"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/format"
)

// Groups: the entries of the directory that are one stream or one station
// (see package format), read from the group_of and groups buckets. A
// record's group is one lookup; its members one more.

// MaxVariants is the most variants Variants returns; the rest are counted.
const MaxVariants = 20

// Variants returns the other entries of the group of station id, the
// group's representative first and the rest by the same rule, at most
// MaxVariants of them, and how many there are in all. A station that
// stands alone has none; ErrNotFound when id is absent.
func (ix *Index) Variants(id format.UUID) (vs []format.Record, total int, err error) {
	err = ix.view(func(tx *bolt.Tx) error {
		n, err := recordOf(tx, id)
		if err != nil {
			return err
		}
		members, err := groupMembers(tx, n)
		if err != nil || len(members) == 0 {
			return err
		}
		total = len(members) - 1
		others := make([]uint32, 0, min(total, MaxVariants))
		for _, m := range members {
			if m != n && len(others) < MaxVariants {
				others = append(others, m)
			}
		}
		vs, _, err = decodeRecords(newRecordReader(tx), others, nil)
		return err
	})
	return vs, total, err
}

// groupOf is the group of record n, format.NoGroup when it stands alone.
func groupOf(tx *bolt.Tx, n uint32) (uint32, error) {
	block, slot := format.BlockOf(n)
	v := tx.Bucket(format.BucketGroupOf).Get(format.BlockKey(block))
	if v == nil {
		return 0, fmt.Errorf("%w: no group_of block %d", format.ErrCorrupt, block)
	}
	return format.GroupOf(v, slot)
}

// groupMembers is the members of record n's group, n among them; none
// when it stands alone.
func groupMembers(tx *bolt.Tx, n uint32) ([]uint32, error) {
	g, err := groupOf(tx, n)
	if err != nil || g == format.NoGroup {
		return nil, err
	}
	v := tx.Bucket(format.BucketGroups).Get(format.GroupKey(g))
	if v == nil {
		return nil, fmt.Errorf("%w: record %d in group %d, which is not stored", format.ErrCorrupt, n, g)
	}
	return format.GroupMembers(nil, v)
}

// ListedGroups is the number of groups among the stations filed under key
// in d (an entry that stands alone is a group of its own): what a
// directory page's entries stand for. Counting visits every station of
// the value, so each count is kept for the life of the Index: a value of
// many pages shows it on each.
func (ix *Index) ListedGroups(d Dim, key string) (int, error) {
	bucket, err := directoryBucket(d)
	if err != nil {
		return 0, err
	}
	gc := &ix.listedGroups[d]
	if n, ok := gc.get(key); ok {
		return n, nil
	}
	n := 0
	err = ix.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucket).Get([]byte(key))
		if v == nil {
			return nil
		}
		bm := roaring.New()
		if _, err := bm.FromUnsafeBytes(v); err != nil {
			return fmt.Errorf("%w: %s %q: %v", format.ErrCorrupt, d.Name(), key, err)
		}
		n, err = countGroups(tx, bm)
		return err
	})
	if err == nil {
		gc.put(strings.Clone(key), n) // key may be read from the mapping
	}
	return n, err
}

// groupCounts keeps the group counts of one dimension's values; at most
// one entry per value of the snapshot.
type groupCounts struct {
	mu     sync.RWMutex
	counts map[string]int
}

func (g *groupCounts) get(key string) (int, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	n, ok := g.counts[key]
	return n, ok
}

func (g *groupCounts) put(key string, n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.counts == nil {
		g.counts = map[string]int{}
	}
	g.counts[key] = n
}

// countGroups counts the groups of the records in bm, reading each
// group_of block once.
func countGroups(tx *bolt.Tx, bm *roaring.Bitmap) (int, error) {
	alone, groups := 0, roaring.New()
	var block []byte
	current := ^uint32(0)
	it := bm.Iterator()
	for it.HasNext() {
		n := it.Next()
		b, slot := format.BlockOf(n)
		if b != current {
			if block = tx.Bucket(format.BucketGroupOf).Get(format.BlockKey(b)); block == nil {
				return 0, fmt.Errorf("%w: no group_of block %d", format.ErrCorrupt, b)
			}
			current = b
		}
		g, err := format.GroupOf(block, slot)
		if err != nil {
			return 0, err
		}
		if g == format.NoGroup {
			alone++
		} else {
			groups.Add(g)
		}
	}
	return alone + int(groups.GetCardinality()), nil
}

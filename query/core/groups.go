package core

import (
	"bytes"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
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
	err = ix.withSearch(func(s *Search) error {
		n, err := RecordOf(s.Bucket(format.BucketIDs), id)
		if err != nil {
			return err
		}
		members, err := groupMembers(s.Bucket(format.BucketGroupOf), s.Bucket(format.BucketGroups), n)
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
		vs, _, err = decodeRecords(s.records(format.BucketStations), others, nil)
		return err
	})
	return vs, total, err
}

// groupOf is the group of record n in the group_of bucket,
// format.NoGroup when it stands alone.
func groupOf(groupOfBucket valueGetter, n uint32) (uint32, error) {
	block, slot := format.BlockOf(n)
	v := groupOfBucket.Get(format.BlockKey(block))
	if v == nil {
		return 0, fmt.Errorf("%w: no group_of block %d", format.ErrCorrupt, block)
	}
	return format.GroupOf(v, slot)
}

// groupMembers is the members of record n's group, n among them, from
// the group_of and groups buckets; none when it stands alone.
func groupMembers(groupOfBucket, groups valueGetter, n uint32) ([]uint32, error) {
	g, err := groupOf(groupOfBucket, n)
	if err != nil || g == format.NoGroup {
		return nil, err
	}
	v := groups.Get(format.GroupKey(g))
	if v == nil {
		return nil, fmt.Errorf("%w: record %d in group %d, which is not stored", format.ErrCorrupt, n, g)
	}
	return format.GroupMembers(nil, v)
}

// listedGroups reads listed_groups: the number of groups among the
// stations of each key of a directory bucket, as the indexer counted
// them. One cursor serves every look-up, so that an index page's hundred
// cost no allocation each: a read transaction opens a bucket anew at
// every tx.Bucket, and a Get makes a cursor anew.
type ListedGroups struct {
	c   seeker
	key []byte
}

// seeker finds the first pair at or after a key: a bbolt cursor, or a
// search's openBucket.
type seeker interface {
	Seek(key []byte) (k, v []byte)
}

func NewListedGroups(tx *bolt.Tx) *ListedGroups {
	return &ListedGroups{c: tx.Bucket(format.BucketListedGroups).Cursor()}
}

// of is the number of groups of key in directory bucket bucket.
func (l *ListedGroups) Of(bucket, key []byte) (int, error) {
	l.key = format.AppendListedGroupsKey(l.key[:0], bucket, key)
	k, v := l.c.Seek(l.key)
	if !bytes.Equal(k, l.key) {
		return 0, fmt.Errorf("%w: no listed_groups entry for %s %q", format.ErrCorrupt, bucket, key)
	}
	return format.ParseListedGroups(v)
}

// countGroups counts the groups of the records in bm, reading each
// group_of block once: what the indexer stored in listed_groups, counted
// again from group_of (check).
func CountGroups(tx *bolt.Tx, bm *roaring.Bitmap) (int, error) {
	var groups format.GroupCounter
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
		groups.Add(g)
	}
	return groups.Count(), nil
}

package indexer

import (
	"bytes"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/format"
)

// listedGroupsSource yields the listed_groups bucket (see the groups
// section of package format): for every key of GroupCountedBuckets,
// already written, the groups of its stations, from groupOf (each
// record's group, as writeGroups left it). A call resumes where the last
// one stopped, as putSorted hands every batch a new transaction.
type listedGroupsSource struct {
	groupOf  []uint32
	bucket   int    // index in format.GroupCountedBuckets
	after    []byte // the last key of the bucket done; nil: none yet
	stations roaring.Bitmap
	groups   format.GroupCounter
	records  []uint32 // scratch of count
}

func (s *listedGroupsSource) next(tx *bolt.Tx) ([]byte, []byte, error) {
	for s.bucket < len(format.GroupCountedBuckets) {
		name := format.GroupCountedBuckets[s.bucket]
		k, v := s.resume(tx.Bucket(name).Cursor())
		if k == nil {
			s.bucket, s.after = s.bucket+1, nil
			continue
		}
		s.after = bytes.Clone(k)
		n, err := s.count(v)
		if err != nil {
			return nil, nil, fmt.Errorf("%s %q: %w", name, k, err)
		}
		return format.ListedGroupsKey(name, k), format.AppendListedGroups(nil, n), nil
	}
	return nil, nil, nil
}

// resume positions c on the first key after s.after.
func (s *listedGroupsSource) resume(c *bolt.Cursor) ([]byte, []byte) {
	if s.after == nil {
		return c.First()
	}
	k, v := c.Seek(s.after)
	if bytes.Equal(k, s.after) {
		k, v = c.Next()
	}
	return k, v
}

// count is the number of groups among the stations of posting list v.
func (s *listedGroupsSource) count(v []byte) (int, error) {
	defer s.stations.Clear() // v lives only as long as the transaction
	if _, err := s.stations.FromBuffer(v); err != nil {
		return 0, err
	}
	s.groups.Reset()
	if s.records == nil {
		s.records = make([]uint32, 4096)
	}
	// Many at a time: roaring's one-by-one iterator was most of the cost.
	it := s.stations.ManyIterator()
	for n := it.NextMany(s.records); n > 0; n = it.NextMany(s.records) {
		for _, r := range s.records[:n] {
			s.groups.Add(s.groupOf[r])
		}
	}
	return s.groups.Count(), nil
}

package indexer

import (
	"bytes"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
)

// listedGroupsSource yields the listed_groups bucket (see the groups
// section of package format): for every key of GroupCountedBuckets,
// already written, the groups of its stations, from the tally's groupOf
// (each record's group, as writeGroups left it). A call resumes where the
// last one stopped, as putSorted hands every batch a new transaction.
type listedGroupsSource struct {
	bucket   int    // index in format.GroupCountedBuckets
	after    []byte // the last key of the bucket done; nil: none yet
	stations roaring.Bitmap
	tally    groupTally
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
	return s.tally.among(&s.stations), nil
}

// groupTally counts the groups among sets of records, from each record's
// group.
type groupTally struct {
	groupOf []uint32
	groups  format.GroupCounter
	records []uint32 // scratch
}

// among is the number of groups among the records of bm.
func (t *groupTally) among(bm *roaring.Bitmap) int {
	t.groups.Reset()
	if t.records == nil {
		t.records = make([]uint32, 4096)
	}
	// Many at a time: roaring's one-by-one iterator was most of the cost.
	it := bm.ManyIterator()
	for n := it.NextMany(t.records); n > 0; n = it.NextMany(t.records) {
		for _, r := range t.records[:n] {
			t.groups.Add(t.groupOf[r])
		}
	}
	return t.groups.Count()
}

// wordGroupsSource yields the word_groups bucket (see format's word
// groups) from the all_tokens and all_prefix buckets, already written,
// and groupOf as for listedGroupsSource. The words are found in one
// transaction, as they are enumerated across both buckets; they are few
// (the broad ones), so their counts are held until written.
func wordGroupsSource(groupOf []uint32) kvSource {
	return onePass(func(tx *bolt.Tx) ([][2][]byte, error) {
		tokens, prefixes := tx.Bucket(format.BucketAllTokens), tx.Bucket(format.BucketAllPrefix)
		tally := groupTally{groupOf: groupOf}
		var pairs [][2][]byte
		err := format.EachCountedWord(func() format.Cursor { return tokens.Cursor() }, prefixes.Get,
			func(word []byte, stations *roaring.Bitmap) error {
				v := format.AppendListedGroups(nil, tally.among(stations))
				pairs = append(pairs, [2][]byte{bytes.Clone(word), v})
				return nil
			})
		return pairs, err
	})
}

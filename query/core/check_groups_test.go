package core

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
)

// grouped stores groups over the small index, which has none, as a sound
// build would: the members of each group (small-set station numbers) in
// representative order, which for the small set, one bitrate and no
// codecs, is id order; group_of and the meta counts to match. The damage
// cases of the groups start from it, so that what Check finds is the
// damage and not a missing group.
func grouped(groups ...[]int) func(tx *bolt.Tx) error {
	return func(tx *bolt.Tx) error {
		groupOf := bytes.Clone(tx.Bucket(format.BucketGroupOf).Get(format.BlockKey(0)))
		grouped := 0
		for _, g := range groups {
			members := slices.Sorted(slices.Values(g))
			if err := putGroup(tx, members...); err != nil {
				return err
			}
			for _, n := range recordsOf(tx, members...) {
				binary.BigEndian.PutUint32(groupOf[4*n:], recordsOf(tx, members[0])[0])
			}
			grouped += len(g)
		}
		if err := tx.Bucket(format.BucketGroupOf).Put(format.BlockKey(0), groupOf); err != nil {
			return err
		}
		if err := recountListedGroups(tx); err != nil {
			return err
		}
		return setMeta(tx, func(m *format.Meta) { m.Groups, m.GroupedStations = len(groups), grouped })
	}
}

// recountListedGroups stores listed_groups again from group_of.
func recountListedGroups(tx *bolt.Tx) error {
	out := tx.Bucket(format.BucketListedGroups)
	for _, bucket := range format.GroupCountedBuckets {
		err := tx.Bucket(bucket).ForEach(func(k, v []byte) error {
			var bm roaring.Bitmap
			if _, err := bm.FromBuffer(v); err != nil {
				return err
			}
			n, err := CountGroups(tx, &bm)
			if err != nil {
				return err
			}
			return out.Put(format.ListedGroupsKey(bucket, k), format.AppendListedGroups(nil, n))
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// putGroup stores a group of small-set stations, listed in the order
// given, under the key of the first.
func putGroup(tx *bolt.Tx, stations ...int) error {
	members := recordsOf(tx, stations...)
	var v []byte
	for _, n := range members {
		v = binary.BigEndian.AppendUint32(v, n)
	}
	return tx.Bucket(format.BucketGroups).Put(format.GroupKey(members[0]), v)
}

// recordsOf is the record numbers of small-set stations.
func recordsOf(tx *bolt.Tx, stations ...int) []uint32 {
	out := make([]uint32, len(stations))
	for i, s := range stations {
		id := station{N: s}.UUID()
		out[i] = binary.BigEndian.Uint32(tx.Bucket(format.BucketIDs).Get(id[:]))
	}
	return out
}

func setMeta(tx *bolt.Tx, change func(*format.Meta)) error {
	b := tx.Bucket(format.BucketMeta)
	var m format.Meta
	if err := json.Unmarshal(b.Get(format.KeyMeta), &m); err != nil {
		return err
	}
	change(&m)
	v, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return b.Put(format.KeyMeta, v)
}

// setGroupOf sets the group_of slot of small-set station s to the group
// of station of (of 0: no group).
func setGroupOf(tx *bolt.Tx, s, of int) error {
	g := format.NoGroup
	if of != 0 {
		g = recordsOf(tx, of)[0]
		v := tx.Bucket(format.BucketGroupOf).Get(format.BlockKey(0))
		g = binary.BigEndian.Uint32(v[4*g:])
	}
	b := tx.Bucket(format.BucketGroupOf)
	v := bytes.Clone(b.Get(format.BlockKey(0)))
	binary.BigEndian.PutUint32(v[4*recordsOf(tx, s)[0]:], g)
	return b.Put(format.BlockKey(0), v)
}

// then applies damage after damage, in order.
func then(steps ...func(tx *bolt.Tx) error) func(tx *bolt.Tx) error {
	return func(tx *bolt.Tx) error {
		for _, step := range steps {
			if err := step(tx); err != nil {
				return err
			}
		}
		return nil
	}
}

// TestCheckAcceptsGroups: the groups the damage cases start from are
// sound, so each case's failure is its own damage.
func TestCheckAcceptsGroups(t *testing.T) {
	path := resealed(t, grouped([]int{1, 4}, []int{2, 3}, []int{5, 11, 12}))
	rep, err := Check(path)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Meta.Groups != 3 || rep.Meta.GroupedStations != 7 {
		t.Errorf("meta %+v, want 3 groups of 7 entries", rep.Meta)
	}
	de, _, err := openIndex(t, path).Listing(DimCountry, "DE") // stations 5, 11 and 12
	if err != nil || de.Stations != 3 || de.Groups != 1 {
		t.Errorf("DE lists %d entries of %d groups (%v), want 3 of 1", de.Stations, de.Groups, err)
	}
	vs, total, err := Variants(openIndex(t, path), station{N: 12}.UUID())
	if err != nil || total != 2 || len(vs) != 2 || vs[0].ID != (station{N: 5}.UUID()) {
		t.Errorf("variants of station 12: %v, %d, %v; want stations 5 and 11", names(vs), total, err)
	}
}

package core

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
)

// TestGroupsMatchOracleOnRealSnapshot: the index holds exactly the groups
// the oracle's own union-find finds, each in its representative order,
// and every record's group_of entry names its group.
func TestGroupsMatchOracleOnRealSnapshot(t *testing.T) {
	ix, o := realIndex(t)
	want := o.Groups()
	got := indexGroups(t, ix)
	entries := 0
	for _, g := range want {
		entries += len(g)
	}
	t.Logf("%d groups of %d entries; the largest has %d", len(want), entries, len(slices.MaxFunc(want, func(a, b []format.UUID) int { return len(a) - len(b) })))
	if len(got) != len(want) {
		t.Errorf("%d groups, oracle %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("group %d:\n got %v\nwant %v", i, got[i], want[i])
		}
	}
	if m := ix.Meta(); m.Groups != len(want) || m.GroupedStations != entries {
		t.Errorf("meta counts %d groups of %d entries, oracle %d of %d", m.Groups, m.GroupedStations, len(want), entries)
	}
}

// indexGroups reads every stored group as ids, the groups in the order of
// their representatives' ids, checking group_of of every record.
func indexGroups(t *testing.T, ix *Index) [][]format.UUID {
	t.Helper()
	var out [][]format.UUID
	err := ix.View(func(tx *bolt.Tx) error {
		stations := tx.Bucket(format.BucketStations)
		inGroup := map[uint32]uint32{}
		err := tx.Bucket(format.BucketGroups).ForEach(func(k, v []byte) error {
			members, err := format.GroupMembers(nil, v)
			if err != nil {
				return err
			}
			ids := make([]format.UUID, len(members))
			for i, n := range members {
				var r format.Record
				if err := DecodeRecord(stations, n, &r); err != nil {
					return err
				}
				ids[i], inGroup[n] = r.ID, members[0]
			}
			out = append(out, ids)
			return nil
		})
		if err != nil {
			return err
		}
		return checkGroupOf(tx, ix.meta.Stations, inGroup)
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(out, func(a, b []format.UUID) int { return bytes.Compare(a[0][:], b[0][:]) })
	return out
}

func checkGroupOf(tx *bolt.Tx, stations int, inGroup map[uint32]uint32) error {
	for n := range uint32(stations) {
		g, err := GroupOf(tx.Bucket(format.BucketGroupOf), n)
		if err != nil {
			return err
		}
		want, ok := inGroup[n]
		if !ok {
			want = format.NoGroup
		}
		if g != want {
			return fmt.Errorf("record %d: group_of %d, member of %d", n, g, want)
		}
	}
	return nil
}

// TestListedGroupsMatchOracleOnRealSnapshot: the groups the directory
// counts for a country or genre are the oracle's groups among the
// stations its filter finds (an entry in no group counting as one).
func TestListedGroupsMatchOracleOnRealSnapshot(t *testing.T) {
	ix, o := realIndex(t)
	groupOf := oracleGroupOf(o)
	differ := 0
	for _, d := range []Dim{DimCountry, DimGenre} {
		_, vals, err := ix.Listings(d, ByStations, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			f := Filters{}
			f[d] = []string{v.Key}
			want := oracleGroups(o.search(Query{Filter: f}), groupOf)
			if v.Groups != want {
				t.Errorf("%s %q: %d groups, oracle %d", d.Name(), v.Key, v.Groups, want)
			}
			if v.Groups != v.Stations {
				differ++
			}
		}
	}
	if differ == 0 {
		t.Error("no listed value has fewer groups than entries: the test compares nothing grouped")
	}
}

// oracleGroupOf numbers the oracle's groups: each grouped entry's group.
func oracleGroupOf(o *oracle) map[format.UUID]int {
	groupOf := map[format.UUID]int{}
	for i, g := range o.Groups() {
		for _, id := range g {
			groupOf[id] = i
		}
	}
	return groupOf
}

// oracleGroups counts the groups of ids, by groupOf.
func oracleGroups(ids []format.UUID, groupOf map[format.UUID]int) int {
	alone, groups := 0, map[int]bool{}
	for _, id := range ids {
		if g, ok := groupOf[id]; ok {
			groups[g] = true
		} else {
			alone++
		}
	}
	return alone + len(groups)
}

// TestWordGroupsMatchOracleOnRealSnapshot: every group count the indexer
// stored for a broad word is the oracle's count of the groups among the
// stations that word finds as a search, and the broad words are there.
func TestWordGroupsMatchOracleOnRealSnapshot(t *testing.T) {
	ix, o := realIndex(t)
	groupOf := oracleGroupOf(o)
	stored := map[string]int{}
	err := ix.View(func(tx *bolt.Tx) error {
		return tx.Bucket(format.BucketWordGroups).ForEach(func(k, v []byte) error {
			n, err := format.ParseWordGroups(v)
			stored[string(k)] = n
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, word := range []string{"r", "ra", "radio", "fm", "music"} {
		if _, ok := stored[word]; !ok {
			t.Errorf("no word_groups count for %q", word)
		}
	}
	fewer := 0
	for word, n := range stored {
		ids := o.search(Query{Q: word})
		if len(ids) < format.WordGroupsMin {
			t.Errorf("%q finds %d stations, fewer than a counted word", word, len(ids))
		}
		if want := oracleGroups(ids, groupOf); n != want {
			t.Errorf("%q: %d groups stored, oracle %d", word, n, want)
		}
		if n < len(ids) {
			fewer++
		}
	}
	t.Logf("%d words counted, %d with fewer groups than stations", len(stored), fewer)
}

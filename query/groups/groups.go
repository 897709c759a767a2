// Package groups reads the variants of a station: the other entries of
// its group (one stream or one station listed several times, see package
// format's Groups), from the group_of and groups buckets. Distinct
// searches, which count and show one entry per group, are the search
// itself (package core: distinct.go and the group index).
//
// File map:
//   - groups.go: Variants and a group's members
package groups

import (
	"fmt"

	"stationdex/internal/format"
	"stationdex/query/core"
)

// A record's group is one lookup; its members one more.

// MaxVariants is the most variants Variants returns; the rest are counted.
const MaxVariants = 20

// Variants returns the other entries of the group of station id, the
// group's representative first and the rest by the same rule, at most
// MaxVariants of them, and how many there are in all. A station that
// stands alone has none; core.ErrNotFound when id is absent.
func Variants(ix *core.Index, id format.UUID) (vs []format.Record, total int, err error) {
	err = ix.WithSearch(func(s *core.Search) error {
		n, err := core.RecordOf(s.Bucket(format.BucketIDs), id)
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
		vs, _, err = core.DecodeRecords(s.Records(format.BucketStations), others, nil)
		return err
	})
	return vs, total, err
}

// groupMembers is the members of record n's group, n among them, from
// the group_of and groups buckets; none when it stands alone.
func groupMembers(groupOfBucket, groups core.ValueGetter, n uint32) ([]uint32, error) {
	g, err := core.GroupOf(groupOfBucket, n)
	if err != nil || g == format.NoGroup {
		return nil, err
	}
	v := groups.Get(format.GroupKey(g))
	if v == nil {
		return nil, fmt.Errorf("%w: record %d in group %d, which is not stored", format.ErrCorrupt, n, g)
	}
	return format.GroupMembers(nil, v)
}

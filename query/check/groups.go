package check

import (
	"bytes"
	"cmp"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"

	"stationdex/internal/format"
	"stationdex/query/core"
)

// checkGroups verifies the groups and group_of buckets against each other
// and against the format's rules (see format/groups.go): every group lists
// two or more existing records, its representative first and the rest in
// representative order, and no record twice; group_of has a slot for
// every record and names exactly the group that lists it; the meta counts
// agree. The groups are read first, so that a record listed twice is
// reported as that and not as a group_of that disagrees with one of them.
func (c *checker) checkGroups() error {
	listedIn, err := c.checkGroupLists()
	if err != nil {
		return err
	}
	return c.checkGroupOf(listedIn)
}

// checkGroupLists walks the groups bucket and returns, for every record,
// the group that lists it (format.NoGroup for none): 4 bytes a record, as
// the indexer itself holds while writing the groups.
func (c *checker) checkGroupLists() ([]uint32, error) {
	listedIn := make([]uint32, c.stations)
	for n := range listedIn {
		listedIn[n] = format.NoGroup
	}
	groups, grouped := 0, 0
	var members []uint32
	cur := c.tx.Bucket(format.BucketGroups).Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		g, err := format.ParseRecordKey(k)
		if err != nil {
			return nil, fmt.Errorf("groups key %x: %w", k, err)
		}
		if members, err = format.GroupMembers(members[:0], v); err != nil {
			return nil, fmt.Errorf("group %d: %w", g, err)
		}
		if err := c.checkGroupList(g, members, listedIn); err != nil {
			return nil, err
		}
		groups, grouped = groups+1, grouped+len(members)
	}
	if m := c.rep.Meta; groups != m.Groups || grouped != m.GroupedStations {
		return nil, fmt.Errorf("%w: %d groups of %d entries stored, meta counts %d of %d",
			format.ErrCorrupt, groups, grouped, m.Groups, m.GroupedStations)
	}
	return listedIn, nil
}

// checkGroupList checks group g's members and files them in listedIn.
func (c *checker) checkGroupList(g uint32, members, listedIn []uint32) error {
	if members[0] != g {
		return fmt.Errorf("%w: group %d lists record %d first, not its representative %d", format.ErrCorrupt, g, members[0], g)
	}
	for _, n := range members {
		switch {
		case n >= c.stations:
			return fmt.Errorf("%w: group %d lists record %d, only %d stations", format.ErrCorrupt, g, n, c.stations)
		case listedIn[n] != format.NoGroup:
			return fmt.Errorf("%w: record %d is listed in group %d and in group %d", format.ErrCorrupt, n, listedIn[n], g)
		}
		listedIn[n] = g
	}
	return c.checkGroupOrder(g, members)
}

// checkGroupOrder verifies that members are in representative order,
// each strictly before the next: ids are unique, so the order is total.
func (c *checker) checkGroupOrder(g uint32, members []uint32) error {
	rr := core.NewRecordReader(c.tx)
	var prev, next format.Record
	for i, n := range members {
		v, err := rr.Get(n)
		if err != nil {
			return err
		}
		if err := format.DecodeRecord(v, &next); err != nil {
			return fmt.Errorf("record %d: %w", n, err)
		}
		if i > 0 && representativeOrder(&prev, &next) >= 0 {
			return fmt.Errorf("%w: group %d lists record %d before record %d, against the representative rule",
				format.ErrCorrupt, g, members[i-1], n)
		}
		prev, next = next, prev
	}
	return nil
}

// representativeOrder is the format's representative rule, restated here
// from its documentation rather than taken from the indexer's sort key, so
// that the check does not share the indexer's mistakes: the highest
// bitrate first, then a known codec, then the smallest id.
func representativeOrder(a, b *format.Record) int {
	unknownCodec := func(r *format.Record) bool { return r.Codec == "" }
	return cmp.Or(
		cmp.Compare(b.BitrateKbps, a.BitrateKbps),
		compareBool(unknownCodec(a), unknownCodec(b)),
		bytes.Compare(a.ID[:], b.ID[:]),
	)
}

// compareBool orders false before true.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// checkGroupOf walks the group_of blocks: one slot for every record, no
// more, each naming the group that lists the record (listedIn), or
// format.NoGroup for a record no group lists.
func (c *checker) checkGroupOf(listedIn []uint32) error {
	var n uint32 // the record of the next slot
	cur := c.tx.Bucket(format.BucketGroupOf).Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		b, err := format.ParseRecordKey(k)
		if err != nil {
			return fmt.Errorf("group_of key %x: %w", k, err)
		}
		if want, _ := format.BlockOf(n); b != want || n%format.RecordsPerBlock != 0 {
			return fmt.Errorf("%w: group_of block %d where block %d was due", format.ErrCorrupt, b, want)
		}
		if err := c.checkGroupOfBlock(b, v, n, listedIn); err != nil {
			return err
		}
		n += uint32(len(v) / 4)
	}
	if n != c.stations {
		return fmt.Errorf("%w: group_of has slots for %d records, there are %d", format.ErrCorrupt, n, c.stations)
	}
	return nil
}

// checkGroupOfBlock checks block b of group_of, whose first slot is
// record first's.
func (c *checker) checkGroupOfBlock(b uint32, v []byte, first uint32, listedIn []uint32) error {
	if first >= c.stations {
		return fmt.Errorf("%w: group_of block %d past the last record", format.ErrCorrupt, b)
	}
	slots := min(format.RecordsPerBlock, int(c.stations-first))
	if len(v) != 4*slots {
		return fmt.Errorf("%w: group_of block %d of %d bytes, %d records due", format.ErrCorrupt, b, len(v), slots)
	}
	for slot := range slots {
		n := first + uint32(slot)
		g, err := format.GroupOf(v, slot)
		if err != nil {
			return err
		}
		if g != listedIn[n] {
			return fmt.Errorf("%w: group_of names %s for record %d, which %s",
				format.ErrCorrupt, groupName(g), n, listedBy(listedIn[n]))
		}
	}
	return nil
}

func groupName(g uint32) string {
	if g == format.NoGroup {
		return "no group"
	}
	return fmt.Sprintf("group %d", g)
}

func listedBy(g uint32) string {
	if g == format.NoGroup {
		return "no group lists"
	}
	return fmt.Sprintf("group %d lists", g)
}

// checkGenreLabels: genre_labels holds one label for every key of the
// genres bucket and for nothing else, and each label is a spelling of its
// key (its GenreKey is the key). Both buckets are in key order, so one
// walk of each pairs them.
func (c *checker) checkGenreLabels() error {
	genres := c.tx.Bucket(format.BucketGenres).Cursor()
	labels := c.tx.Bucket(format.BucketGenreLabels).Cursor()
	gk, _ := genres.First()
	lk, label := labels.First()
	for gk != nil || lk != nil {
		switch cmp := compareKeys(gk, lk); {
		case cmp < 0:
			return fmt.Errorf("%w: genre %q has no label", format.ErrCorrupt, gk)
		case cmp > 0:
			return fmt.Errorf("%w: genre label %q of key %q, which is no genre", format.ErrCorrupt, label, lk)
		}
		if key := format.GenreKey(string(label)); key != string(gk) {
			return fmt.Errorf("%w: genre %q has label %q, whose key is %q", format.ErrCorrupt, gk, label, key)
		}
		gk, _ = genres.Next()
		lk, label = labels.Next()
	}
	return nil
}

// compareKeys orders two cursors' keys, nil (the cursor is done) last.
func compareKeys(a, b []byte) int {
	switch {
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return bytes.Compare(a, b)
}

// checkListedGroups: listed_groups holds, for every key of every bucket
// of format.GroupCountedBuckets and for nothing else, the groups among its stations,
// counted again here from group_of (checked before): the indexer counts
// from its own table of groups, so two ways to one answer.
func (c *checker) checkListedGroups() error {
	want, stored := 0, core.NewListedGroups(c.tx)
	for _, bucket := range format.GroupCountedBuckets {
		want += c.keys(bucket)
		if err := c.tx.Bucket(bucket).ForEach(func(k, v []byte) error {
			return c.checkListedGroup(stored, bucket, k, v)
		}); err != nil {
			return err
		}
	}
	if got := c.keys(format.BucketListedGroups); got != want {
		return fmt.Errorf("%w: listed_groups has %d keys, the buckets it counts %d", format.ErrCorrupt, got, want)
	}
	return nil
}

// checkListedGroup checks the group count stored for key k of bucket,
// whose posting list is v (checkBitmaps validated it).
func (c *checker) checkListedGroup(groups *core.ListedGroups, bucket, k, v []byte) error {
	defer c.bm.Clear() // drop references into the mapping
	if _, err := c.bm.FromBuffer(v); err != nil {
		return fmt.Errorf("%w: %s %q: %v", format.ErrCorrupt, bucket, k, err)
	}
	counted, err := core.CountGroups(c.tx, &c.bm)
	if err != nil {
		return err
	}
	stored, err := groups.Of(bucket, k)
	if err != nil {
		return err
	}
	if stored != counted {
		return fmt.Errorf("%w: listed_groups counts %d groups for %s %q, group_of %d", format.ErrCorrupt, stored, bucket, k, counted)
	}
	return nil
}

// checkWordGroups: word_groups holds exactly the words format's
// enumeration yields, each with the groups among its stations counted
// again from group_of.
func (c *checker) checkWordGroups() error {
	tokens, prefixes := c.tx.Bucket(format.BucketAllTokens), c.tx.Bucket(format.BucketAllPrefix)
	stored := c.tx.Bucket(format.BucketWordGroups)
	want := 0
	err := format.EachCountedWord(func() format.Cursor { return tokens.Cursor() }, prefixes.Get,
		func(word []byte, stations *roaring.Bitmap) error {
			want++
			v := stored.Get(word)
			if v == nil {
				return fmt.Errorf("%w: word_groups has no count for %q, which finds %d stations", format.ErrCorrupt, word, stations.GetCardinality())
			}
			n, err := format.ParseWordGroups(v)
			if err != nil {
				return err
			}
			counted, err := core.CountGroups(c.tx, stations)
			if err == nil && counted != n {
				err = fmt.Errorf("%w: word_groups counts %d groups for %q, group_of %d", format.ErrCorrupt, n, word, counted)
			}
			return err
		})
	if err != nil {
		return err
	}
	if got := c.keys(format.BucketWordGroups); got != want {
		return fmt.Errorf("%w: word_groups has %d keys, %d words find enough stations", format.ErrCorrupt, got, want)
	}
	return nil
}

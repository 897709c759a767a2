package core

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"stationdex/internal/format"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"
)

// The group index: what distinct searches read beyond group_of (see
// distinct.go), built once per index.

// groupIndex is what distinct searches read beyond group_of, made once
// per Index from its group_of blocks.
type GroupIndex struct {
	Grouped *roaring.Bitmap // the entries of groups of two or more
	// later: the grouped entries after their group's first (smallest
	// record number): the duplicates of a search that matches every
	// station in one tier
	later *roaring.Bitmap
	// compact is each record's group numbered 1..groups, 0 for an entry
	// that stands alone: one load per entry where group_of takes a block
	// lookup, and a set of met groups of a few hundred words where group
	// ids reach every record number (4 bytes a station: 20 MB at 5M).
	// The groups that are not runs (see byWord) come first, in the order
	// of their first entries, then the runs: counting a broad search
	// looks up only the former, whose bits of a groupSet then lie
	// together.
	compact []uint32
	groups  int
	// isGrouped is grouped as a bit per record, for broad searches (see
	// eachShared)
	isGrouped []uint64
	// A run is a group whose entries are consecutive records under one
	// container key: most groups, whose entries share a name. byWord and
	// runNext, a bit per record, are the entries that stand alone or are
	// in a run, and the entries of runs but each run's first. keyGroups
	// counts the former a word at a time, less duplicates found from
	// runNext, where other grouped entries are looked up one by one.
	byWord, runNext []uint64
}

type lazyGroupIndex struct {
	once sync.Once
	gi   *GroupIndex
	err  error
}

// groupIndexOf builds the group index on first use, from s's reader.
func GroupIndexOf(s *Search) (*GroupIndex, error) {
	l := &s.Index.groups
	l.once.Do(func() { l.gi, l.err = buildGroupIndex(s) })
	return l.gi, l.err
}

// warmGroups builds the group index now (see Warm).
func warmGroups(ix *Index) error {
	return ix.WithSearch(func(s *Search) error { _, err := GroupIndexOf(s); return err })
}

// buildGroupIndex reads every record's group in record order.
func buildGroupIndex(s *Search) (*GroupIndex, error) {
	gi := &GroupIndex{Grouped: roaring.New(), later: roaring.New(), compact: make([]uint32, s.Stations)}
	numbered := make([]uint32, s.Stations) // group_of's id → its compact number
	gr := newGroupReader(s)
	var grouped, later []uint32
	for r := range uint32(s.Stations) {
		g, err := gr.of(r)
		if err != nil {
			return nil, err
		}
		if g == format.NoGroup {
			continue
		}
		if int(g) >= len(numbered) {
			return nil, fmt.Errorf("%w: group %d past the records", format.ErrCorrupt, g)
		}
		grouped = append(grouped, r)
		c := numbered[g]
		if c != 0 {
			later = append(later, r)
		} else {
			gi.groups++
			c = uint32(gi.groups)
			numbered[g] = c
		}
		gi.compact[r] = c
	}
	gi.Grouped.AddMany(grouped)
	gi.isGrouped = make([]uint64, (s.Stations+63)/64)
	gi.Grouped.WriteDenseTo(gi.isGrouped)
	gi.markRuns(grouped)
	gi.later.AddMany(later)
	gi.Grouped.RunOptimize()
	gi.later.RunOptimize()
	return gi, nil
}

// markRuns sets byWord and runNext from the grouped entries, ascending,
// and numbers the groups again, those outside runs first (see compact).
func (gi *GroupIndex) markRuns(grouped []uint32) {
	first := make([]uint32, gi.groups+1)
	last := make([]uint32, gi.groups+1)
	size := make([]uint32, gi.groups+1)
	for _, r := range grouped {
		c := gi.compact[r]
		if size[c] == 0 {
			first[c] = r
		}
		last[c] = r
		size[c]++
	}
	isRun := func(c uint32) bool { return last[c]-first[c]+1 == size[c] && first[c]>>16 == last[c]>>16 }
	renumbered, loose := make([]uint32, gi.groups+1), uint32(0)
	for c := uint32(1); c <= uint32(gi.groups); c++ {
		if !isRun(c) {
			loose++
			renumbered[c] = loose
		}
	}
	runs := loose
	gi.byWord = make([]uint64, len(gi.isGrouped))
	for i, g := range gi.isGrouped {
		gi.byWord[i] = ^g
	}
	gi.runNext = make([]uint64, len(gi.isGrouped))
	for c := uint32(1); c <= uint32(gi.groups); c++ {
		if isRun(c) {
			runs++
			renumbered[c] = runs
		}
	}
	for _, r := range grouped {
		c := gi.compact[r]
		gi.compact[r] = renumbered[c]
		if renumbered[c] <= loose {
			continue
		}
		gi.byWord[r>>6] |= 1 << (r & 63)
		if r != first[c] {
			gi.runNext[r>>6] |= 1 << (r & 63)
		}
	}
}

// everyStation is the number of groups among all of the index's
// stations: each entry but the later ones of its group.
func (gi *GroupIndex) everyStation(stations int) int {
	return stations - int(gi.later.GetCardinality())
}

// groupReader reads records' groups from group_of, one block at a time.
type groupReader struct {
	bucket ValueGetter
	blocks [][]byte // located blocks, or nil: look each up by key
	block  uint32
	data   []byte
	key    []byte
}

func newGroupReader(s *Search) groupReader {
	return groupReader{bucket: s.Bucket(format.BucketGroupOf), blocks: s.blocksOf(format.BucketGroupOf)}
}

// of is record r's group, format.NoGroup when it stands alone.
func (gr *groupReader) of(r uint32) (uint32, error) {
	b, slot := format.BlockOf(r)
	if gr.data == nil || b != gr.block {
		switch {
		case int(b) < len(gr.blocks):
			gr.data = gr.blocks[b]
		case gr.blocks != nil:
			gr.data = nil
		default:
			gr.key = append(gr.key[:0], format.BlockKey(b)...)
			gr.data = gr.bucket.Get(gr.key)
		}
		if gr.data == nil {
			return 0, fmt.Errorf("%w: no group_of block %d", format.ErrCorrupt, b)
		}
		gr.block = b
	}
	if 4*slot+4 > len(gr.data) {
		return 0, fmt.Errorf("%w: group_of block %d has no slot %d", format.ErrCorrupt, b, slot)
	}
	return binary.BigEndian.Uint32(gr.data[4*slot:]), nil
}

// compactOf is record r's compact group number (see compact); a record
// past the records is a damaged posting list.
func (gi *GroupIndex) CompactOf(r uint32) (uint32, error) {
	if int(r) >= len(gi.compact) {
		return 0, fmt.Errorf("%w: record %d past the records in a posting list", format.ErrCorrupt, r)
	}
	return gi.compact[r], nil
}

// Alone reports whether record r stands alone, in no group; a record
// past the records (a damaged posting list) counts as alone, as FirstIn
// has it. One load, inlined: a distinct count by records asks it of every
// record of its set.
func (gi *GroupIndex) Alone(r uint32) bool { return int(r) >= len(gi.compact) || gi.compact[r] == 0 }

// newSeen empties seen, the groups met by a search, for this index's
// groups.
func (gi *GroupIndex) NewSeen(seen *groupSet) *groupSet {
	seen.reset(gi.groups + 1)
	return seen
}

// firstIn reports whether record r is the first of its group met,
// adding the group to seen: true for an entry that stands alone. seen is
// newSeen's, so every compact number has its bit. A record past the
// records (a damaged posting list) counts as alone: reading its record
// reports the damage.
func (gi *GroupIndex) FirstIn(seen *groupSet, r uint32) bool {
	if int(r) >= len(gi.compact) || gi.compact[r] == 0 {
		return true
	}
	return seen.add(gi.compact[r])
}

// groupSet is a set of groups, a bit per compact group number (see
// groupIndex.firstIn), pooled with the workspace and cleared word by word
// after use: adding to a roaring bitmap at scattered ids cost most of a
// distinct search.
type groupSet struct {
	words   []uint64
	touched []uint32 // the words set, to clear
}

// reset empties the set for group numbers below n.
func (g *groupSet) reset(n int) {
	for _, w := range g.touched {
		g.words[w] = 0
	}
	g.touched = g.touched[:0]
	if words := (n + 63) / 64; len(g.words) < words {
		g.words = make([]uint64, words)
	}
}

// add adds group c and reports whether it was not in the set yet.
func (g *groupSet) add(c uint32) bool {
	w, bit := c>>6, uint64(1)<<(c&63)
	x := g.words[w]
	if x&bit != 0 {
		return false
	}
	if x == 0 {
		g.touched = append(g.touched, w)
	}
	g.words[w] = x | bit
	return true
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

// groupOf is the group of record n in the group_of bucket,
// format.NoGroup when it stands alone.
func GroupOf(groupOfBucket ValueGetter, n uint32) (uint32, error) {
	block, slot := format.BlockOf(n)
	v := groupOfBucket.Get(format.BlockKey(block))
	if v == nil {
		return 0, fmt.Errorf("%w: no group_of block %d", format.ErrCorrupt, block)
	}
	return format.GroupOf(v, slot)
}

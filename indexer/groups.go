package indexer

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/fnv"
	"math"
	"time"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/extsort"
	"stationdex/internal/format"
)

// Grouping entries (see the groups section of package format): while
// reading, every entry's two relation keys go to the relations sorter;
// after de-duplication, its merge puts equal keys side by side, and a
// union-find over temporary numbers joins each key's entries. The
// representatives are then found by sorting the kept entries by group and
// rank (the ranks sorter), and the groups are written once record numbers
// are known. What grows with the input is the union-find's table, 4 bytes
// a record, which afterwards holds each record's group.

// Relation kinds: the first byte of a relations-sorter key.
const (
	relStream  = 's' // the stream's AddressKey
	relStation = 'h' // folded name, homepage AddressKey, country code
)

// relationKeys appends an entry's relation keys to dst and returns the
// ends of the two: dst[start:stream] and dst[stream:station], each empty
// when the entry is in no relation of that kind. A key is its kind and a
// 128-bit FNV-1a digest of what it relates by: the relations sorter then
// sorts and merges 17 bytes a key instead of a name, an address and a
// country (about 100 bytes an entry, half a gigabyte at 5M entries). Two
// different keys share a digest with a probability near 10^-25 at that
// size; the oracle groups by the full keys and agrees on the real snapshot.
func relationKeys(dst []byte, rec *format.Record, o format.NameOrder) (out []byte, stream, station int) {
	if k := format.AddressKey(rec.StreamURL); k != "" {
		dst = appendRelation(dst, relStream, k)
	}
	stream = len(dst)
	if k := format.AddressKey(rec.OfficialURL); k != "" {
		dst = appendRelation(dst, relStation, string(o.Folded), k, rec.CountryCode)
	}
	return dst, stream, len(dst)
}

// appendRelation appends a relation key: kind, then the digest of parts,
// each ended by a zero byte (no part holds one: they are folded text and
// parsed addresses).
func appendRelation(dst []byte, kind byte, parts ...string) []byte {
	h := fnv.New128a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum(append(dst, kind))
}

// addRelations files temporary number t under its relation keys.
func (b *builder) addRelations(t uint32, keys ...[]byte) error {
	b.val = binary.BigEndian.AppendUint32(b.val[:0], t)
	for _, k := range keys {
		if len(k) > 0 {
			if err := b.rels.Add(k, b.val); err != nil {
				return err
			}
		}
	}
	return nil
}

// rank is what orders an entry in its group, best first: the group, then
// the highest bitrate, a known codec, the smallest id.
func appendRank(dst []byte, root uint32, r rankInfo) []byte {
	dst = binary.BigEndian.AppendUint32(dst, root)
	dst = binary.BigEndian.AppendUint32(dst, math.MaxUint32-r.bitrate)
	if r.codec {
		dst = append(dst, 0)
	} else {
		dst = append(dst, 1)
	}
	return append(dst, r.id[:]...)
}

// timeLen is the length of appendTime's encoding.
const timeLen = 12

// appendTime encodes t for the ids sorter: Unix seconds and nanoseconds.
func appendTime(dst []byte, t time.Time) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(t.Unix()))
	return binary.BigEndian.AppendUint32(dst, uint32(t.Nanosecond()))
}

func decodeTime(b []byte) time.Time {
	if len(b) < timeLen {
		return time.Time{}
	}
	return time.Unix(int64(binary.BigEndian.Uint64(b)), int64(binary.BigEndian.Uint32(b[8:]))).UTC()
}

// rankInfo is what the representative rule reads of an entry; the ids
// sorter carries it (after the time) to the grouping.
type rankInfo struct {
	id      format.UUID
	bitrate uint32
	codec   bool
}

func appendRankInfo(dst []byte, rec *format.Record) []byte {
	dst = binary.BigEndian.AppendUint32(dst, rec.BitrateKbps)
	if rec.Codec != "" {
		return append(dst, 1)
	}
	return append(dst, 0)
}

func decodeRankInfo(id []byte, v []byte) rankInfo {
	var r rankInfo
	copy(r.id[:], id)
	if len(v) >= 5 {
		r.bitrate, r.codec = binary.BigEndian.Uint32(v), v[4] == 1
	}
	return r
}

// find is the root of t's class, halving the path on the way.
func (b *builder) find(t uint32) uint32 {
	p := b.parent
	for p[t] != t {
		p[t] = p[p[t]]
		t = p[t]
	}
	return t
}

// union joins the classes of a and b under the smaller root, so that a
// class's root is its first entry in input order.
func (b *builder) union(x, y uint32) {
	rx, ry := b.find(x), b.find(y)
	if rx > ry {
		rx, ry = ry, rx
	}
	b.parent[ry] = rx
}

// joinRelations joins, for every relation key, the kept entries filed
// under it, then settles the classes for ranking (newClassRanks). It runs
// after dedup, which marks the dropped entries (duplicates), on a goroutine of
// its own (joinAhead).
func (b *builder) joinRelations() error {
	b.parent = make([]uint32, b.temps)
	for t := range b.parent {
		b.parent[t] = uint32(t)
	}
	if err := b.relsCompacted(); err != nil {
		return err
	}
	it, err := b.rels.Iter()
	if err != nil {
		return err
	}
	var key []byte
	first := uint32(dropped) // the first kept entry of key
	for it.Next() {
		t := binary.BigEndian.Uint32(it.Value())
		if b.duplicates[t/64]&(1<<(t%64)) != 0 {
			continue
		}
		if first == dropped || !bytes.Equal(it.Key(), key) {
			key, first = append(key[:0], it.Key()...), t
			continue
		}
		b.union(first, t)
	}
	it.Close()
	if err := it.Err(); err != nil {
		return err
	}
	b.rels.Close()
	b.ranks = newClassRanks(b.parent, extsort.New(b.tmp, b.share(groupsShare)))
	return nil
}

// classRanks files every kept entry of a class of more than one in the
// ranks sorter: key its class and rank, value its temporary number. An
// entry alone in its class (most of them) is in no group, so it is not
// sorted at all. The entries come from the ids bucket's pass over the ids
// sorter (idsSource), which reads every kept entry's rank information in
// the order the ranking needs anyway: a pass of its own merged the whole
// ids sorter again, on one core.
type classRanks struct {
	sorter   *extsort.Sorter
	root     []uint32 // each entry's class, settled: read, never changed
	shared   []uint64 // a bit per temporary number: a root of more than one
	key, val []byte   // scratch
}

// newClassRanks settles the union-find parent, pointing every entry
// straight at its root, and marks the roots of classes of more than one.
// Entries are settled in order, each after its parent: union puts the
// larger root under the smaller and path halving only moves an entry up,
// so an entry's parent is never after it. Settled, the table can be read
// on the ids bucket's goroutine without find changing it there.
func newClassRanks(parent []uint32, sorter *extsort.Sorter) *classRanks {
	shared := make([]uint64, (len(parent)+63)/64)
	for t, up := range parent {
		root := parent[up]
		parent[t] = root
		if root != uint32(t) { // only kept entries are joined
			shared[root/64] |= 1 << (root % 64)
		}
	}
	return &classRanks{sorter: sorter, root: parent, shared: shared}
}

// add files kept entry t of the ids sorter, with its id and the rank
// information the sorter carries after its time, if its class is shared.
func (r *classRanks) add(t uint32, id, info []byte) error {
	root := r.root[t]
	if r.shared[root/64]&(1<<(root%64)) == 0 {
		return nil
	}
	r.key = appendRank(r.key[:0], root, decodeRankInfo(id, info))
	r.val = binary.BigEndian.AppendUint32(r.val[:0], t)
	return r.sorter.Add(r.key, r.val)
}

func (r *classRanks) close() { r.sorter.Close() }

// writeGroups writes the groups and group_of buckets; record numbers are
// known (writeRecords). The union-find's table, no longer needed, holds
// each record's group meanwhile.
func (b *builder) writeGroups(ctx context.Context, f *indexFile) error {
	groupOf := b.parent[:b.kept]
	for n := range groupOf {
		groupOf[n] = format.NoGroup
	}
	out := extsort.New(b.tmp, b.share(groupsShare))
	defer out.Close()
	err := b.collectGroups(out, groupOf)
	b.ranks.close()
	if err != nil {
		return err
	}
	it, err := out.Iter()
	if err != nil {
		return err
	}
	defer it.Close()
	err = f.putSorted(ctx, format.BucketGroups, func(*bolt.Tx) ([]byte, []byte, error) {
		if !it.Next() {
			return nil, nil, it.Err()
		}
		return bytes.Clone(it.Key()), bytes.Clone(it.Value()), nil
	})
	if err != nil {
		return err
	}
	return f.putSorted(ctx, format.BucketGroupOf, groupOfSource(groupOf))
}

// collectGroups reads the ranks sorter, one class after another with its
// best entry first, and files each class of more than one entry in out
// (group key -> members), marking the members' group in groupOf.
func (b *builder) collectGroups(out *extsort.Sorter, groupOf []uint32) error {
	it, err := b.ranks.sorter.Iter()
	if err != nil {
		return err
	}
	defer it.Close()
	var members []uint32
	var root []byte
	flush := func() error {
		defer func() { members = members[:0] }()
		if len(members) < 2 {
			return nil
		}
		b.groupCount++
		b.groupedEntries += len(members)
		b.val = b.val[:0]
		for _, n := range members {
			groupOf[n] = members[0]
			b.val = binary.BigEndian.AppendUint32(b.val, n)
		}
		return out.Add(format.GroupKey(members[0]), b.val)
	}
	for it.Next() {
		if k := it.Key(); len(members) == 0 || !bytes.Equal(k[:4], root) {
			if err := flush(); err != nil {
				return err
			}
			root = append(root[:0], k[:4]...)
		}
		members = append(members, b.final[binary.BigEndian.Uint32(it.Value())])
	}
	if err := it.Err(); err != nil {
		return err
	}
	return flush()
}

// groupOfSource yields the group_of bucket: groupOf in blocks of
// format.RecordsPerBlock.
func groupOfSource(groupOf []uint32) kvSource {
	block := uint32(0)
	return func(*bolt.Tx) ([]byte, []byte, error) {
		start := int(block) * format.RecordsPerBlock
		if start >= len(groupOf) {
			return nil, nil, nil
		}
		var v []byte
		for _, g := range groupOf[start:min(start+format.RecordsPerBlock, len(groupOf))] {
			v = format.AppendGroupOf(v, g)
		}
		k := format.BlockKey(block)
		block++
		return k, v, nil
	}
}

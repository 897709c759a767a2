package core

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"sync/atomic"

	"stationdex/internal/format"
	"stationdex/query/pagetree"
)

// tokenTable is a token bucket's keys held in memory, in order, with
// where each one's posting list is in the file: the other half of a
// word's look-up (after the prefix bucket, see wordLists), which a cursor
// makes as a page-tree descent and a binary search of a leaf, the leaf's
// keys spread among their posting lists, so each step of it touches
// another cache line. Here the binary search runs over the keys' first
// eight bytes as integers, a few hundred kilobytes for the real snapshot,
// and reads a key's text only where those tie.
//
// The table holds offsets, not slices of the mapping, so that the garbage
// collector has nothing to scan in it; the values are sliced out of the
// mapping (pagetree.Tree.At) as a search needs them. It costs 24 bytes a
// token and the token's text: tens of megabytes for a directory of a
// million distinct words.
type tokenTable struct {
	heads  []uint64 // each key's first 8 bytes, big-endian, zero-padded
	text   []byte   // the keys, one after another
	ends   []uint32 // where key i ends in text
	values []uint64 // where key i's value starts in the file
	sizes  []uint32 // its length
}

// tokenTables are the two namespaces' tables, built by Warm after the key
// filters; until then words are looked up with a cursor.
type tokenTables struct {
	ready atomic.Pointer[[2]*tokenTable] // nameSpace, allSpace
}

// keyHead is k's first eight bytes as a big-endian integer, zero-padded:
// heads compare as their keys do, except that equal heads say nothing.
func keyHead(k []byte) uint64 {
	var b [8]byte
	copy(b[:], k)
	return binary.BigEndian.Uint64(b[:])
}

// buildTokenTables reads the token buckets, under ix.read.
func (ix *Index) buildTokenTables() error {
	if ix.tokens.ready.Load() != nil {
		return nil
	}
	var tables [2]*tokenTable
	for i, ns := range [2]Namespace{NameSpace, AllSpace} {
		t, err := ix.readTokenTable(ns.Tokens)
		if err != nil {
			return err
		}
		tables[i] = t
	}
	ix.tokens.ready.Store(&tables)
	return nil
}

// readTokenTable reads bucket's keys and where their values are.
func (ix *Index) readTokenTable(bucket []byte) (*tokenTable, error) {
	c, err := TreeCursor(ix, bucket)
	if err != nil {
		return nil, err
	}
	t := &tokenTable{}
	for k, v := c.Seek(nil); k != nil; k, v = c.Next() {
		off, ok := ix.Tree.Offset(v)
		if !ok && len(v) > 0 {
			return nil, fmt.Errorf("%w: %s key %q: value outside the file", format.ErrCorrupt, bucket, k)
		}
		if int64(len(t.text))+int64(len(k)) > math.MaxUint32 {
			return nil, fmt.Errorf("%s: over 4 GiB of keys", bucket)
		}
		t.heads = append(t.heads, keyHead(k))
		t.text = append(t.text, k...)
		t.ends = append(t.ends, uint32(len(t.text)))
		t.values = append(t.values, off)
		t.sizes = append(t.sizes, uint32(len(v)))
	}
	return t, nil
}

// key is key i.
func (t *tokenTable) key(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.text[start:t.ends[i]]
}

// first is the first key at or after w (len when none is).
func (t *tokenTable) first(w []byte) int {
	head := keyHead(w)
	lo, hi := 0, len(t.heads)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		h := t.heads[m]
		if h < head || h == head && bytes.Compare(t.key(m), w) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// tokenTable is ns's table, or nil before Warm built it.
func (ix *Index) tokenTable(ns Namespace) *tokenTable {
	tables := ix.tokens.ready.Load()
	switch {
	case tables == nil:
		return nil
	case &ns.Tokens[0] == &NameSpace.Tokens[0]:
		return tables[0]
	}
	return tables[1]
}

// appendTokens appends the values of the keys starting with key to lists,
// failing past format.PrefixFanout of them as wordLists does.
func (t *tokenTable) appendTokens(lists [][]byte, tree *pagetree.Tree, key []byte) ([][]byte, bool) {
	for i := t.first(key); i < len(t.heads) && bytes.HasPrefix(t.key(i), key); i++ {
		if len(lists) == format.PrefixFanout {
			return lists, false
		}
		lists = append(lists, tree.At(t.values[i], int(t.sizes[i])))
	}
	return lists, true
}

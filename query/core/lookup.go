package core

import (
	"bytes"
	"unsafe"

	"stationdex/query/pagetree"
)

// openBucket is a bucket a search has opened, read through the index's
// page tree (pagetree.Tree), with one cursor it reuses.
type openBucket struct {
	name   *byte // the format.Bucket* variable's bytes: buckets are named by those
	OK     bool  // the bucket exists
	Cur    pagetree.Cursor
	filter *keyFilter // of the bucket's keys, when Warm built one (see keyFilter)
}

// maxOpenBuckets is more than the buckets one search reads: words (two
// namespaces, tokens and prefixes), names, filters, records.
const maxOpenBuckets = 12

// bucket opens name once per search: the root is looked up in the tree's
// table of buckets, and the cursor's stack lives in the search.
func (s *Search) Bucket(name []byte) *openBucket {
	p := unsafe.SliceData(name)
	for i := range s.open[:s.nopen] {
		if s.open[i].name == p {
			return &s.open[i]
		}
	}
	i := s.nopen
	if i == len(s.open) {
		i-- // full: reuse the last slot (only costs lookups, never happens with our buckets)
	} else {
		s.nopen++
	}
	root, ok := s.Index.tree.Root(string(name))
	s.open[i] = openBucket{name: p, OK: ok, Cur: s.Index.tree.Cursor(root), filter: s.Index.filterOf(name)}
	return &s.open[i]
}

// cursor is the bucket's reusable cursor.
func (ob *openBucket) cursor() *pagetree.Cursor { return &ob.Cur }

// Get is the value stored under key, or nil. A key the bucket's filter
// rules out is not looked for.
func (ob *openBucket) Get(key []byte) []byte {
	if !ob.OK || ob.filter != nil && !ob.filter.mayHave(key) {
		return nil
	}
	k, v := ob.Cur.Seek(key)
	if k == nil || !bytes.Equal(k, key) {
		return nil
	}
	return v
}

// Seek is the first pair at or after key, or nils: a cursor's Seek, for
// readers that also take a bbolt cursor.
func (ob *openBucket) Seek(key []byte) (k, v []byte) {
	if !ob.OK {
		return nil, nil
	}
	return ob.Cur.Seek(key)
}

// lookup is the value stored under key in the bucket name, or nil.
func (s *Search) lookup(name, key []byte) []byte {
	return s.Bucket(name).Get(key)
}

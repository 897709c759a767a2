package query

import (
	"bytes"
	"unsafe"

	bolt "go.etcd.io/bbolt"
)

// openBucket is a bucket a search has opened, with one cursor it reuses.
type openBucket struct {
	name *byte // the format.Bucket* variable's bytes: buckets are named by those
	b    *bolt.Bucket
	c    *bolt.Cursor
}

// maxOpenBuckets is more than the buckets one search reads: words (two
// namespaces, tokens and prefixes), names, filters, records.
const maxOpenBuckets = 12

// bucket opens name once per search. tx.Bucket allocates a Bucket on every
// call, and a search used to open the same few buckets dozens of times.
func (s *search) bucket(name []byte) *openBucket {
	p := unsafe.SliceData(name)
	for i := range s.open[:s.nopen] {
		if s.open[i].name == p {
			return &s.open[i]
		}
	}
	ob := openBucket{name: p, b: s.tx.Bucket(name)}
	if ob.b == nil || s.nopen == len(s.open) {
		return &ob // Open checked every bucket; a full cache only costs allocations
	}
	s.open[s.nopen] = ob
	s.nopen++
	return &s.open[s.nopen-1]
}

// cursor is the bucket's reusable cursor: Seek starts from an empty stack
// and keeps its capacity, where Bucket.Get makes a new cursor whose stack
// grows from nothing on every lookup.
func (ob *openBucket) cursor() *bolt.Cursor {
	if ob.c == nil {
		ob.c = ob.b.Cursor()
	}
	return ob.c
}

// lookup is Bucket.Get through the reused cursor: the value stored under
// key, or nil (also for a nested bucket, as Get).
func (s *search) lookup(name, key []byte) []byte {
	ob := s.bucket(name)
	if ob.b == nil {
		return nil
	}
	k, v := ob.cursor().Seek(key)
	if k == nil || !bytes.Equal(k, key) {
		return nil
	}
	return v
}

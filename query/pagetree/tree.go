package pagetree

import (
	"bytes"
	"fmt"
	"syscall"
	"unsafe"

	"stationdex/internal/format"
)

// Tree reads the index's buckets from a mapping of the file, in the
// layout Verify checked (see verify.go). A search reads its posting
// lists and records through it rather than through bbolt's Bucket and
// Cursor, which allocate a bucket, a cursor and its stack on every open and
// Get: a dozen lookups per search made those most of a search's
// allocations. It reads with Go's bounds-checked slicing only, so a file
// changed underneath after verification panics (the caller recovers it,
// as query's Index does) instead of reading outside the mapping. Keys and
// values returned point into the mapping: valid until Unmap.
type Tree struct {
	data     []byte // the whole file, mapped read-only
	pageSize int
	roots    map[string]Root // the top-level buckets
	large    map[string][]Span
	keys     map[string]int
}

// Root is where a bucket's pairs are: a root page, or a page stored
// inline in the bucket's value. The zero Root is no bucket.
type Root struct {
	pgid   uint64
	inline []byte
}

// bbolt's page layout (see verify.go).
const (
	pageFlagBranch = 0x01
	pageFlagLeaf   = 0x02
	treeElemSize   = 16
	maxTreeDepth   = 16 // bbolt trees of a few GB are 4 or 5 deep
)

// Map maps the verified file for the search path.
func Map(fd uintptr, size int64, layout Layout) (*Tree, error) {
	data, err := syscall.Mmap(int(fd), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map index: %w", err)
	}
	t := &Tree{data: data, pageSize: int(layout.pageSize), roots: make(map[string]Root, len(layout.buckets)),
		large: layout.large, keys: layout.keys}
	for _, b := range layout.buckets {
		if len(b.value) < boltBucketHeader {
			_ = t.Unmap()
			return nil, fmt.Errorf("%w: bucket %q header", format.ErrCorrupt, b.name)
		}
		r := Root{pgid: boltOrder.Uint64(b.value)}
		if r.pgid == 0 {
			r.inline = b.value[boltBucketHeader:]
		}
		t.roots[string(b.name)] = r
	}
	return t, nil
}

// Root is where the top-level bucket name is; ok is false when the file
// has no such bucket.
func (t *Tree) Root(name string) (r Root, ok bool) {
	r, ok = t.roots[name]
	return r, ok
}

// Cursor is a cursor over the bucket at r, before its first pair.
func (t *Tree) Cursor(r Root) Cursor { return Cursor{t: t, root: r} }

// Offset is where v, a key or value read through t, starts in the file:
// a name for it that does not depend on where the file is mapped. ok is
// false for bytes outside the mapping (an inline bucket's pairs are
// inside it too: they are read from their parent's page).
func (t *Tree) Offset(v []byte) (off uint64, ok bool) {
	if len(v) == 0 || len(t.data) == 0 {
		return 0, false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(t.data)))
	at := uintptr(unsafe.Pointer(unsafe.SliceData(v)))
	if at < start || at-start >= uintptr(len(t.data)) {
		return 0, false
	}
	return uint64(at - start), true
}

// At is the n bytes at offset off of the file (Offset's inverse): a value
// read through t, kept as its offset.
func (t *Tree) At(off uint64, n int) []byte {
	return t.data[off : off+uint64(n) : off+uint64(n)]
}

// Large returns the values of bucket of fileSummed bytes or more (32 KiB)
// as the verification found them, in key order (At reads one), and
// whether they are all of the bucket's values. The walk read their keys
// already: a reader that wants such values by key, such as the record
// blocks by number, need not touch the leaf pages that hold the keys, a
// page fault each the first time.
func (t *Tree) Large(bucket string) (spans []Span, all bool) {
	spans = t.large[bucket]
	return spans, len(spans) > 0 && len(spans) == t.keys[bucket]
}

// Unmap releases the mapping. No key or value read through t may be used
// after it.
func (t *Tree) Unmap() error {
	if t == nil || t.data == nil {
		return nil
	}
	err := syscall.Munmap(t.data)
	t.data = nil
	return err
}

// page is the page with the id, overflow pages included.
func (t *Tree) page(r Root, id uint64) []byte {
	if id == 0 && r.inline != nil {
		return r.inline
	}
	at := int(id) * t.pageSize
	p := t.data[at : at+boltPageHeader]
	n := 1 + int(boltOrder.Uint32(p[12:]))
	return t.data[at : at+n*t.pageSize]
}

func pageCount(p []byte) int { return int(boltOrder.Uint16(p[10:])) }

func pageIsLeaf(p []byte) bool { return boltOrder.Uint16(p[8:])&pageFlagLeaf != 0 }

// elemKey is the key of element i of a branch or leaf page.
func elemKey(p []byte, i int) []byte {
	e := boltPageHeader + i*treeElemSize
	if pageIsLeaf(p) { // flags u32, pos u32, ksize u32, vsize u32
		pos := e + int(boltOrder.Uint32(p[e+4:]))
		return p[pos : pos+int(boltOrder.Uint32(p[e+8:]))]
	}
	// pos u32, ksize u32, pgid u64
	pos := e + int(boltOrder.Uint32(p[e:]))
	return p[pos : pos+int(boltOrder.Uint32(p[e+4:]))]
}

// leafValue is the value of element i of a leaf page.
func leafValue(p []byte, i int) []byte {
	e := boltPageHeader + i*treeElemSize
	pos := e + int(boltOrder.Uint32(p[e+4:]))
	ksize := int(boltOrder.Uint32(p[e+8:]))
	vsize := int(boltOrder.Uint32(p[e+12:]))
	return p[pos+ksize : pos+ksize+vsize]
}

// branchChild is the page id of element i of a branch page.
func branchChild(p []byte, i int) uint64 {
	return boltOrder.Uint64(p[boltPageHeader+i*treeElemSize+8:])
}

// Cursor walks one bucket's leaves in key order. It keeps its stack in
// place: seeking and stepping allocate nothing. A Cursor is used by one
// goroutine at a time.
type Cursor struct {
	t     *Tree
	root  Root
	stack [maxTreeDepth]cursorFrame
	depth int
}

type cursorFrame struct {
	page  []byte
	index int
}

// Seek moves to the first pair whose key is at or after key and returns
// it, or nil when there is none.
func (c *Cursor) Seek(key []byte) (k, v []byte) {
	c.depth = 0
	id := c.root.pgid
	for {
		p := c.t.page(c.root, id)
		n := pageCount(p)
		// the first element at or after key
		i := searchElems(p, n, key)
		if pageIsLeaf(p) {
			c.push(p, i)
			return c.current()
		}
		// a branch's element i covers keys from its own on: descend into
		// the last one starting at or before key
		if i == n || !bytes.Equal(elemKey(p, i), key) {
			i = max(i-1, 0)
		}
		c.push(p, i)
		id = branchChild(p, i)
	}
}

// Next moves to the next pair and returns it, or nil after the last.
func (c *Cursor) Next() (k, v []byte) {
	if c.depth == 0 {
		return nil, nil
	}
	c.stack[c.depth-1].index++
	return c.current()
}

// current settles the cursor on a leaf element, climbing past exhausted
// pages and descending to the next leaf, and returns its pair.
func (c *Cursor) current() (k, v []byte) {
	for {
		top := &c.stack[c.depth-1]
		if top.index < pageCount(top.page) {
			if pageIsLeaf(top.page) {
				return elemKey(top.page, top.index), leafValue(top.page, top.index)
			}
			c.push(c.t.page(c.root, branchChild(top.page, top.index)), 0)
			continue
		}
		// this page is done: the next element of its parent
		c.depth--
		if c.depth == 0 {
			return nil, nil
		}
		c.stack[c.depth-1].index++
	}
}

func (c *Cursor) push(p []byte, i int) {
	c.stack[c.depth] = cursorFrame{page: p, index: i}
	c.depth++
}

// searchElems is the first element of the page whose key is at or after
// key (n when none is).
func searchElems(p []byte, n int, key []byte) int {
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(elemKey(p, m), key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

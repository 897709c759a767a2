package core

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"testing"

	"stationdex/internal/format"
)

// TestCheckRefusesDamagedPages pins what FuzzOpen found: bbolt follows
// damaged page ids and element offsets without bounds checks, and the keys
// and values it then hands out can point into the Go heap, which crashes
// the process at the next garbage collection. Check must refuse each such
// file, with ErrCorrupt, before bbolt reads it.
func TestCheckRefusesDamagedPages(t *testing.T) {
	small(t)
	sound, err := os.ReadFile(smallPath)
	if err != nil {
		t.Fatal(err)
	}
	l := rootLeaf(t, sound)
	for _, tc := range []struct {
		name   string
		damage func(d []byte)
	}{
		{"element data far past its page", func(d []byte) { put32(d, l.elem(0)+4, 0xFFFFFF00) }},
		{"element key longer than its page", func(d []byte) { put32(d, l.elem(1)+8, 1<<30) }},
		{"bucket root past the last page", func(d []byte) { put64(d, l.value(d, 0), 1<<40) }},
		{"bucket root on a meta page", func(d []byte) { put64(d, l.value(d, 0), 1) }},
		{"two buckets share a root page", func(d []byte) { copy(d[l.value(d, 1):l.value(d, 1)+8], d[l.value(d, 0):]) }},
		{"bucket root is its own parent", func(d []byte) { put64(d, l.value(d, 0), l.id) }},
		{"page claims another id", func(d []byte) { put64(d, l.off, l.id+1) }},
		{"page is a freelist in the tree", func(d []byte) { put16(d, l.off+8, 0x10) }},
		{"page overflows past the file", func(d []byte) { put32(d, l.off+12, 1<<31) }},
		{"more elements than the page holds", func(d []byte) { put16(d, l.off+10, 0xFFFF) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := bytes.Clone(sound)
			tc.damage(d)
			_, err := Check(writeFile(t, d))
			if !errors.Is(err, format.ErrCorrupt) {
				t.Fatalf("Check: %v, want ErrCorrupt", err)
			}
		})
	}
}

// rootLeafPage is the first leaf page of the root bucket, which lists
// top-level buckets.
type rootLeafPage struct {
	id, off uint64
}

// bbolt's page layout, as much of it as damaging a page needs (package
// pagetree reads all of it): a page header, elements, the branch flag,
// and in meta page 0 the page size and the root bucket's page.
const (
	boltPageHeader = 16
	boltElement    = 16
	boltBranchPage = 0x01
	metaPageSize   = boltPageHeader + 8
	metaRoot       = boltPageHeader + 16
)

var boltOrder = binary.NativeEndian

func rootLeaf(t *testing.T, file []byte) rootLeafPage {
	t.Helper()
	pageSize := uint64(boltOrder.Uint32(file[metaPageSize:]))
	id := boltOrder.Uint64(file[metaRoot:])
	for boltOrder.Uint16(file[id*pageSize+8:]) == boltBranchPage {
		id = boltOrder.Uint64(file[id*pageSize+boltPageHeader+8:]) // down the first child
	}
	l := rootLeafPage{id: id, off: id * pageSize}
	if boltOrder.Uint16(file[l.off+10:]) < 2 {
		t.Fatal("the first leaf of the root bucket has fewer than two buckets")
	}
	return l
}

// elem is the offset of element i of the page.
func (l rootLeafPage) elem(i uint64) uint64 { return l.off + boltPageHeader + i*boltElement }

// value is the offset of the value (a bucket header) of element i.
func (l rootLeafPage) value(d []byte, i uint64) uint64 {
	e := l.elem(i)
	pos, ksize := uint64(boltOrder.Uint32(d[e+4:])), uint64(boltOrder.Uint32(d[e+8:]))
	return e + pos + ksize
}

func put16(d []byte, off uint64, v uint16) { boltOrder.PutUint16(d[off:], v) }
func put32(d []byte, off uint64, v uint32) { boltOrder.PutUint32(d[off:], v) }
func put64(d []byte, off uint64, v uint64) { boltOrder.PutUint64(d[off:], v) }

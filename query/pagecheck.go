package query

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"

	"stationdex/indexer/format"
)

// verifyPages walks the bbolt page tree of an index file with its own
// bounds-checked reads, before bbolt is let near it. bbolt trusts its
// file: it turns page ids and element offsets into pointers without bounds
// checks, so a damaged file can make it hand out keys and values that point
// anywhere in the address space, the Go heap included, where the garbage
// collector finds them and kills the process ("found bad pointer in Go
// heap"), which no recover can catch. Check runs this first, so what it
// opens has every page id inside the file, every page reached once, and
// every element inside its page.
//
// The layout is bbolt's (go.etcd.io/bbolt/internal/common, version 2), in
// the machine's byte order as bbolt writes it:
//
//	page header  id u64, flags u16, count u16, overflow u32
//	meta         magic u32, version u32, pageSize u32, flags u32,
//	             root {pgid u64, sequence u64}, freelist u64, pgid u64,
//	             txid u64, checksum u64 (FNV-64a of the fields before it)
//	branch elem  pos u32, ksize u32, pgid u64  (pos from the element)
//	leaf elem    flags u32, pos u32, ksize u32, vsize u32
//	bucket value root pgid u64, sequence u64, then, if root is 0, an
//	             inline leaf page
func verifyPages(path string) (err error) {
	defer func() {
		if p := recover(); p != nil { // a bug here must not take the server down either
			err = fmt.Errorf("%w: verifying pages: %v", format.ErrCorrupt, p)
		}
	}()
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	w := &pageWalker{r: f, size: uint64(fi.Size())}
	root, err := w.readMetas()
	if err != nil {
		return err
	}
	return w.walkPage(root)
}

const (
	boltPageHeader   = 16
	boltElement      = 16
	boltBucketHeader = 16
	boltMetaSize     = 64
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	boltBranchPage   = 0x01
	boltLeafPage     = 0x02
	boltBucketLeaf   = 0x01
	// Page sizes bbolt could have written (it uses the OS page size).
	minBoltPageSize = 512
	maxBoltPageSize = 1 << 16
)

var boltOrder = binary.NativeEndian

type pageWalker struct {
	r         io.ReaderAt
	size      uint64 // of the file
	pageSize  uint64
	highWater uint64 // meta's pgid: the pages of the tree are below it
	seen      []bool // pages reached so far, overflow pages included
	buf       []byte
}

// read returns n bytes at off, which must lie inside the file.
func (w *pageWalker) read(off, n uint64) ([]byte, error) {
	if off > w.size || n > w.size-off {
		return nil, fmt.Errorf("%w: %d bytes at offset %d are past the end of the file (%d bytes)", format.ErrCorrupt, n, off, w.size)
	}
	if uint64(cap(w.buf)) < n {
		w.buf = make([]byte, n)
	}
	b := w.buf[:n]
	if _, err := w.r.ReadAt(b, int64(off)); err != nil {
		return nil, fmt.Errorf("%w: reading %d bytes at %d: %v", format.ErrCorrupt, n, off, err)
	}
	return b, nil
}

// boltMeta is the part of a meta page the walk needs.
type boltMeta struct {
	pageSize, root, pgid, txid uint64
}

// readMetas picks the meta page bbolt will use: of the two, the valid one
// with the higher transaction id. The second one is found with the page
// size of the first, or the OS page size when the first is damaged, as
// bbolt does.
func (w *pageWalker) readMetas() (root uint64, err error) {
	m0, err0 := w.meta(0)
	at := uint64(os.Getpagesize())
	if err0 == nil {
		at = m0.pageSize
	}
	m1, err1 := w.meta(at)
	switch {
	case err0 != nil && err1 != nil:
		return 0, fmt.Errorf("%w: no valid bbolt meta page (%v)", format.ErrNotIndex, err0)
	case err0 != nil || err1 == nil && m1.txid > m0.txid:
		m0 = m1
	}
	if m0.pageSize < minBoltPageSize || m0.pageSize > maxBoltPageSize {
		return 0, fmt.Errorf("%w: page size %d", format.ErrCorrupt, m0.pageSize)
	}
	if m0.pgid > w.size/m0.pageSize {
		return 0, fmt.Errorf("%w: file truncated: %d bytes, the index needs %d", format.ErrCorrupt, w.size, m0.pgid*m0.pageSize)
	}
	w.pageSize, w.highWater = m0.pageSize, m0.pgid
	w.seen = make([]bool, m0.pgid)
	return m0.root, nil
}

func (w *pageWalker) meta(off uint64) (boltMeta, error) {
	b, err := w.read(off+boltPageHeader, boltMetaSize)
	if err != nil {
		return boltMeta{}, err
	}
	sum := fnv.New64a()
	sum.Write(b[:56])
	switch {
	case boltOrder.Uint32(b[0:]) != boltMagic:
		return boltMeta{}, fmt.Errorf("no bbolt magic at %d", off)
	case boltOrder.Uint32(b[4:]) != boltVersion:
		return boltMeta{}, fmt.Errorf("bbolt version %d", boltOrder.Uint32(b[4:]))
	case boltOrder.Uint64(b[56:]) != sum.Sum64():
		return boltMeta{}, fmt.Errorf("meta checksum mismatch at %d", off)
	}
	return boltMeta{pageSize: uint64(boltOrder.Uint32(b[8:])), root: boltOrder.Uint64(b[16:]),
		pgid: boltOrder.Uint64(b[40:]), txid: boltOrder.Uint64(b[48:])}, nil
}

// walkPage checks page id and every page below it.
func (w *pageWalker) walkPage(id uint64) error {
	if id < 2 || id >= w.highWater {
		return fmt.Errorf("%w: page id %d outside 2..%d", format.ErrCorrupt, id, w.highWater-1)
	}
	h, err := w.read(id*w.pageSize, boltPageHeader)
	if err != nil {
		return err
	}
	self, flags, count, overflow := boltOrder.Uint64(h[0:]), boltOrder.Uint16(h[8:]), boltOrder.Uint16(h[10:]), uint64(boltOrder.Uint32(h[12:]))
	if self != id {
		return fmt.Errorf("%w: page %d says it is page %d", format.ErrCorrupt, id, self)
	}
	if overflow >= w.highWater-id {
		return fmt.Errorf("%w: page %d overflows past the last page", format.ErrCorrupt, id)
	}
	for p := id; p <= id+overflow; p++ {
		if w.seen[p] {
			return fmt.Errorf("%w: page %d is reached twice", format.ErrCorrupt, p)
		}
		w.seen[p] = true
	}
	span := (overflow + 1) * w.pageSize
	switch flags {
	case boltBranchPage:
		return w.walkBranch(id, id*w.pageSize, span, count)
	case boltLeafPage:
		return w.walkLeaf(id*w.pageSize, span, count)
	}
	return fmt.Errorf("%w: page %d has flags %#x in the tree", format.ErrCorrupt, id, flags)
}

// elements reads the element table of a page of span bytes at off.
func (w *pageWalker) elements(off, span uint64, count uint16) ([]byte, error) {
	n := boltElement * uint64(count)
	if boltPageHeader+n > span {
		return nil, fmt.Errorf("%w: %d elements do not fit a page of %d bytes", format.ErrCorrupt, count, span)
	}
	b, err := w.read(off+boltPageHeader, n)
	return append([]byte(nil), b...), err // the walk below reuses w.buf
}

func (w *pageWalker) walkBranch(id, off, span uint64, count uint16) error {
	if count == 0 {
		return fmt.Errorf("%w: branch page %d is empty", format.ErrCorrupt, id) // bbolt's cursor would index element -1
	}
	elems, err := w.elements(off, span, count)
	if err != nil {
		return err
	}
	for i := range uint64(count) {
		e := elems[i*boltElement:]
		pos, ksize := uint64(boltOrder.Uint32(e[0:])), uint64(boltOrder.Uint32(e[4:]))
		if err := inside(boltPageHeader+i*boltElement, pos, ksize, span); err != nil {
			return err
		}
		if err := w.walkPage(boltOrder.Uint64(e[8:])); err != nil {
			return err
		}
	}
	return nil
}

// walkLeaf checks a leaf page of span bytes at off (in the file or, for an
// inline bucket, in r), and the buckets its elements hold.
func (w *pageWalker) walkLeaf(off, span uint64, count uint16) error {
	elems, err := w.elements(off, span, count)
	if err != nil {
		return err
	}
	for i := range uint64(count) {
		e := elems[i*boltElement:]
		flags, pos := boltOrder.Uint32(e[0:]), uint64(boltOrder.Uint32(e[4:]))
		ksize, vsize := uint64(boltOrder.Uint32(e[8:])), uint64(boltOrder.Uint32(e[12:]))
		at := boltPageHeader + i*boltElement
		if err := inside(at, pos, ksize+vsize, span); err != nil {
			return err
		}
		if flags&boltBucketLeaf != 0 {
			if err := w.walkBucket(off+at+pos+ksize, vsize); err != nil {
				return err
			}
		}
	}
	return nil
}

// walkBucket checks the bucket stored in the value of vsize bytes at off:
// its root page, or its inline page, which bbolt only writes for buckets
// of under a quarter page.
func (w *pageWalker) walkBucket(off, vsize uint64) error {
	if vsize < boltBucketHeader {
		return fmt.Errorf("%w: bucket value of %d bytes", format.ErrCorrupt, vsize)
	}
	h, err := w.read(off, boltBucketHeader)
	if err != nil {
		return err
	}
	if root := boltOrder.Uint64(h[0:]); root != 0 {
		return w.walkPage(root)
	}
	span := vsize - boltBucketHeader
	if span < boltPageHeader || span > w.pageSize {
		return fmt.Errorf("%w: inline bucket of %d bytes", format.ErrCorrupt, span)
	}
	p, err := w.read(off+boltBucketHeader, boltPageHeader)
	if err != nil {
		return err
	}
	if flags := boltOrder.Uint16(p[8:]); flags != boltLeafPage {
		return fmt.Errorf("%w: inline bucket page with flags %#x", format.ErrCorrupt, flags)
	}
	return w.walkLeaf(off+boltBucketHeader, span, boltOrder.Uint16(p[10:]))
}

// inside checks that n bytes at pos from the element at elem lie inside
// a page of span bytes.
func inside(elem, pos, n, span uint64) error {
	if pos > span || elem+pos > span || n > span-elem-pos {
		return fmt.Errorf("%w: element data at %d+%d (%d bytes) outside its page of %d bytes", format.ErrCorrupt, elem, pos, n, span)
	}
	return nil
}

package pagetree

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"syscall"

	"stationdex/internal/format"
)

// Verify walks the bbolt page tree of an index file with its own
// bounds-checked reads, before bbolt is let near it, and sums every
// bucket's pairs as it goes, comparing the sums with those stored in the
// meta bucket (format.KeyChecksums). bbolt trusts its file: it turns page ids and
// element offsets into pointers without bounds checks, so a damaged file
// can make it hand out keys and values that point anywhere in the address
// space, the Go heap included, where the garbage collector finds them and
// kills the process ("found bad pointer in Go heap"), which no recover can
// catch. Open runs this first, so what it opens has every page id inside
// the file, every page reached once, every element inside its page, every
// branch key equal to the first key of its child, and every bucket's pairs
// as they were written. Together these cover every byte bbolt reads from
// the tree, in one linear pass: a few milliseconds for the real snapshot.
//
// The tree is read through a mapping of its own, released before return,
// so that the pages read count against the process only while it runs;
// large values, most of the bytes of a large file, are read with pread
// into a buffer instead (sumFromFile). Reading a mapped file that shrinks
// underneath faults, and a read of it comes up short; either is turned
// into an error.
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
//
// The root of the tree holds only buckets (the index's top-level buckets)
// and those hold only pairs: the format nests no buckets.
func Verify(f *os.File, size int64) (layout Layout, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil { // a fault, or a bug here: neither may take the server down
			err = fmt.Errorf("%w: verifying pages: %v", format.ErrCorrupt, p)
		}
	}()
	if size <= 0 || int64(int(size)) != size {
		return Layout{}, fmt.Errorf("%w: file of %d bytes", format.ErrNotIndex, size)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return Layout{}, fmt.Errorf("map %s: %w", f.Name(), err)
	}
	defer func() { _ = syscall.Munmap(data) }() // read-only: nothing to lose
	return Walk(data, f)
}

// Layout is what the search path needs of a verified file to read it
// (see Tree): the page size and the top-level buckets' values, copied
// out of the verification's mapping.
type Layout struct {
	pageSize uint64
	buckets  []rootEntry
}

// Walk verifies the page tree of data, a whole index file, and every
// bucket against its stored checksum. The meta bucket is walked first, so
// that a file of another kind or version is told as such (format.ErrNotIndex,
// a *format.VersionError) rather than as damage, and without reading it all.
//
// file, when not nil, holds the same bytes as data: large values are summed
// from it (see sumFromFile) instead of through the mapping.
func Walk(data []byte, file io.ReaderAt) (Layout, error) {
	w := &pageWalker{data: data, size: uint64(len(data)), file: file}
	root, err := w.readMetas()
	if err != nil {
		return Layout{}, err
	}
	if _, err := w.walkPage(root, nil); err != nil { // collects w.buckets
		return Layout{}, err
	}
	meta := slices.IndexFunc(w.buckets, func(b rootEntry) bool { return bytes.Equal(b.name, format.BucketMeta) })
	if meta < 0 {
		return Layout{}, fmt.Errorf("%w: no %q bucket", format.ErrNotIndex, format.BucketMeta)
	}
	if err := w.walkBucket(w.buckets[meta]); err != nil {
		return Layout{}, err
	}
	if err := format.CheckIdentity(w.magic, w.version); err != nil {
		return Layout{}, err
	}
	// The stored sums are decoded once: their lengths plan the walk, and
	// the sums are compared after it. A document that does not decode is
	// reported there, after the walk, as before the walk planned from it.
	stored, storedErr := format.DecodeChecksums(w.stored)
	rest := slices.Delete(slices.Clone(w.buckets), meta, meta+1)
	if err := w.walkParallel(rest, stored); err != nil {
		return Layout{}, err
	}
	if storedErr != nil {
		return Layout{}, storedErr
	}
	if err := format.CompareChecksums(stored, w.sums); err != nil {
		return Layout{}, err
	}
	layout := Layout{pageSize: w.pageSize}
	for _, b := range w.buckets {
		layout.buckets = append(layout.buckets, rootEntry{name: bytes.Clone(b.name), value: bytes.Clone(b.value)})
	}
	return layout, nil
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
	data      []byte      // the file
	size      uint64      // of the file
	file      io.ReaderAt // the file again, for sumFromFile; nil: sum from data
	chunk     []byte      // sumFromFile's buffer, one per walker
	pageSize  uint64
	highWater uint64        // meta's pgid: the pages of the tree are below it
	seen      []atomic.Bool // pages reached so far, overflow pages included
	buckets   []rootEntry
	sums      []format.BucketSum
	// From the meta bucket: the format marker, the version and the stored
	// checksums.
	magic, version, stored []byte
}

// rootEntry is a top-level bucket: its name and its bucket value.
type rootEntry struct{ name, value []byte }

// bucketWalk is the bucket being walked: its name and running sum.
type bucketWalk struct {
	name []byte
	sum  format.Summer
}

// read returns n bytes at off, which must lie inside the file.
func (w *pageWalker) read(off, n uint64) ([]byte, error) {
	if off > w.size || n > w.size-off {
		return nil, fmt.Errorf("%w: %d bytes at offset %d are past the end of the file (%d bytes)", format.ErrCorrupt, n, off, w.size)
	}
	return w.data[off : off+n : off+n], nil
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
	w.seen = make([]atomic.Bool, m0.pgid)
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

// walkPage checks page id and every page below it, summing the pairs of
// bucket b (nil: the root, which holds buckets). It returns the page's first
// key, which a branch above must repeat.
func (w *pageWalker) walkPage(id uint64, b *bucketWalk) ([]byte, error) {
	page, flags, count, err := w.claimPage(id)
	if err != nil {
		return nil, err
	}
	switch flags {
	case boltBranchPage:
		return w.walkBranch(id, page, count, b)
	case boltLeafPage:
		return w.walkLeaf(page, int64(id*w.pageSize), count, b)
	}
	return nil, fmt.Errorf("%w: page %d has flags %#x in the tree", format.ErrCorrupt, id, flags)
}

// claimPage checks page id's header and marks it and its overflow pages
// reached, and returns the page with its flags and element count.
func (w *pageWalker) claimPage(id uint64) (page []byte, flags, count uint16, err error) {
	if id < 2 || id >= w.highWater {
		return nil, 0, 0, fmt.Errorf("%w: page id %d outside 2..%d", format.ErrCorrupt, id, w.highWater-1)
	}
	h, err := w.read(id*w.pageSize, boltPageHeader)
	if err != nil {
		return nil, 0, 0, err
	}
	self, overflow := boltOrder.Uint64(h[0:]), uint64(boltOrder.Uint32(h[12:]))
	flags, count = boltOrder.Uint16(h[8:]), boltOrder.Uint16(h[10:])
	if self != id {
		return nil, 0, 0, fmt.Errorf("%w: page %d says it is page %d", format.ErrCorrupt, id, self)
	}
	if overflow >= w.highWater-id {
		return nil, 0, 0, fmt.Errorf("%w: page %d overflows past the last page", format.ErrCorrupt, id)
	}
	for p := id; p <= id+overflow; p++ {
		if !w.seen[p].CompareAndSwap(false, true) {
			return nil, 0, 0, fmt.Errorf("%w: page %d is reached twice", format.ErrCorrupt, p)
		}
	}
	page, err = w.read(id*w.pageSize, (overflow+1)*w.pageSize)
	return page, flags, count, err
}

// elements checks that count elements fit page.
func elements(page []byte, count uint16) error {
	if n := boltElement * uint64(count); boltPageHeader+n > uint64(len(page)) {
		return fmt.Errorf("%w: %d elements do not fit a page of %d bytes", format.ErrCorrupt, count, len(page))
	}
	return nil
}

func (w *pageWalker) walkBranch(id uint64, page []byte, count uint16, b *bucketWalk) ([]byte, error) {
	if count == 0 {
		return nil, fmt.Errorf("%w: branch page %d is empty", format.ErrCorrupt, id) // bbolt's cursor would index element -1
	}
	if err := elements(page, count); err != nil {
		return nil, err
	}
	return w.walkChildren(id, page, 0, uint64(count), b)
}

// walkChildren walks the children [lo, hi) of branch page id, whose
// elements fit it, and returns the first one's key.
func (w *pageWalker) walkChildren(id uint64, page []byte, lo, hi uint64, b *bucketWalk) ([]byte, error) {
	var first []byte
	for i := lo; i < hi; i++ {
		at := boltPageHeader + i*boltElement
		e := page[at:]
		pos, ksize := uint64(boltOrder.Uint32(e[0:])), uint64(boltOrder.Uint32(e[4:]))
		key, err := inside(page, at, pos, ksize)
		if err != nil {
			return nil, err
		}
		childFirst, err := w.walkPage(boltOrder.Uint64(e[8:]), b)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(key, childFirst) {
			return nil, fmt.Errorf("%w: branch page %d: key %.40q, its child starts with %.40q", format.ErrCorrupt, id, key, childFirst)
		}
		if i == lo {
			first = key
		}
	}
	return first, nil
}

// walkLeaf checks a leaf page (in the file at offset base or, for an
// inline bucket, in its parent's value, base -1) and sums its pairs into b;
// in the root (b nil) it walks the buckets its elements hold.
func (w *pageWalker) walkLeaf(page []byte, base int64, count uint16, b *bucketWalk) ([]byte, error) {
	if err := elements(page, count); err != nil {
		return nil, err
	}
	var first []byte
	for i := range uint64(count) {
		at := boltPageHeader + i*boltElement
		e := page[at:]
		flags, pos := boltOrder.Uint32(e[0:]), uint64(boltOrder.Uint32(e[4:]))
		ksize, vsize := uint64(boltOrder.Uint32(e[8:])), uint64(boltOrder.Uint32(e[12:]))
		kv, err := inside(page, at, pos, ksize+vsize)
		if err != nil {
			return nil, err
		}
		key, value := kv[:ksize:ksize], kv[ksize:]
		if i == 0 {
			first = key
		}
		switch {
		case b == nil && flags == boltBucketLeaf:
			w.buckets = append(w.buckets, rootEntry{key, value})
		case b == nil:
			return nil, fmt.Errorf("%w: pair %.40q outside any bucket", format.ErrCorrupt, key)
		case flags != 0:
			return nil, fmt.Errorf("%w: bucket %s: element %.40q has flags %#x (a nested bucket?)", format.ErrCorrupt, b.name, key, flags)
		case !format.Summed(b.name, key):
			w.stored = value
		case len(value) >= fileSummed && w.file != nil && base >= 0:
			if err := w.sumFromFile(&b.sum, key, base+int64(at+pos+ksize), len(value)); err != nil {
				return nil, err
			}
		default:
			b.sum.Add(key, value)
			if bytes.Equal(b.name, format.BucketMeta) {
				w.noteMeta(key, value)
			}
		}
	}
	return first, nil
}

// noteMeta keeps the pairs of the meta bucket that identify the file.
func (w *pageWalker) noteMeta(key, value []byte) {
	switch {
	case bytes.Equal(key, format.KeyFormat):
		w.magic = value
	case bytes.Equal(key, format.KeyVersion):
		w.version = value
	}
}

// walkBucket checks a top-level bucket: its root page, or its inline page,
// which bbolt only writes for buckets of under a quarter page; and records
// its sum.
func (w *pageWalker) walkBucket(e rootEntry) error {
	if len(e.value) < boltBucketHeader {
		return fmt.Errorf("%w: bucket value of %d bytes", format.ErrCorrupt, len(e.value))
	}
	b := &bucketWalk{name: e.name}
	if root := boltOrder.Uint64(e.value[0:]); root != 0 {
		if _, err := w.walkPage(root, b); err != nil {
			return err
		}
		w.sums = append(w.sums, b.sum.Sum(e.name))
		return nil
	}
	page := e.value[boltBucketHeader:]
	if len(page) < boltPageHeader || uint64(len(page)) > w.pageSize {
		return fmt.Errorf("%w: inline bucket of %d bytes", format.ErrCorrupt, len(page))
	}
	if flags := boltOrder.Uint16(page[8:]); flags != boltLeafPage {
		return fmt.Errorf("%w: inline bucket page with flags %#x", format.ErrCorrupt, flags)
	}
	if _, err := w.walkLeaf(page, -1, boltOrder.Uint16(page[10:]), b); err != nil {
		return err
	}
	w.sums = append(w.sums, b.sum.Sum(e.name))
	return nil
}

// fileSummed is the value size from which a value is summed from the file
// rather than the mapping; fileChunk is the read size. Most of a large
// index is such values (the station blocks, the data dumps). Reading them
// into a buffer that stays in cache costs about 60% of faulting the same
// pages into the mapping: a start-up check of a 5M-station file (6.4 GB),
// summed from the mapping on 2 cores, spent most of its second in faults.
const (
	fileSummed = 32 << 10
	fileChunk  = 256 << 10
)

// sumFromFile sums the n-byte value of key, at offset off of the file (the
// walk has checked that it lies inside the page and the file), reading it
// in chunks. A short read means the file shrank under the walk: damage.
func (w *pageWalker) sumFromFile(sum *format.Summer, key []byte, off int64, n int) error {
	if w.chunk == nil {
		w.chunk = make([]byte, fileChunk)
	}
	sum.Begin(key, n)
	for n > 0 {
		part := w.chunk[:min(n, len(w.chunk))]
		if _, err := w.file.ReadAt(part, off); err != nil {
			return fmt.Errorf("%w: reading %d bytes at offset %d: %v", format.ErrCorrupt, len(part), off, err)
		}
		sum.Write(part)
		off += int64(len(part))
		n -= len(part)
	}
	return nil
}

// inside returns the n bytes at pos from the element at elem, which must
// lie inside page.
func inside(page []byte, elem, pos, n uint64) ([]byte, error) {
	span := uint64(len(page))
	if pos > span || elem+pos > span || n > span-elem-pos {
		return nil, fmt.Errorf("%w: element data at %d+%d (%d bytes) outside its page of %d bytes", format.ErrCorrupt, elem, pos, n, span)
	}
	return page[elem+pos : elem+pos+n : elem+pos+n], nil
}

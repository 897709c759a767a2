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
// The pages are read from the file with pread, through a window of the
// walker's own (page.go), rather than through a mapping: on the virtual
// machines this runs on a first touch of a mapped page costs more than
// reading it, and the walk touches each page once. Large values, most of
// the bytes of a large file, are read in chunks into a buffer as they are
// summed (sumFromFile). A mapping of its own, released before return,
// serves the meta pages. A read of a file that shrinks underneath comes up
// short, and reading a mapping of it faults; either is turned into an
// error.
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
	return verify(f, size, scope{})
}

// VerifyDeferring is Verify but for the contents of the buckets named in
// later: their pages are walked and bounds-checked as every other's and
// their keys counted, but their values are not read, so their sums wait
// for VerifySums. A server starts answering sooner this way when most of
// a large file is values it only copies to clients (format.CopiedBuckets):
// at 5M stations they are 4.4 of its 6.6 GB.
func VerifyDeferring(f *os.File, size int64, later [][]byte) (Layout, error) {
	return verify(f, size, scope{later: nameSet(later)})
}

// VerifySums finishes what VerifyDeferring left: it walks the pages of the
// buckets named, reads their values and compares their sums with those
// stored. It trusts the rest of the tree to the VerifyDeferring of the same
// file (the pages shared between buckets, the branch keys, the buckets not
// named), so it reads the named buckets' pages and nothing else.
func VerifySums(f *os.File, size int64, names [][]byte) error {
	_, err := verify(f, size, scope{only: nameSet(names)})
	return err
}

// scope is what a walk sums: every bucket (the zero scope), all but later
// (whose keys it counts only), or only the buckets in only.
type scope struct{ later, only map[string]bool }

func nameSet(names [][]byte) map[string]bool {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[string(n)] = true
	}
	return set
}

func verify(f *os.File, size int64, sc scope) (layout Layout, err error) {
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
	return walk(data, f, sc)
}

// Layout is what the search path needs of a verified file to read it
// (see Tree): the page size and the top-level buckets' values, copied
// out of the verification's mapping.
type Layout struct {
	pageSize uint64
	buckets  []rootEntry
	large    map[string][]Span // by bucket, in key order (see Tree.Large)
	keys     map[string]int    // each bucket's count of keys
}

// Walk verifies the page tree of data, a whole index file, and every
// bucket against its stored checksum. The meta bucket is walked first, so
// that a file of another kind or version is told as such (format.ErrNotIndex,
// a *format.VersionError) rather than as damage, and without reading it all.
//
// file, when not nil, holds the same bytes as data: large values are summed
// from it (see sumFromFile) instead of through the mapping.
func Walk(data []byte, file io.ReaderAt) (Layout, error) {
	return walk(data, file, scope{})
}

func walk(data []byte, file io.ReaderAt, sc scope) (Layout, error) {
	w := &pageWalker{data: data, size: uint64(len(data)), file: file, later: sc.later}
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
	if sc.only != nil {
		rest = slices.DeleteFunc(rest, func(b rootEntry) bool { return !sc.only[string(b.name)] })
		w.sums = nil // the meta bucket's: VerifyDeferring compared it
	}
	if err := w.walkParallel(rest, stored); err != nil {
		return Layout{}, err
	}
	if storedErr != nil {
		return Layout{}, storedErr
	}
	if err := format.CompareChecksums(sc.stored(stored), sc.summed(stored, w.sums)); err != nil {
		return Layout{}, err
	}
	layout := Layout{pageSize: w.pageSize, large: w.large, keys: make(map[string]int, len(w.sums))}
	for _, s := range w.sums {
		layout.keys[s.Bucket] = s.Keys
	}
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
	data  []byte      // the file
	size  uint64      // of the file
	file  io.ReaderAt // the file again, for sumFromFile; nil: sum from data
	chunk []byte      // sumFromFile's buffer, one per walker
	win   []byte      // the walker's window on the file (window)
	winAt uint64      // its offset
	// afterOverflow: the last page claimed has overflow pages (window).
	afterOverflow bool
	pageSize      uint64
	highWater     uint64            // meta's pgid: the pages of the tree are below it
	seen          []atomic.Bool     // pages reached so far, overflow pages included
	later         map[string]bool   // buckets whose keys are counted, their values left unread
	large         map[string][]Span // where the large values are, by bucket (noteLarge)
	buckets       []rootEntry
	sums          []format.BucketSum
	// From the meta bucket: the format marker, the version and the stored
	// checksums.
	magic, version, stored []byte
}

// stored is the part of the stored sums a walk in scope compares: the
// named buckets' alone when it walks only those.
func (sc scope) stored(all []format.BucketSum) []format.BucketSum {
	if sc.only == nil {
		return all
	}
	return slices.DeleteFunc(slices.Clone(all), func(s format.BucketSum) bool { return !sc.only[s.Bucket] })
}

// summed is what a walk in scope found, ready to compare with the stored
// sums: a bucket whose contents it left for later has only its key count
// compared, so it takes the stored sum and length of its contents.
func (sc scope) summed(stored, got []format.BucketSum) []format.BucketSum {
	if len(sc.later) == 0 {
		return got
	}
	want := make(map[string]format.BucketSum, len(stored))
	for _, s := range stored {
		want[s.Bucket] = s
	}
	got = slices.Clone(got)
	for i, g := range got {
		if s, ok := want[g.Bucket]; ok && sc.later[g.Bucket] {
			got[i].CRC32C, got[i].Bytes = s.CRC32C, s.Bytes
		}
	}
	return got
}

// rootEntry is a top-level bucket: its name and its bucket value.
type rootEntry struct{ name, value []byte }

// bucketWalk is the bucket being walked: its name and running sum, or,
// for a bucket whose contents are left for later, its count of keys.
type bucketWalk struct {
	name     []byte
	sum      format.Summer
	keysOnly bool
	keys     int
}

func (w *pageWalker) bucketWalk(name []byte) *bucketWalk {
	return &bucketWalk{name: name, keysOnly: w.later[string(name)]}
}

// total is the bucket's sum, of its keys alone when keysOnly.
func (b *bucketWalk) total() format.BucketSum {
	if b.keysOnly {
		return format.BucketSum{Bucket: string(b.name), Keys: b.keys}
	}
	return b.sum.Sum(b.name)
}

// part is the sum of a run of the bucket's pairs, as total.
func (b *bucketWalk) part() format.SumPart {
	if b.keysOnly {
		return format.SumPart{Keys: b.keys}
	}
	return b.sum.Part()
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
	p, flags, count, err := w.claimPage(id)
	if err != nil {
		return nil, err
	}
	switch flags {
	case boltBranchPage:
		return w.walkBranch(id, p, count, b)
	case boltLeafPage:
		return w.walkLeaf(p, count, b)
	}
	return nil, fmt.Errorf("%w: page %d has flags %#x in the tree", format.ErrCorrupt, id, flags)
}

// claimPage checks page id's header and marks it and its overflow pages
// reached, and returns the page with its flags and element count.
func (w *pageWalker) claimPage(id uint64) (p page, flags, count uint16, err error) {
	if id < 2 || id >= w.highWater {
		return page{}, 0, 0, fmt.Errorf("%w: page id %d outside 2..%d", format.ErrCorrupt, id, w.highWater-1)
	}
	if p, err = w.readPage(id); err != nil {
		return page{}, 0, 0, err
	}
	h := p.data[:boltPageHeader]
	self, overflow := boltOrder.Uint64(h[0:]), uint64(boltOrder.Uint32(h[12:]))
	flags, count = boltOrder.Uint16(h[8:]), boltOrder.Uint16(h[10:])
	if self != id {
		return page{}, 0, 0, fmt.Errorf("%w: page %d says it is page %d", format.ErrCorrupt, id, self)
	}
	if overflow >= w.highWater-id {
		return page{}, 0, 0, fmt.Errorf("%w: page %d overflows past the last page", format.ErrCorrupt, id)
	}
	for q := id; q <= id+overflow; q++ {
		if !w.seen[q].CompareAndSwap(false, true) {
			return page{}, 0, 0, fmt.Errorf("%w: page %d is reached twice", format.ErrCorrupt, q)
		}
	}
	p.size = (overflow + 1) * w.pageSize
	// A page larger than a window is read element by element, as needed
	// (page.bytes), and the next page alone; a smaller one whole, in the
	// window, with what follows it.
	w.afterOverflow = p.size > windowSize
	switch {
	case w.file == nil:
		p.data, err = w.read(id*w.pageSize, p.size)
	case overflow > 0 && !w.afterOverflow:
		p.data, err = w.window(id*w.pageSize, p.size)
	}
	if err == nil && flags == boltBranchPage && w.file != nil {
		p.data = bytes.Clone(p.data) // in use while its children are read (readPage)
	}
	return p, flags, count, err
}

func (w *pageWalker) walkBranch(id uint64, p page, count uint16, b *bucketWalk) ([]byte, error) {
	if count == 0 {
		return nil, fmt.Errorf("%w: branch page %d is empty", format.ErrCorrupt, id) // bbolt's cursor would index element -1
	}
	if _, err := elements(p, count); err != nil {
		return nil, err
	}
	return w.walkChildren(id, p, 0, uint64(count), b)
}

// walkChildren walks the children [lo, hi) of branch page id, whose
// elements fit it (elements), and returns the first one's key.
func (w *pageWalker) walkChildren(id uint64, p page, lo, hi uint64, b *bucketWalk) ([]byte, error) {
	table, err := p.bytes(boltPageHeader+lo*boltElement, (hi-lo)*boltElement)
	if err != nil {
		return nil, err
	}
	var first []byte
	for i := lo; i < hi; i++ {
		at := boltPageHeader + i*boltElement
		e := table[(i-lo)*boltElement:]
		pos, ksize := uint64(boltOrder.Uint32(e[0:])), uint64(boltOrder.Uint32(e[4:]))
		key, err := inside(p, at, pos, ksize)
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

// walkLeaf checks a leaf page (in the file or, for an inline bucket, in
// its parent's value) and sums its pairs into b; in the root (b nil) it
// walks the buckets its elements hold. A value is read only when it is
// summed here: not one whose bucket's contents are left for later, nor a
// large one, summed from the file (sumFromFile).
func (w *pageWalker) walkLeaf(p page, count uint16, b *bucketWalk) ([]byte, error) {
	table, err := elements(p, count)
	if err != nil {
		return nil, err
	}
	var first []byte
	for i := range uint64(count) {
		at := boltPageHeader + i*boltElement
		e := table[i*boltElement:]
		flags, pos := boltOrder.Uint32(e[0:]), uint64(boltOrder.Uint32(e[4:]))
		ksize, vsize := uint64(boltOrder.Uint32(e[8:])), uint64(boltOrder.Uint32(e[12:]))
		if err := within(p, at, pos, ksize+vsize); err != nil {
			return nil, err
		}
		key, err := p.bytes(at+pos, ksize)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			first = key
		}
		valueAt := at + pos + ksize
		if b != nil && flags == 0 && vsize >= fileSummed && p.at >= 0 {
			w.noteLarge(b.name, key, p.at+int64(valueAt), vsize)
		}
		switch {
		case b == nil && flags != boltBucketLeaf:
			return nil, fmt.Errorf("%w: pair %.40q outside any bucket", format.ErrCorrupt, key)
		case b != nil && flags != 0:
			return nil, fmt.Errorf("%w: bucket %s: element %.40q has flags %#x (a nested bucket?)", format.ErrCorrupt, b.name, key, flags)
		case b != nil && b.keysOnly:
			b.keys++
		case b != nil && vsize >= fileSummed && w.file != nil && p.at >= 0 && format.Summed(b.name, key):
			err = w.sumFromFile(&b.sum, key, p.at+int64(valueAt), int(vsize))
		default:
			err = w.takePair(b, key, p, valueAt, vsize)
		}
		if err != nil {
			return nil, err
		}
	}
	return first, nil
}

// takePair reads the value of a pair whose key walkLeaf read and takes
// it: a bucket of the root (b nil), the stored sums, or a pair summed.
func (w *pageWalker) takePair(b *bucketWalk, key []byte, p page, valueAt, vsize uint64) error {
	value, err := p.bytes(valueAt, vsize)
	switch {
	case err != nil:
		return err
	case b == nil:
		w.buckets = append(w.buckets, rootEntry{bytes.Clone(key), bytes.Clone(value)}) // kept past the page (readPage)
	case !format.Summed(b.name, key):
		w.stored = bytes.Clone(value)
	default:
		b.sum.Add(key, value)
		if bytes.Equal(b.name, format.BucketMeta) {
			w.noteMeta(key, value)
		}
	}
	return nil
}

// noteMeta keeps the pairs of the meta bucket that identify the file.
func (w *pageWalker) noteMeta(key, value []byte) {
	switch {
	case bytes.Equal(key, format.KeyFormat):
		w.magic = bytes.Clone(value)
	case bytes.Equal(key, format.KeyVersion):
		w.version = bytes.Clone(value)
	}
}

// walkBucket checks a top-level bucket: its root page, or its inline page,
// which bbolt only writes for buckets of under a quarter page; and records
// its sum.
func (w *pageWalker) walkBucket(e rootEntry) error {
	if len(e.value) < boltBucketHeader {
		return fmt.Errorf("%w: bucket value of %d bytes", format.ErrCorrupt, len(e.value))
	}
	b := w.bucketWalk(e.name)
	if root := boltOrder.Uint64(e.value[0:]); root != 0 {
		if _, err := w.walkPage(root, b); err != nil {
			return err
		}
		w.sums = append(w.sums, b.total())
		return nil
	}
	page := e.value[boltBucketHeader:]
	if len(page) < boltPageHeader || uint64(len(page)) > w.pageSize {
		return fmt.Errorf("%w: inline bucket of %d bytes", format.ErrCorrupt, len(page))
	}
	if flags := boltOrder.Uint16(page[8:]); flags != boltLeafPage {
		return fmt.Errorf("%w: inline bucket page with flags %#x", format.ErrCorrupt, flags)
	}
	if _, err := w.walkLeaf(inline(page), boltOrder.Uint16(page[10:]), b); err != nil {
		return err
	}
	w.sums = append(w.sums, b.total())
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

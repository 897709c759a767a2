package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"stationdex/internal/format"
	"stationdex/query/pagetree"
)

// openTimeout bounds the wait for the shared file lock: a writer holding
// the file (an index build into the same path, not via rename) must not
// hang server start-up.
const openTimeout = time.Second

// minFileSize is below the two meta pages of the smallest bbolt page size;
// bbolt would otherwise try to initialise an empty file, which fails
// confusingly on a read-only open.
const minFileSize = 1024

// Open opens path read-only after verifying it: the bbolt page tree, magic
// and version, and every bucket against the checksums the indexer stored
// (pagetree.Verify, one linear read of the file), then buckets, meta and the
// record range. A damaged, truncated or foreign file is refused here, so
// nothing read from an open Index can point outside the file. Decoding
// every record and bitmap is left to Check. Errors wrap format.ErrNotIndex
// (not an index at all), a *format.VersionError (format.ErrVersion),
// format.ErrCorrupt or the operating system's error (missing file,
// permissions).
func Open(path string) (*Index, error) {
	ix, err := open(path, false)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	return ix, nil
}

// OpenServing opens path as Open does but leaves the contents of the
// buckets a server only copies to clients (format.CopiedBuckets, most of a
// large file) unsummed: their pages are walked and bounds-checked, their
// keys counted, and the rest of the file verified in full before it
// returns. The caller answers from the index at once and runs
// VerifyCopied beside it, withdrawing the index if that fails. At 5M
// stations this opens in a third of Open's time.
func OpenServing(path string) (*Index, error) {
	ix, err := open(path, true)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	return ix, nil
}

// VerifyCopied sums the buckets OpenServing left unsummed, in the very file
// it opened (the path may name another by now), and compares them with the
// sums stored. It returns nil for an index Open verified whole; later calls
// return the first one's verdict. Errors wrap format.ErrCorrupt.
func (ix *Index) VerifyCopied() error {
	c := &ix.copied
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file != nil {
		c.err = pagetree.VerifySums(c.file, c.size, format.CopiedBuckets)
		if c.err != nil {
			c.err = fmt.Errorf("verify index %s: %w", ix.path, c.err)
		}
		_ = c.file.Close() // read only: nothing to lose
		c.file = nil
	}
	return c.err
}

// copiedSums is what VerifyCopied needs: the file OpenServing verified
// (nil when Open verified it whole, or once summed) and the verdict.
type copiedSums struct {
	mu   sync.Mutex
	file *os.File
	size int64
	err  error
}

// release closes the file VerifyCopied would have read, unless it is
// reading it now (it closes the file itself when done): a closed index's
// verdict matters to nobody.
func (c *copiedSums) release() {
	if !c.mu.TryLock() {
		return
	}
	defer c.mu.Unlock()
	if c.file != nil {
		_ = c.file.Close() // read only: nothing to lose
		c.file = nil
		c.err = errors.New("index closed before its copied buckets were verified")
	}
}

func open(path string, later bool) (*Index, error) {
	f, size, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only; bbolt holds its own descriptor
	verify := pagetree.Verify
	if later {
		verify = func(f *os.File, size int64) (pagetree.Layout, error) {
			return pagetree.VerifyDeferring(f, size, format.CopiedBuckets)
		}
	}
	layout, err := verify(f, size)
	if err != nil {
		return nil, err
	}
	// bbolt opens the very file verified, not whatever the path names by
	// now: an index published by rename may replace it at any moment.
	db, err := bolt.Open(path, 0o444, &bolt.Options{ReadOnly: true, Timeout: openTimeout, OpenFile: dupOf(f)})
	if err != nil {
		return nil, classifyBoltError(err)
	}
	tree, err := pagetree.Map(f.Fd(), size, layout)
	if err != nil {
		_ = db.Close() // the mapping error is the one worth reporting
		return nil, err
	}
	ix := &Index{db: db, path: path, Tree: tree}
	if err := ix.View(func(tx *bolt.Tx) error { return ix.verify(tx, size) }); err != nil {
		_ = db.Close() // the verification error is the one worth reporting
		_ = tree.Unmap()
		return nil, err
	}
	ix.locateFromTree()
	if later {
		if ix.copied.file, err = dupOf(f)(path, 0, 0); err != nil {
			_ = ix.Close() // the dup's error is the one worth reporting
			return nil, err
		}
		ix.copied.size = size
	}
	return ix, nil
}

// openFile opens path for reading and returns it with its size.
func openFile(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	size, err := fileSize(f)
	if err != nil {
		_ = f.Close() // the size error is the one worth reporting
		return nil, 0, err
	}
	return f, size, nil
}

func fileSize(f *os.File) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("%w: not a regular file", format.ErrNotIndex)
	}
	if fi.Size() < minFileSize {
		return 0, fmt.Errorf("%w: file of %d bytes is too small", format.ErrNotIndex, fi.Size())
	}
	return fi.Size(), nil
}

// dupOf makes bbolt open a new descriptor of f instead of the path.
func dupOf(f *os.File) func(string, int, os.FileMode) (*os.File, error) {
	return func(name string, _ int, _ os.FileMode) (*os.File, error) {
		fd, err := syscall.Dup(int(f.Fd()))
		if err != nil {
			return nil, &fs.PathError{Op: "dup", Path: name, Err: err}
		}
		return os.NewFile(uintptr(fd), name), nil
	}
}

// classifyBoltError tells "this is not a bbolt file" (bad meta pages,
// checksum, a file shorter than its page size) apart from errors of the
// file system, the lock or the mapping, which say nothing about the
// contents.
func classifyBoltError(err error) error {
	var pathErr *fs.PathError
	var errno syscall.Errno
	if errors.Is(err, bolterrors.ErrTimeout) || errors.As(err, &pathErr) || errors.As(err, &errno) {
		return err
	}
	return fmt.Errorf("%w: %v", format.ErrNotIndex, err)
}

// verify checks what every call relies on, in time independent of the data
// set: the file is whole, ours, of our version, has every bucket, and its
// record numbers are the dense range the meta document announces.
func (ix *Index) verify(tx *bolt.Tx, size int64) error {
	if need := tx.Size(); need > size {
		return fmt.Errorf("%w: file truncated: %d bytes, the index needs %d", format.ErrCorrupt, size, need)
	}
	if err := verifyIdentity(tx); err != nil {
		return err
	}
	for _, name := range format.AllBuckets {
		if tx.Bucket(name) == nil {
			return fmt.Errorf("%w: bucket %q missing", format.ErrCorrupt, name)
		}
	}
	meta, err := readMeta(tx)
	if err != nil {
		return err
	}
	if err := verifySections(tx, meta.Sections()); err != nil {
		return err
	}
	ix.meta = meta
	return verifyRecordRange(tx, meta.Stations)
}

// verifyIdentity checks magic and version: what tells a stationdex index of
// this format from any other bbolt file.
func verifyIdentity(tx *bolt.Tx) error {
	b := tx.Bucket(format.BucketMeta)
	if b == nil {
		return fmt.Errorf("%w: no %q bucket", format.ErrNotIndex, format.BucketMeta)
	}
	return format.CheckIdentity(b.Get(format.KeyFormat), b.Get(format.KeyVersion))
}

func readMeta(tx *bolt.Tx) (format.Meta, error) {
	var m format.Meta
	raw := tx.Bucket(format.BucketMeta).Get(format.KeyMeta)
	if raw == nil {
		return m, fmt.Errorf("%w: meta document missing", format.ErrCorrupt)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, fmt.Errorf("%w: meta document: %v", format.ErrCorrupt, err)
	}
	if m.Stations < 0 || int64(m.Stations) > math.MaxUint32 {
		return m, fmt.Errorf("%w: meta: %d stations", format.ErrCorrupt, m.Stations)
	}
	return m, nil
}

// verifyRecordRange checks that the last record number is Stations-1: the
// query without words or filters pages over 0..Stations-1 arithmetically.
func verifyRecordRange(tx *bolt.Tx, stations int) error {
	k, v := tx.Bucket(format.BucketStations).Cursor().Last()
	if k == nil {
		if stations == 0 {
			return nil
		}
		return fmt.Errorf("%w: meta announces %d stations, the stations bucket is empty", format.ErrCorrupt, stations)
	}
	block, err := format.ParseRecordKey(k)
	if err != nil {
		return err
	}
	n, err := format.BlockLen(v)
	if err != nil {
		return err
	}
	if last := int64(block)*format.RecordsPerBlock + int64(n) - 1; last != int64(stations)-1 {
		return fmt.Errorf("%w: meta announces %d stations, last record number is %d", format.ErrCorrupt, stations, last)
	}
	return nil
}

// view runs fn in a read transaction. The file is trusted by the hot path,
// so damage (a file truncated or overwritten after Open, a page bbolt or
// roaring cannot make sense of) surfaces as a fault or panic inside fn; it
// is turned into an error wrapping format.ErrCorrupt instead of killing the
// server.
// read runs fn, which reads the file through the page tree only, with
// the same protection as view and without a bbolt transaction: Close
// waits for it through ix.readers instead.
func (ix *Index) Read(fn func() error) error {
	ix.readers.RLock()
	defer ix.readers.RUnlock()
	return ix.guard(fn)
}

func (ix *Index) View(fn func(*bolt.Tx) error) error {
	return ix.guard(func() error { return ix.db.View(fn) })
}

// guard turns a fault reading the mapping, or a panic on a damaged value,
// into ErrCorrupt instead of a crash.
func (ix *Index) guard(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: reading %s: %v", format.ErrCorrupt, ix.path, p)
		}
	}()
	return fn()
}

// optionalSections are the sections of format.Sections a file may have.
var optionalSections = [...]format.Sections{format.SectionRBAPI}

// verifySections checks that each optional section's buckets are there
// exactly when the meta document declares the section (format.Sections):
// once, here, so that what reads a section only asks whether the file has
// it (Index.Has).
func verifySections(tx *bolt.Tx, declared format.Sections) error {
	for _, sec := range optionalSections {
		for _, name := range sec.Buckets() {
			switch has := tx.Bucket(name) != nil; {
			case declared.Has(sec) && !has:
				return fmt.Errorf("%w: bucket %q missing", format.ErrCorrupt, name)
			case !declared.Has(sec) && has:
				return fmt.Errorf("%w: bucket %q in an index without the compatible data", format.ErrCorrupt, name)
			}
		}
	}
	return nil
}

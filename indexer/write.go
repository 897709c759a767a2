package indexer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"stationdex/internal/format"
)

// Write batching: a bbolt transaction keeps every page it dirties in memory
// until commit, so a bucket is written in several transactions of bounded
// size instead of one transaction as large as the file. Batches are not
// smaller because each commit copies the last leaf of the bucket again,
// values included (a leaf holds at least two keys): with record blocks and
// file chunks of about a megabyte, a 2 MiB batch re-read half of what it
// wrote through the memory map, and the pages it touched count as resident
// memory until bbolt next remaps the file. A transaction costs about three
// times its batch in heap (the values, bbolt's node copies when it remaps,
// the page buffers of the commit), so a small memory budget gets a smaller
// batch: the build is slower then, but it stays within what was asked.
const (
	batchKeys     = 16384
	maxBatchBytes = 4 << 20
	minBatchBytes = 1 << 20
)

// batchBytesFor is the transaction size for a build with the given memory
// budget: a quarter of the budget, within [minBatchBytes, maxBatchBytes].
func batchBytesFor(budget int) int {
	return min(max(budget/4, minBatchBytes), maxBatchBytes)
}

// kvSource yields the pairs of a bucket, keys in ascending bytewise order,
// and a nil key after the last. The slices must stay untouched until the
// transaction commits, so sources return fresh ones. tx is the write
// transaction the pair goes into: a source that reads buckets written
// earlier (the prefix unions read the token bitmaps) must read through it,
// since a separate read transaction in the same goroutine can deadlock
// with the writer's remapping of the file.
type kvSource func(tx *bolt.Tx) (key, value []byte, err error)

// indexFile is an index being written to a temporary file next to its final
// path, so that a failed build never leaves a half-written index and the
// final rename stays on one file system.
type indexFile struct {
	db       *bolt.DB
	tmp      string
	path     string
	progress io.Writer // nil: silent
	batch    int       // bytes of keys and values per write transaction
	// sums holds the checksum of every bucket written so far (see
	// format.KeyChecksums): putSorted takes them, so that every bucket,
	// whichever step writes it, is covered.
	sums []format.BucketSum
}

func createIndexFile(path string, batchBytes int) (*indexFile, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("create index: %w", err)
	}
	tmp := f.Name()
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("create index: %w", err)
	}
	// NoSync: one explicit Sync at the end instead of one per batch; a
	// crash mid-build loses only the temporary file anyway.
	db, err := bolt.Open(tmp, 0o644, &bolt.Options{Timeout: time.Second, NoSync: true, NoGrowSync: true})
	if err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("create index: %w", err)
	}
	return &indexFile{db: db, tmp: tmp, path: path, batch: batchBytes}, nil
}

// putSorted writes every pair of next into a new bucket, checking that keys
// come strictly ascending: bbolt then appends to the last page, and a
// violation means the builder's order is broken, which would silently cost
// determinism. It records the bucket's checksum in f.sums. A new bucket of
// the format is written with putSorted like the others, whatever its
// contents; nothing else is needed for Open to verify it.
func (f *indexFile) putSorted(ctx context.Context, bucket []byte, next kvSource) error {
	progressf(f.progress, "writing bucket %s\n", bucket)
	if err := f.db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucket(bucket)
		return err
	}); err != nil {
		return fmt.Errorf("bucket %s: %w", bucket, err)
	}
	var prev []byte
	var sum format.Summer
	for done := false; !done; {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := f.db.Update(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucket)
			b.FillPercent = 1.0 // sequential inserts: fill pages completely
			for keys, size := 0, 0; keys < batchKeys && size < f.batch; keys++ {
				k, v, err := next(tx)
				if err != nil {
					return err
				}
				if k == nil {
					done = true
					return nil
				}
				if prev != nil && bytes.Compare(prev, k) >= 0 {
					return fmt.Errorf("key %q not after %q", k, prev)
				}
				if err := b.Put(k, v); err != nil {
					return fmt.Errorf("key %q: %w", k, err)
				}
				if format.Summed(bucket, k) {
					sum.Add(k, v)
				}
				prev, size = k, size+len(k)+len(v)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("bucket %s: %w", bucket, err)
		}
	}
	f.sums = append(f.sums, sum.Sum(bucket))
	return nil
}

// commit makes the file durable and moves it into place.
func (f *indexFile) commit() error {
	if err := f.db.Sync(); err != nil {
		return f.fail(fmt.Errorf("sync index: %w", err))
	}
	if err := f.db.Close(); err != nil {
		return f.fail(fmt.Errorf("close index: %w", err))
	}
	// CreateTemp made the file private; an index is for every reader.
	if err := os.Chmod(f.tmp, 0o644); err != nil {
		return f.fail(fmt.Errorf("index permissions: %w", err))
	}
	if err := os.Rename(f.tmp, f.path); err != nil {
		return f.fail(fmt.Errorf("move index into place: %w", err))
	}
	syncDir(filepath.Dir(f.path))
	return nil
}

// fail closes and removes the temporary file and returns err.
func (f *indexFile) fail(err error) error {
	cerr := f.db.Close()
	if rerr := os.Remove(f.tmp); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		return errors.Join(err, rerr)
	}
	if cerr != nil && !errors.Is(cerr, bolterrors.ErrDatabaseNotOpen) {
		return errors.Join(err, cerr)
	}
	return err
}

// syncDir makes the rename durable. It is best effort: some file systems do
// not support syncing a directory, and the index itself is already synced.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}

// Reading ahead: a bucket's pairs are made (merged from a sorter, encoded)
// on the writer's goroutine between bbolt's puts and commits, which leaves
// the other core idle for most of the write phase. putSortedAhead moves the
// making to a goroutine of its own, at most aheadBatches batches of about
// aheadBytes ahead of the writer, so that memory stays bounded.
const (
	aheadBytes   = 256 << 10
	aheadPairs   = 4096
	aheadBatches = 1 // queued, besides the one being made and the one being written
)

// putSortedAhead is putSorted with next run ahead on a goroutine. Only for
// sources that do not read the index: next is called with a nil tx. When
// it returns, next is no longer running, so a source sharing state with
// the next bucket's (the posting buckets') can be handed on.
func (f *indexFile) putSortedAhead(ctx context.Context, bucket []byte, next kvSource) error {
	src, stop := readAhead(next)
	defer stop()
	return f.putSorted(ctx, bucket, src)
}

// kvBatch is a run of pairs made ahead; last marks the source's end (nil
// key) or error, after its pairs.
type kvBatch struct {
	pairs [][2][]byte
	last  bool
	err   error
}

// readAhead calls next on a goroutine and yields its pairs; stop ends the
// goroutine (after the batch it is making) and waits for it.
func readAhead(next kvSource) (src kvSource, stop func()) {
	batches := make(chan kvBatch, aheadBatches)
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		for last := false; !last; {
			b := makeBatch(next)
			select {
			case batches <- b:
			case <-quit:
				return
			}
			last = b.last
		}
	}()
	var cur kvBatch
	src = func(*bolt.Tx) ([]byte, []byte, error) {
		for len(cur.pairs) == 0 {
			if cur.last {
				return nil, nil, cur.err
			}
			cur = <-batches
		}
		kv := cur.pairs[0]
		cur.pairs = cur.pairs[1:]
		return kv[0], kv[1], nil
	}
	return src, func() {
		close(quit)
		<-finished
	}
}

// makeBatch takes pairs from next until it has aheadBytes or aheadPairs of
// them, or next ends.
func makeBatch(next kvSource) kvBatch {
	var b kvBatch
	for size := 0; size < aheadBytes && len(b.pairs) < aheadPairs; {
		k, v, err := next(nil)
		if k == nil || err != nil {
			b.last, b.err = true, err
			return b
		}
		b.pairs = append(b.pairs, [2][]byte{k, v})
		size += len(k) + len(v)
	}
	return b
}

// minMeanRun is the mean run length from which a posting list is stored
// run-length encoded. Stations sharing a name are consecutive, so exact-name
// lists are a few long runs; a country or language is scattered over the
// name order, and run-encoding it (which roaring would choose whenever it is
// smaller) yields containers of thousands of one-value runs that are slow to
// combine at query time.
const minMeanRun = 8

// encode serialises bm in roaring's portable format, run-length encoded
// only where minMeanRun says so, and not even then when its run
// containers would hold many short runs (format.MaxRunContainerBytes): a
// list of long runs with a scattered part (the names holding a digit,
// say) would otherwise be flattened by every search that reads it.
func encode(bm *roaring.Bitmap) ([]byte, error) {
	if card := bm.GetCardinality(); card > 0 && card/uint64(runs(bm)) >= minMeanRun {
		bm.RunOptimize()
		if format.ManyShortRuns(bm) {
			bm = withoutRuns(bm)
		}
	} else if bm.HasRunCompression() {
		bm = withoutRuns(bm)
	}
	return bm.ToBytes()
}

// withoutRuns copies bm into array and bitmap containers only. A union of
// token bitmaps (a prefix posting) inherits the run containers of the
// tokens it is made of, even where over the union runs no longer pay.
func withoutRuns(bm *roaring.Bitmap) *roaring.Bitmap {
	out := roaring.New()
	buf := make([]uint32, 4096)
	it := bm.ManyIterator()
	for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
		out.AddMany(buf[:n])
	}
	return out
}

// runs counts the maximal runs of consecutive values in bm.
func runs(bm *roaring.Bitmap) int {
	n, prev := 0, int64(-2)
	it := bm.Iterator()
	for it.HasNext() {
		v := int64(it.Next())
		if v != prev+1 {
			n++
		}
		prev = v
	}
	return n
}

package indexer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Write batching: a bbolt transaction keeps every page it dirties in memory
// until commit, so a bucket is written in several transactions of bounded
// size instead of one transaction as large as the file.
const (
	batchKeys  = 2048
	batchBytes = 2 << 20
)

// kvFunc yields the i-th key and value of a bucket, keys in ascending
// bytewise order. The slices must stay untouched until the transaction
// commits, so implementations return fresh ones.
type kvFunc func(i int) (key, value []byte, err error)

// indexFile is an index being written to a temporary file next to its final
// path, so that a failed build never leaves a half-written index and the
// final rename stays on one file system.
type indexFile struct {
	db   *bolt.DB
	tmp  string
	path string
}

func createIndexFile(path string) (*indexFile, error) {
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
	return &indexFile{db: db, tmp: tmp, path: path}, nil
}

// putSorted writes n key/value pairs into a new bucket, checking that keys
// come strictly ascending: bbolt then appends to the last page, and a
// violation means the builder's order is broken, which would silently cost
// determinism.
func (f *indexFile) putSorted(ctx context.Context, bucket []byte, n int, kv kvFunc) error {
	if err := f.db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucket(bucket)
		return err
	}); err != nil {
		return fmt.Errorf("bucket %s: %w", bucket, err)
	}
	var prev []byte
	for i := 0; i < n; {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := f.db.Update(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucket)
			b.FillPercent = 1.0 // sequential inserts: fill pages completely
			size := 0
			for start := i; i < n && i-start < batchKeys && size < batchBytes; i++ {
				k, v, err := kv(i)
				if err != nil {
					return err
				}
				if prev != nil && bytes.Compare(prev, k) >= 0 {
					return fmt.Errorf("key %q not after %q", k, prev)
				}
				if err := b.Put(k, v); err != nil {
					return fmt.Errorf("key %q: %w", k, err)
				}
				prev, size = k, size+len(k)+len(v)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("bucket %s: %w", bucket, err)
		}
	}
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
	if cerr != nil && !errors.Is(cerr, bolt.ErrDatabaseNotOpen) {
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

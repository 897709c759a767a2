package query

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/format"
)

// ErrNoFile: the index has no file of that name in its files bucket.
var ErrNoFile = errors.New("no such file in the index")

// File calls fn with the content of a file of the files bucket (see
// package format), read in place from the memory-mapped index: nothing is
// copied, so serving a download costs no heap proportional to its size.
// The reader is valid only during fn.
func (ix *Index) File(name string, fn func(content io.ReadSeeker, size int64) error) error {
	return ix.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(format.BucketFiles).Get([]byte(name))
		if v == nil {
			return fmt.Errorf("%w: %q", ErrNoFile, name)
		}
		return fn(bytes.NewReader(v), int64(len(v)))
	})
}

// FileBytes returns a copy of a small file of the files bucket, such as
// the manifest.
func (ix *Index) FileBytes(name string) ([]byte, error) {
	var out []byte
	err := ix.File(name, func(r io.ReadSeeker, size int64) error {
		out = make([]byte, size)
		_, err := io.ReadFull(r, out)
		return err
	})
	return out, err
}

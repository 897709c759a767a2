package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
)

// ErrNoFile: the index has no file of that name in its files bucket.
var ErrNoFile = errors.New("no such file in the index")

// File calls fn with the content of a file of the files bucket (see
// package format), read in place from the memory-mapped index: nothing is
// copied, so serving a download costs no heap proportional to its size.
// The file is stored in chunks; the reader presents their concatenation.
// The reader is valid only during fn.
func (ix *Index) File(name string, fn func(content io.ReadSeeker, size int64) error) error {
	return ix.View(func(tx *bolt.Tx) error {
		r, err := FileChunks(tx.Bucket(format.BucketFiles), name)
		if err != nil {
			return err
		}
		return fn(io.NewSectionReader(r, 0, r.Size()), r.Size())
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

// Manifest returns the manifest of the stored data dumps: the base URL
// they were built for and each file's name, sizes and digest. An index
// built without dumps has none: ErrNoFile.
func (ix *Index) Manifest() (format.FilesManifest, error) {
	var m format.FilesManifest
	err := ix.View(func(tx *bolt.Tx) error {
		var err error
		m, err = ReadManifest(tx.Bucket(format.BucketFiles))
		return err
	})
	return m, err
}

// readManifest decodes the manifest from the files bucket, for Manifest and
// for Check.
func ReadManifest(files *bolt.Bucket) (format.FilesManifest, error) {
	var m format.FilesManifest
	r, err := FileChunks(files, format.FileManifest)
	if err != nil {
		return m, err
	}
	raw := make([]byte, r.Size()) // small; the dumps are what is chunked
	if _, err := r.ReadAt(raw, 0); err != nil {
		return m, err
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, fmt.Errorf("%w: files manifest: %v", format.ErrCorrupt, err)
	}
	return m, nil
}

// fileChunks collects the chunks of file name from the files bucket, for
// File and for Check. They are numbered 0, 1, ... without gaps; a gap is
// corruption, not the end of the file, or a damaged index would serve a
// truncated download as if it were whole. No chunks at all is ErrNoFile.
func FileChunks(files *bolt.Bucket, name string) (*chunkReader, error) {
	r := &chunkReader{}
	// A name holds no zero byte, so every key starting with name and the
	// zero separator is a chunk of this file (see format.FileChunkKey),
	// and they are contiguous from chunk 0 on. One of them that does not
	// parse is a damaged chunk of this file, not the start of another; the
	// seek is to the prefix rather than to chunk 0 so that a damaged key
	// sorting before chunk 0 is met too.
	prefix := format.FileChunkKey(name, 0)[:len(name)+1]
	cur := files.Cursor()
	for k, v := cur.Seek(prefix); bytes.HasPrefix(k, prefix); k, v = cur.Next() {
		_, i, err := format.ParseFileChunkKey(k) // with the prefix, parsed is of name
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, fmt.Errorf("%w: files key %q is a bucket", format.ErrCorrupt, k)
		}
		if want := len(r.Chunks); int64(i) != int64(want) {
			return nil, fmt.Errorf("%w: file %q: chunk %d where chunk %d was due", format.ErrCorrupt, name, i, want)
		}
		r.Chunks = append(r.Chunks, v)
		r.ends = append(r.ends, r.Size()+int64(len(v)))
	}
	if len(r.Chunks) == 0 {
		return nil, fmt.Errorf("%w: %q", ErrNoFile, name)
	}
	return r, nil
}

// chunkReader reads the concatenation of a file's chunks at any offset
// without joining them: the chunks are slices of the memory map (a dump is
// hundreds of megabytes), valid only inside the read transaction that
// returned them.
type chunkReader struct {
	Chunks [][]byte
	ends   []int64 // ends[i] is the offset just past chunks[i] in the file
}

func (r *chunkReader) Size() int64 {
	if len(r.ends) == 0 {
		return 0
	}
	return r.ends[len(r.ends)-1]
}

// ReadAt implements io.ReaderAt: a binary search finds the chunk holding
// off, then chunks are copied from in turn.
func (r *chunkReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read at negative offset %d", off)
	}
	// The first chunk ending past off; empty chunks end where they start
	// and are never it.
	i := sort.Search(len(r.ends), func(i int) bool { return r.ends[i] > off })
	n := 0
	for ; n < len(p) && i < len(r.Chunks); i++ {
		start := r.ends[i] - int64(len(r.Chunks[i]))
		m := copy(p[n:], r.Chunks[i][off-start:])
		n += m
		off += int64(m)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

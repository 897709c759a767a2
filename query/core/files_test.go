package core

import (
	"errors"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
)

type kv struct{ k, v string }

// chunksOf is the files bucket entries of file name stored as parts.
func chunksOf(name string, parts ...string) []kv {
	out := make([]kv, len(parts))
	for i, p := range parts {
		out[i] = kv{string(format.FileChunkKey(name, uint32(i))), p}
	}
	return out
}

// filesIndex writes a bbolt file holding only a files bucket with the
// given entries and opens it as an Index without Open's checks: there
// are no records, and File reads nothing else.
func filesIndex(t *testing.T, entries ...[]kv) *Index {
	t.Helper()
	path := filepath.Join(t.TempDir(), "files.idx")
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket(format.BucketFiles)
		if err != nil {
			return err
		}
		for _, kvs := range entries {
			for _, e := range kvs {
				if err := b.Put([]byte(e.k), []byte(e.v)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	db, err = bolt.Open(path, 0o444, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &Index{db: db, path: path}
}

// unequal is a file in chunks of unequal sizes, an empty one among them,
// between files whose names it is a prefix of or that are a prefix of it.
var unequal = []string{"abc", "defgh", "", "i", "jklmnopqrstuvw", "xy", "z"}

func unequalIndex(t *testing.T) (*Index, string) {
	return filesIndex(t,
		chunksOf("dump", "before"),
		chunksOf("dump.gz", unequal...),
		chunksOf("dump.gz.old", "after"),
		chunksOf("dump.gzip", "after too"),
	), strings.Join(unequal, "")
}

func TestFileReadsAcrossChunks(t *testing.T) {
	ix, want := unequalIndex(t)
	err := ix.File("dump.gz", func(r io.ReadSeeker, size int64) error {
		if size != int64(len(want)) {
			t.Errorf("size %d, want %d", size, len(want))
		}
		// Read, ReadAt and Seek every which way, against the content.
		if err := iotest.TestReader(r, []byte(want)); err != nil {
			t.Error(err)
		}
		for bufSize := 1; bufSize <= len(want)+1; bufSize++ {
			if _, err := r.Seek(0, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			got, err := readAllBy(r, bufSize)
			if err != nil || string(got) != want {
				t.Errorf("reading by %d: %q, %v; want %q", bufSize, got, err, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// readAllBy reads r to the end with a buffer of n bytes.
func readAllBy(r io.Reader, n int) ([]byte, error) {
	var out []byte
	buf := make([]byte, n)
	for {
		m, err := r.Read(buf)
		out = append(out, buf[:m]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

func TestFileSeek(t *testing.T) {
	ix, _ := unequalIndex(t)
	err := ix.File("dump.gz", func(r io.ReadSeeker, size int64) error {
		for _, step := range []struct {
			offset int64
			whence int
			pos    int64
			read   string
		}{
			{4, io.SeekStart, 4, "efg"},          // inside chunk 1
			{-2, io.SeekCurrent, 5, "fghij"},     // across the empty chunk
			{0, io.SeekCurrent, 10, "klm"},       // where the last read ended
			{-3, io.SeekEnd, size - 3, "xyz"},    // across the last boundary
			{3, io.SeekStart, 3, "defghijklmno"}, // from a chunk's first byte
			{0, io.SeekEnd, size, ""},            // at the end
			{size + 5, io.SeekStart, size + 5, ""},
		} {
			pos, err := r.Seek(step.offset, step.whence)
			if err != nil || pos != step.pos {
				t.Fatalf("Seek(%d, %d) = %d, %v; want %d", step.offset, step.whence, pos, err, step.pos)
			}
			got := make([]byte, len(step.read))
			n, err := io.ReadFull(r, got)
			if err != nil || string(got[:n]) != step.read {
				t.Errorf("after Seek(%d, %d): %q, %v; want %q", step.offset, step.whence, got[:n], err, step.read)
			}
			if step.read == "" {
				if n, err := r.Read(make([]byte, 1)); n != 0 || err != io.EOF {
					t.Errorf("Read at %d: %d, %v; want 0, EOF", pos, n, err)
				}
			}
		}
		if _, err := r.Seek(-1, io.SeekStart); err == nil {
			t.Error("Seek to -1: no error")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestFileReadAt(t *testing.T) {
	ix, want := unequalIndex(t)
	err := ix.File("dump.gz", func(rs io.ReadSeeker, size int64) error {
		r, ok := rs.(io.ReaderAt)
		if !ok {
			t.Fatalf("%T is no io.ReaderAt", rs)
		}
		for off := 0; off <= len(want)+1; off++ {
			for n := 0; n <= len(want)+2-off; n++ {
				p := make([]byte, n)
				got, err := r.ReadAt(p, int64(off))
				rest := want[min(off, len(want)):]
				exp := rest[:min(n, len(rest))]
				if string(p[:got]) != exp {
					t.Errorf("ReadAt(%d bytes, %d) = %q; want %q", n, off, p[:got], exp)
				}
				// At the end, a full read may say EOF too (io.ReaderAt
				// allows it; io.SectionReader does it).
				if short := got < n; short && err != io.EOF || !short && err != nil && err != io.EOF {
					t.Errorf("ReadAt(%d bytes, %d): %d bytes, error %v", n, off, got, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestChunkReaderDirectly(t *testing.T) {
	r := &chunkReader{}
	for _, c := range unequal {
		r.Chunks = append(r.Chunks, []byte(c))
		r.ends = append(r.ends, r.Size()+int64(len(c)))
	}
	if _, err := r.ReadAt(make([]byte, 1), -1); err == nil {
		t.Error("ReadAt at -1: no error")
	}
	p := make([]byte, 9)
	if n, err := r.ReadAt(p, 7); n != 9 || err != nil || string(p) != "hijklmnop" {
		t.Errorf("ReadAt(9 bytes, 7) = %d %q %v", n, p[:n], err)
	}
	if n, err := (&chunkReader{}).ReadAt(p, 0); n != 0 || err != io.EOF {
		t.Errorf("no chunks: %d, %v", n, err)
	}
}

func TestFileEmpty(t *testing.T) {
	ix := filesIndex(t, chunksOf("empty", ""), chunksOf("empty.x", "not this"))
	err := ix.File("empty", func(r io.ReadSeeker, size int64) error {
		if size != 0 {
			t.Errorf("size %d", size)
		}
		if n, err := r.Read(make([]byte, 4)); n != 0 || err != io.EOF {
			t.Errorf("Read: %d, %v; want 0, EOF", n, err)
		}
		if pos, err := r.Seek(0, io.SeekEnd); pos != 0 || err != nil {
			t.Errorf("Seek to the end: %d, %v", pos, err)
		}
		return iotest.TestReader(r, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := ix.FileBytes("empty"); err != nil || len(b) != 0 {
		t.Errorf("FileBytes: %q, %v", b, err)
	}
}

func TestFileBytesJoinsChunks(t *testing.T) {
	ix, want := unequalIndex(t)
	for name, want := range map[string]string{"dump.gz": want, "dump": "before", "dump.gzip": "after too"} {
		if got, err := ix.FileBytes(name); err != nil || string(got) != want {
			t.Errorf("FileBytes(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
}

func TestFileMissingOrDamaged(t *testing.T) {
	gap := chunksOf("gap", "a", "b", "c")
	tests := []struct {
		name    string
		entries [][]kv
		want    error
	}{
		{"absent", [][]kv{chunksOf("other", "x")}, ErrNoFile},
		{"only longer names", [][]kv{chunksOf("gap.gz", "x"), chunksOf("gapx", "y")}, ErrNoFile},
		{"only a shorter name", [][]kv{chunksOf("ga", "x")}, ErrNoFile},
		{"no chunk 0", [][]kv{chunksOf("gap", "a", "b")[1:]}, format.ErrCorrupt},
		{"missing middle chunk", [][]kv{{gap[0], gap[2]}}, format.ErrCorrupt},
		{"malformed chunk key", [][]kv{chunksOf("gap", "a"), {{"gap\x00\x00\x01", "junk"}}}, format.ErrCorrupt},
		{"malformed key before chunk 0", [][]kv{chunksOf("gap", "a"), {{"gap\x00", "junk"}}}, format.ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := filesIndex(t, tt.entries...)
			called := false
			err := ix.File("gap", func(io.ReadSeeker, int64) error { called = true; return nil })
			if !errors.Is(err, tt.want) || called {
				t.Errorf("File: %v (fn called: %v), want %v", err, called, tt.want)
			}
			if _, err := ix.FileBytes("gap"); !errors.Is(err, tt.want) {
				t.Errorf("FileBytes: %v, want %v", err, tt.want)
			}
		})
	}
}

// TestFileReadsInPlace: File hands out the mapped chunks; it does not
// gather them into a buffer of the file's size.
func TestFileReadsInPlace(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 1<<14) // 256 KiB
	ix := filesIndex(t, chunksOf("big", big, big, big, big))
	p := make([]byte, 10)
	read := func() {
		err := ix.File("big", func(r io.ReadSeeker, size int64) error {
			_, err := r.(io.ReaderAt).ReadAt(p, size-5-int64(len(p)))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	read() // warm up
	const runs = 8
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		read()
	}
	runtime.ReadMemStats(&after)
	if perRun := (after.TotalAlloc - before.TotalAlloc) / runs; perRun > 64<<10 {
		t.Errorf("File allocated %d bytes per call for a file of %d", perRun, 4*len(big))
	}
	if string(p) != "123456789a" {
		t.Errorf("read %q", p)
	}
}

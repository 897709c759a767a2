package pagetree

import (
	"bytes"
	"fmt"
	"io"

	"stationdex/internal/format"
)

// page is a page of the tree as the walk reads it, overflow pages
// included. Walking bytes in memory (Walk without a file), data is all of
// it. Walking a file, data is what the walker's window holds of it, its
// first pageSize bytes, and the rest of a page with overflow pages is read
// on demand, element by element: a walk that does not sum a large value
// never copies it. No page is touched through a mapping: on the virtual
// machines this runs on, touching the pages of a 6.6 GB file in the page
// cache cost about 1.4 us each even with the mapping populated (and a
// fault, which maps 16 pages, about 20 us), against 0.4 us per 4 KiB read
// with pread in large reads.
type page struct {
	data []byte
	size uint64      // the page's length
	at   int64       // its offset in the file; -1 for an inline bucket
	file io.ReaderAt // nil: data is all of the page
}

// bytes returns the n bytes at off of p, which the caller has checked lie
// inside it (inside, elements). They are read from the file when past
// data; a short read means the file shrank under the walk: damage.
func (p page) bytes(off, n uint64) ([]byte, error) {
	if end := off + n; end <= uint64(len(p.data)) {
		return p.data[off:end:end], nil
	}
	b := make([]byte, n)
	if _, err := p.file.ReadAt(b, p.at+int64(off)); err != nil {
		return nil, fmt.Errorf("%w: reading %d bytes at offset %d: %v", format.ErrCorrupt, n, p.at+int64(off), err)
	}
	return b, nil
}

// readPage reads the first page at page id: from the mapping when
// walking bytes in memory, else through the walker's window on the file.
// Read from the file, the page's bytes are good until the next readPage:
// claimPage copies a branch page's out, as its children are walked while
// it is in use, and a leaf's are used before the walk reads on.
func (w *pageWalker) readPage(id uint64) (page, error) {
	off := id * w.pageSize
	if w.file == nil {
		data, err := w.read(off, w.pageSize)
		return page{data: data, size: w.pageSize, at: int64(off)}, err
	}
	data, err := w.window(off, w.pageSize)
	if err != nil {
		return page{}, fmt.Errorf("%w: reading page %d: %v", format.ErrCorrupt, id, err)
	}
	return page{data: data, size: w.pageSize, at: int64(off), file: w.file}, nil
}

// windowSize is how much of the file one read brings in for the walk: a
// bucket's small pages lie mostly in a row, and a read costs far more than
// the copy of its bytes (a system call is several microseconds on the
// virtual machines this runs on, a copy of 4 KiB a fraction of one).
const windowSize = 64 << 10

// window returns the n bytes at off of the file, from the walker's window
// when they lie inside it, else from a new read into it starting at off:
// of a whole window, or of n bytes alone after a page with overflow pages
// (whose successor in the walk lies past its value, so a window would
// copy bytes of the value the walk does not read). The window is reused:
// what it returns is good until the next call.
func (w *pageWalker) window(off, n uint64) ([]byte, error) {
	if off >= w.winAt && off+n <= w.winAt+uint64(len(w.win)) {
		at := off - w.winAt
		return w.win[at : at+n : at+n], nil
	}
	size := n
	if !w.afterOverflow {
		size = max(windowSize, n)
	}
	size = min(size, w.size-off)
	if size < n {
		return nil, fmt.Errorf("%d bytes at offset %d are past the end of the file", n, off)
	}
	if uint64(cap(w.win)) < size {
		w.win = make([]byte, max(size, windowSize))
	}
	w.win, w.winAt = w.win[:size], off
	if _, err := w.file.ReadAt(w.win, int64(off)); err != nil {
		w.win = w.win[:0]
		return nil, err
	}
	return w.win[:n:n], nil
}

// inline is a bucket's inline page: all in its parent's value.
func inline(data []byte) page { return page{data: data, size: uint64(len(data)), at: -1} }

// elements checks that count elements fit p and returns their table.
func elements(p page, count uint16) ([]byte, error) {
	n := boltElement * uint64(count)
	if boltPageHeader+n > p.size {
		return nil, fmt.Errorf("%w: %d elements do not fit a page of %d bytes", format.ErrCorrupt, count, p.size)
	}
	return p.bytes(boltPageHeader, n)
}

// inside returns the n bytes at pos from the element at elem (an offset
// in p), which must lie inside p.
func inside(p page, elem, pos, n uint64) ([]byte, error) {
	if err := within(p, elem, pos, n); err != nil {
		return nil, err
	}
	return p.bytes(elem+pos, n)
}

// within checks that the n bytes at pos from the element at elem lie
// inside p.
func within(p page, elem, pos, n uint64) error {
	span := p.size
	if pos > span || elem+pos > span || n > span-elem-pos {
		return fmt.Errorf("%w: element data at %d+%d (%d bytes) outside its page of %d bytes", format.ErrCorrupt, elem, pos, n, span)
	}
	return nil
}

// A Span is a value of a bucket as the walk found it: its key and where
// the value lies in the file.
type Span struct {
	Key []byte
	Off uint64
	Len int
}

// noteLarge notes where a large value lies, for Tree.Large: a reader that
// wants such values by key (the record blocks, located by number) finds
// them without reading the leaf pages that hold their keys again.
func (w *pageWalker) noteLarge(bucket, key []byte, off int64, n uint64) {
	w.noteSpans(string(bucket), []Span{{Key: bytes.Clone(key), Off: uint64(off), Len: int(n)}})
}

func (w *pageWalker) noteSpans(bucket string, spans []Span) {
	if w.large == nil {
		w.large = map[string][]Span{}
	}
	w.large[bucket] = append(w.large[bucket], spans...)
}

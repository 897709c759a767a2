// Package extsort sorts key/value records by key when there are more of them
// than memory should hold. Records are buffered up to a byte budget; a full
// buffer is sorted and written to a temporary file as a run; reading merges
// the runs and whatever is still buffered. Below the budget nothing touches
// the disk.
//
// The sort is stable: records with equal keys come out in the order they
// were added. Together with a deterministic merge this makes the output a
// function of the input alone, whatever the budget and however many runs it
// took, which the indexer relies on for reproducible index files.
//
// File map:
//   - extsort.go: the Sorter: records buffered in chunks up to the budget,
//     sorted and spilled as runs, and the compaction that merges old runs
//     down to what one merge reads at once
//   - iter.go: the Iterator, the stable merge of the runs and the buffer
//     by a heap of sources
package extsort

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// chunkSize is the allocation unit of the buffer. Chunks are reused after a
// run is written, so a sorter's memory stays at its budget instead of
// growing by doubling (which would briefly need half as much again).
const chunkSize = 1 << 20

// recOverhead is what a buffered record costs besides its bytes: its entry
// in the index of the buffer (rec). It counts against the budget so that
// many tiny records cannot blow it.
const recOverhead = 24

// maxFanIn bounds the runs merged at once; each open run holds a read
// buffer. With more runs, the oldest are first merged into one.
const maxFanIn = 64

// runBuffer is the read and write buffer of one run file.
const runBuffer = 64 << 10

// Sorter collects records and yields them sorted by key. It is not safe for
// concurrent use.
type Sorter struct {
	dir     string
	budget  int
	chunks  [][]byte // buffered record bytes; chunks[len-1] is being filled
	spare   [][]byte // emptied chunks, for reuse
	recs    []rec    // the buffered records, in the order added
	used    int      // bytes of the budget in use
	sorted  bool     // recs are sorted (no Add since the last sort)
	runs    []string // run files, oldest first
	added   int64
	reading bool // Iter was called; Add is no longer allowed
}

// rec locates a buffered record: key then value, contiguous in a chunk.
// prefix is the key's first bytes (keyPrefix), which decide most
// comparisons of the sort without reading the chunks.
type rec struct {
	prefix     uint64
	chunk      uint32
	off        uint32
	klen, vlen uint32
}

// keyPrefix is the first 8 bytes of key as a big-endian number, padded
// with zeros. Keys whose prefixes differ compare as their prefixes do;
// keys with equal prefixes must be compared in full.
func keyPrefix(key []byte) uint64 {
	if len(key) >= 8 {
		return binary.BigEndian.Uint64(key)
	}
	var b [8]byte
	copy(b[:], key)
	return binary.BigEndian.Uint64(b[:])
}

// New returns a sorter that keeps at most about budget bytes of records in
// memory and writes runs to files in dir.
func New(dir string, budget int) *Sorter {
	return &Sorter{dir: dir, budget: max(budget, chunkSize)}
}

// ErrTooLarge: a single record larger than this package handles.
var ErrTooLarge = errors.New("extsort: record too large")

// Add buffers one record, writing a run first if the buffer is full. The
// sorter copies key and value.
func (s *Sorter) Add(key, value []byte) error {
	if s.reading {
		return errors.New("extsort: Add after Iter")
	}
	size := len(key) + len(value)
	if size > 1<<30 {
		return ErrTooLarge
	}
	if s.used+size+recOverhead > s.budget && len(s.recs) > 0 {
		if err := s.Flush(); err != nil {
			return err
		}
	}
	c := s.room(size)
	off := len(s.chunks[c])
	buf := append(s.chunks[c], key...)
	s.chunks[c] = append(buf, value...)
	s.recs = append(s.recs, rec{keyPrefix(key), uint32(c), uint32(off), uint32(len(key)), uint32(len(value))})
	s.used += size + recOverhead
	s.sorted = false
	s.added++
	return nil
}

// room returns the index of a chunk with size bytes free.
func (s *Sorter) room(size int) int {
	if n := len(s.chunks); n > 0 && cap(s.chunks[n-1])-len(s.chunks[n-1]) >= size {
		return n - 1
	}
	var c []byte
	if size <= chunkSize && len(s.spare) > 0 {
		c, s.spare = s.spare[len(s.spare)-1], s.spare[:len(s.spare)-1]
	} else {
		c = make([]byte, 0, max(chunkSize, size))
	}
	s.chunks = append(s.chunks, c)
	return len(s.chunks) - 1
}

// Len is the number of records added.
func (s *Sorter) Len() int64 { return s.added }

// Runs is the number of runs written so far.
func (s *Sorter) Runs() int { return len(s.runs) }

func (s *Sorter) key(r rec) []byte {
	return s.chunks[r.chunk][r.off : r.off+r.klen]
}

func (s *Sorter) value(r rec) []byte {
	start := r.off + r.klen
	return s.chunks[r.chunk][start : start+r.vlen]
}

// sortBuffer sorts the buffered records by key, equal keys in the order
// they were added. That order is also the order of their place in the
// buffer (room fills chunks in turn and appends new ones), so an unstable
// sort that breaks ties by place gives the same result as a stable sort,
// and takes O(n log n) comparisons instead of a stable merge's n log² n.
//
// The prefixes are sorted by an in-place radix sort, a byte at a time from
// the first; a bucket that is small, or whose records share all eight
// bytes, is finished by comparison (tied). At 5M stations the sorts took
// 10.9 CPU-seconds of the build by comparison alone and 4.2 so, most of
// them on the goroutines the read waits for (the decoders' posting
// flushes, the records' sorter).
func (s *Sorter) sortBuffer() {
	if !s.sorted {
		s.radixSort(s.recs, 56)
		s.sorted = true
	}
}

// minRadixBucket is the size below which a bucket is sorted by comparison:
// a counting pass over 256 digits costs more than sorting so few.
const minRadixBucket = 32

// radixSort sorts recs, whose prefixes agree above bit shift+8, by their
// prefixes from bit shift down (American flag sort: count the bucket of
// each record by its byte, swap every record into its bucket, then each
// bucket by the next byte), and records of equal prefixes by tied.
func (s *Sorter) radixSort(recs []rec, shift int) {
	for {
		if len(recs) < minRadixBucket || shift < 0 {
			s.tied(recs, shift < 0)
			return
		}
		var count [256]int
		for i := range recs {
			count[byte(recs[i].prefix>>shift)]++
		}
		if count[byte(recs[0].prefix>>shift)] == len(recs) {
			shift -= 8 // one byte for all: on to the next, in place of a call
			continue
		}
		var next, end [256]int
		at := 0
		for d, n := range count {
			next[d] = at
			at += n
			end[d] = at
		}
		for d := range 256 {
			for next[d] < end[d] {
				r := recs[next[d]]
				for b := int(byte(r.prefix >> shift)); b != d; b = int(byte(r.prefix >> shift)) {
					r, recs[next[b]] = recs[next[b]], r
					next[b]++
				}
				recs[next[d]] = r
				next[d]++
			}
		}
		start := 0
		for d := range 256 {
			if end[d]-start > 1 {
				s.radixSort(recs[start:end[d]], shift-8)
			}
			start = end[d]
		}
		return
	}
}

// tied sorts records whose prefixes agree above what the radix sort has
// ordered: by prefix, then key, then their place in the buffer (the order
// they were added); same says the prefixes are all equal already.
func (s *Sorter) tied(recs []rec, same bool) {
	slices.SortFunc(recs, func(a, b rec) int {
		if !same && a.prefix != b.prefix {
			return cmp.Compare(a.prefix, b.prefix)
		}
		if c := bytes.Compare(s.key(a), s.key(b)); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.chunk, b.chunk), cmp.Compare(a.off, b.off))
	})
}

// Flush writes the buffered records as a run and empties the buffer. Callers
// that buffer records of their own use it to bound memory in step with
// their own flushes; Add calls it when the buffer is full.
func (s *Sorter) Flush() error {
	if len(s.recs) == 0 {
		return nil
	}
	s.sortBuffer()
	name, err := s.writeRun(&memSource{s: s})
	if err != nil {
		return err
	}
	s.runs = append(s.runs, name)
	s.reset()
	return nil
}

// reset empties the buffer, keeping its chunks for reuse.
func (s *Sorter) reset() {
	for _, c := range s.chunks {
		if cap(c) == chunkSize {
			s.spare = append(s.spare, c[:0])
		}
	}
	clear(s.chunks) // an oversized chunk is not reused: let it go
	s.chunks, s.recs, s.used = s.chunks[:0], s.recs[:0], 0
}

// writeRun writes everything src yields to a new run file and returns its
// name.
func (s *Sorter) writeRun(src source) (name string, err error) {
	f, err := os.CreateTemp(s.dir, "run-*")
	if err != nil {
		return "", fmt.Errorf("extsort: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("extsort: %w", cerr)
		}
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	w := bufio.NewWriterSize(f, runBuffer)
	var hdr [2 * binary.MaxVarintLen32]byte
	for src.next() {
		k, v := src.key(), src.value()
		n := binary.PutUvarint(hdr[:], uint64(len(k)))
		n += binary.PutUvarint(hdr[n:], uint64(len(v)))
		w.Write(hdr[:n])
		w.Write(k)
		if _, err := w.Write(v); err != nil {
			return "", fmt.Errorf("extsort: %w", err)
		}
	}
	if err := src.err(); err != nil {
		return "", err
	}
	if err := w.Flush(); err != nil {
		return "", fmt.Errorf("extsort: %w", err)
	}
	return f.Name(), nil
}

// Iter returns an iterator over all records added, sorted by key. After
// the first call no more records may be added; Iter may be called again
// for another pass over the same records.
func (s *Sorter) Iter() (*Iterator, error) {
	s.reading = true
	if err := s.compact(); err != nil {
		return nil, err
	}
	s.sortBuffer()
	srcs := make([]source, 0, len(s.runs)+1)
	it := &Iterator{}
	for _, name := range s.runs {
		r, err := openRun(name)
		if err != nil {
			it.srcs = srcs
			it.Close()
			return nil, err
		}
		srcs = append(srcs, r)
	}
	srcs = append(srcs, &memSource{s: s}) // last: added after every run
	it.srcs = srcs
	it.start()
	return it, nil
}

// Compact merges the runs written so far down to as many as Iter merges
// at once, which Iter would otherwise do first. After it, as after Iter, no
// more records may be added. A caller with a core to spare calls it ahead
// of Iter, so that Iter starts at once.
func (s *Sorter) Compact() error {
	s.reading = true
	return s.compact()
}

// compact merges runs until at most maxFanIn remain. Each run is merged
// at most once: groups of consecutive runs (so that equal keys keep the
// order added), oldest first, each into one run, as compactionPlan says.
// Merging the oldest maxFanIn into one and that one again with the next
// ones, until few enough were left, rewrote the oldest records once per
// merge: at millions of records, several times the sorter's data, on one
// core. The groups are independent, so they are merged on every core
// (mergeGroups).
func (s *Sorter) compact() error {
	plan := compactionPlan(len(s.runs))
	groups := make([][]string, len(plan))
	rest := s.runs
	for i, n := range plan {
		groups[i], rest = rest[:n], rest[n:]
	}
	merged, err := s.mergeGroups(groups)
	runs := make([]string, 0, len(merged)+len(rest))
	for i, name := range merged {
		if name == "" { // not merged: its runs stay
			runs = append(runs, groups[i]...)
			continue
		}
		runs = append(runs, name)
	}
	s.runs = append(runs, rest...)
	return err
}

// mergeGroups merges each group of runs into one (mergeRuns), at most as
// many at once as there are cores, and returns the merged runs' names in
// the groups' order: "" for a group not merged, after an error.
func (s *Sorter) mergeGroups(groups [][]string) ([]string, error) {
	merged := make([]string, len(groups))
	errs := make([]error, len(groups))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(groups)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(groups); i = int(next.Add(1) - 1) {
				merged[i], errs[i] = s.mergeRuns(groups[i])
			}
		})
	}
	wg.Wait()
	return merged, errors.Join(errs...)
}

// compactionPlan returns the sizes of the groups of consecutive runs,
// oldest first, to merge into one run each so that of runs at most
// maxFanIn remain: full groups of maxFanIn, and a last one just large
// enough, so that as few records as possible are rewritten.
func compactionPlan(runs int) []int {
	var plan []int
	for excess := runs - maxFanIn; excess > 0; {
		n := min(maxFanIn, excess+1) // merging n runs into one removes n-1
		plan = append(plan, n)
		excess -= n - 1
	}
	return plan
}

// mergeRuns merges the runs names into a new run, removes them, and
// returns the new run's name.
func (s *Sorter) mergeRuns(names []string) (string, error) {
	srcs := make([]source, 0, len(names))
	for _, name := range names {
		r, err := openRun(name)
		if err != nil {
			closeAll(srcs)
			return "", err
		}
		srcs = append(srcs, r)
	}
	m := &Iterator{srcs: srcs}
	m.start()
	merged, err := s.writeRun(m)
	closeAll(srcs)
	if err != nil {
		return "", err
	}
	for _, name := range names {
		os.Remove(name)
	}
	return merged, nil
}

// Close removes the run files and releases the buffer.
func (s *Sorter) Close() error {
	var errs []error
	for _, name := range s.runs {
		if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	s.runs, s.chunks, s.spare, s.recs = nil, nil, nil, nil
	return errors.Join(errs...)
}

// source is one sorted input of a merge.
type source interface {
	next() bool
	key() []byte
	value() []byte
	err() error
	close() error
}

// closeAll releases the runs of an abandoned or finished merge; their files
// are temporary, so a failed close loses nothing.
func closeAll(srcs []source) {
	for _, src := range srcs {
		_ = src.close()
	}
}

// memSource yields the sorted buffer.
type memSource struct {
	s *Sorter
	i int // 1 + index of the current record
}

func (m *memSource) next() bool {
	m.i++
	return m.i <= len(m.s.recs)
}
func (m *memSource) key() []byte   { return m.s.key(m.s.recs[m.i-1]) }
func (m *memSource) value() []byte { return m.s.value(m.s.recs[m.i-1]) }
func (m *memSource) err() error    { return nil }
func (m *memSource) close() error  { return nil }

// runSource reads a run file.
type runSource struct {
	f    *os.File
	r    *bufio.Reader
	buf  []byte // key then value of the current record
	klen int
	e    error
}

func openRun(name string) (*runSource, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("extsort: %w", err)
	}
	return &runSource{f: f, r: bufio.NewReaderSize(f, runBuffer)}, nil
}

func (r *runSource) next() bool {
	if r.e != nil {
		return false
	}
	klen, err := binary.ReadUvarint(r.r)
	if err == io.EOF {
		return false
	}
	vlen, err2 := binary.ReadUvarint(r.r)
	if err = errors.Join(err, err2); err != nil || klen+vlen > 1<<30 {
		r.e = fmt.Errorf("extsort: damaged run %s: %v", r.f.Name(), err)
		return false
	}
	n := int(klen + vlen)
	if cap(r.buf) < n {
		r.buf = make([]byte, n)
	}
	r.buf, r.klen = r.buf[:n], int(klen)
	if _, err := io.ReadFull(r.r, r.buf); err != nil {
		r.e = fmt.Errorf("extsort: damaged run %s: %v", r.f.Name(), err)
		return false
	}
	return true
}

func (r *runSource) key() []byte   { return r.buf[:r.klen] }
func (r *runSource) value() []byte { return r.buf[r.klen:] }
func (r *runSource) err() error    { return r.e }
func (r *runSource) close() error  { return r.f.Close() }

package extsort

import (
	"bytes"
	"container/heap"
)

// Iterator merges sorted sources. Among equal keys, the source added first
// (the older run) comes first, which keeps the sort stable.
type Iterator struct {
	srcs []source
	h    mergeHeap
	cur  int // index in srcs of the current record; -1 before the first
	e    error
}

func (it *Iterator) start() {
	it.cur = -1
	it.h = mergeHeap{srcs: it.srcs, prefix: make([]uint64, len(it.srcs))}
	for i, src := range it.srcs {
		if src.next() {
			it.h.prefix[i] = keyPrefix(src.key())
			it.h.idx = append(it.h.idx, i)
		} else if err := src.err(); err != nil {
			it.e = err
		}
	}
	heap.Init(&it.h)
}

// Next moves to the next record in key order; false at the end or on an
// error (see Err).
func (it *Iterator) Next() bool {
	if it.e != nil {
		return false
	}
	if it.cur >= 0 {
		// Advance the source of the record just consumed, then restore
		// the heap; its key is only valid until now.
		src := it.srcs[it.cur]
		if src.next() {
			it.h.prefix[it.cur] = keyPrefix(src.key())
			heap.Fix(&it.h, 0)
		} else {
			if err := src.err(); err != nil {
				it.e = err
				return false
			}
			heap.Pop(&it.h)
		}
	}
	if len(it.h.idx) == 0 {
		it.cur = -1
		return false
	}
	it.cur = it.h.idx[0]
	return true
}

// Key is the current record's key, valid until the next call to Next.
func (it *Iterator) Key() []byte { return it.srcs[it.cur].key() }

// Value is the current record's value, valid until the next call to Next.
func (it *Iterator) Value() []byte { return it.srcs[it.cur].value() }

// Err is the error that ended iteration early, if any.
func (it *Iterator) Err() error { return it.e }

// Close releases the iterator's files.
func (it *Iterator) Close() error {
	var first error
	for _, src := range it.srcs {
		if err := src.close(); err != nil && first == nil {
			first = err
		}
	}
	it.srcs, it.h.idx = nil, nil
	return first
}

// The iterator is itself a source, so that compaction can write a merge
// as a run.
func (it *Iterator) next() bool    { return it.Next() }
func (it *Iterator) key() []byte   { return it.Key() }
func (it *Iterator) value() []byte { return it.Value() }
func (it *Iterator) err() error    { return it.e }
func (it *Iterator) close() error  { return it.Close() }

// mergeHeap orders source indexes by their current key, then by index.
// prefix holds each source's current key's prefix (keyPrefix), which
// decides most comparisons without reading the keys.
type mergeHeap struct {
	srcs   []source
	prefix []uint64
	idx    []int
}

func (h *mergeHeap) Len() int { return len(h.idx) }
func (h *mergeHeap) Less(i, j int) bool {
	a, b := h.idx[i], h.idx[j]
	if pa, pb := h.prefix[a], h.prefix[b]; pa != pb {
		return pa < pb
	}
	if c := bytes.Compare(h.srcs[a].key(), h.srcs[b].key()); c != 0 {
		return c < 0
	}
	return a < b
}
func (h *mergeHeap) Swap(i, j int) { h.idx[i], h.idx[j] = h.idx[j], h.idx[i] }
func (h *mergeHeap) Push(x any)    { h.idx = append(h.idx, x.(int)) }
func (h *mergeHeap) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}

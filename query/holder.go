package query

import (
	"sync"
	"sync/atomic"
)

// Source hands out the index to serve from; Holder implements it. Acquire
// returns the current index and a release function that must be called once
// the caller is done with it; a nil index means none is loaded yet.
type Source interface {
	Acquire() (*Index, func())
}

// Holder holds the index being served and lets a new snapshot replace it
// while requests are running: each request acquires the current index and
// releases it when done, and a replaced index is closed only after its last
// reader has released it (closing unmaps the file that in-flight bitmaps
// point into). Safe for concurrent use.
type Holder struct {
	mu  sync.Mutex
	cur *lease
}

// lease counts the readers of one index.
type lease struct {
	ix      *Index
	readers int
	retired bool // no longer current: close when readers reaches zero
}

// NewHolder returns a Holder serving ix; ix may be nil (nothing to serve yet).
func NewHolder(ix *Index) *Holder {
	h := &Holder{}
	if ix != nil {
		h.cur = &lease{ix: ix}
		go warm(ix)
	}
	return h
}

// warm builds, in the background, what an index otherwise builds on its
// first faceted or misspelt search (Index.Warm). Its error is not lost:
// the structure keeps it and the first search that needs it returns it.
// Closing the index meanwhile waits for the warm-up's read transaction.
func warm(ix *Index) { _ = ix.Warm() }

// Acquire returns the current index and the function that releases it,
// which must be called exactly once when the caller no longer uses the
// index or anything read from it inside a call. With no index it returns
// nil and a no-op release.
func (h *Holder) Acquire() (*Index, func()) {
	h.mu.Lock()
	l := h.cur
	if l != nil {
		l.readers++
	}
	h.mu.Unlock()
	if l == nil {
		return nil, func() {}
	}
	var done atomic.Bool
	return l.ix, func() {
		if done.CompareAndSwap(false, true) {
			h.release(l)
		}
	}
}

func (h *Holder) release(l *lease) {
	h.mu.Lock()
	l.readers--
	closeNow := l.retired && l.readers == 0
	h.mu.Unlock()
	if closeNow {
		closeRetired(l.ix)
	}
}

// Swap installs ix (nil: serve nothing) as the current index. The previous
// one is closed at once if idle, else by its last reader's release.
// Swapping in the index already current changes nothing.
func (h *Holder) Swap(ix *Index) {
	var next *lease
	if ix != nil {
		next = &lease{ix: ix}
	}
	h.mu.Lock()
	old := h.cur
	if old != nil && old.ix == ix {
		h.mu.Unlock()
		return
	}
	if ix != nil {
		go warm(ix)
	}
	h.cur = next
	closeNow := false
	if old != nil {
		old.retired = true
		closeNow = old.readers == 0
	}
	h.mu.Unlock()
	if closeNow {
		closeRetired(old.ix)
	}
}

// Close stops serving: the current index is closed once idle. Later
// Acquire calls return nil.
func (h *Holder) Close() { h.Swap(nil) }

// closeRetired closes an index nobody can reach any more. A failing close
// of a read-only mapping leaves nothing to recover and no caller to tell:
// the index is gone from service either way.
func closeRetired(ix *Index) { _ = ix.Close() }

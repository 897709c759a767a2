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
	// withdrawn is told of an index withdrawn because its copied
	// buckets failed their sums (prepare); nil: nobody.
	withdrawn func(ix *Index, err error)
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
		go h.prepare(ix)
	}
	return h
}

// OnWithdrawn names the function told when an index is withdrawn because
// its copied buckets failed their sums (see prepare). Set it before the
// index it concerns is swapped in.
func (h *Holder) OnWithdrawn(fn func(ix *Index, err error)) {
	h.mu.Lock()
	h.withdrawn = fn
	h.mu.Unlock()
}

// prepare finishes, in the background, what opening ix left undone: the
// sums of the buckets OpenServing leaves unread (Index.VerifyCopied: nothing
// for an index Open verified whole), withdrawing ix if they fail, then what
// ix otherwise builds on its first faceted or misspelt search (Index.Warm).
// One task after the other: the first answers of a node that has just
// started share the machine with one of them at a time. A warm-up error is
// not lost: the structure keeps it and the first search that needs it
// returns it. Closing the index meanwhile waits for the warm-up's read
// transaction.
func (h *Holder) prepare(ix *Index) {
	if err := ix.VerifyCopied(); err != nil {
		if h.Withdraw(ix) {
			h.mu.Lock()
			fn := h.withdrawn
			h.mu.Unlock()
			if fn != nil {
				fn(ix, err)
			}
		}
		return
	}
	_ = ix.Warm()
}

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
func (h *Holder) Swap(ix *Index) { h.swap(ix, nil) }

// Withdraw stops serving ix, as Swap(nil) does, if it is still the current
// index (a reload may have replaced it meanwhile), and reports whether it
// was.
func (h *Holder) Withdraw(ix *Index) bool { return ix != nil && h.swap(nil, ix) }

// swap installs ix in place of the current index, or of only that index
// when only is not nil, and reports whether it did.
func (h *Holder) swap(ix, only *Index) bool {
	var next *lease
	if ix != nil {
		next = &lease{ix: ix}
	}
	h.mu.Lock()
	old := h.cur
	if old != nil && old.ix == ix || only != nil && (old == nil || old.ix != only) {
		h.mu.Unlock()
		return false
	}
	if ix != nil {
		go h.prepare(ix)
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
	return true
}

// Close stops serving: the current index is closed once idle. Later
// Acquire calls return nil.
func (h *Holder) Close() { h.Swap(nil) }

// closeRetired closes an index nobody can reach any more. A failing close
// of a read-only mapping leaves nothing to recover and no caller to tell:
// the index is gone from service either way.
func closeRetired(ix *Index) { _ = ix.Close() }

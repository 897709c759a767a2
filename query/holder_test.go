package query

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestHolderEmpty(t *testing.T) {
	h := NewHolder(nil)
	ix, release := h.Acquire()
	if ix != nil {
		t.Fatal("empty holder returned an index")
	}
	release()
	h.Close()
}

// TestHolderClosesOnlyAfterLastRelease: a swapped-out index keeps serving
// the request that holds it, and is closed when that request releases it.
func TestHolderClosesOnlyAfterLastRelease(t *testing.T) {
	small(t)
	old, err := Open(smallPath)
	if err != nil {
		t.Fatal(err)
	}
	next, err := Open(smallPath)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHolder(old)
	ix, release := h.Acquire()
	h.Swap(next)
	if _, err := ix.Search(Query{Q: "jazz", Limit: 5}); err != nil {
		t.Fatalf("swapped-out index closed while still held: %v", err)
	}
	if cur, r := h.Acquire(); cur != next {
		t.Error("Acquire after Swap did not return the new index")
	} else {
		r()
	}
	release()
	release() // a second release must not close anything twice or go negative
	if _, err := ix.Search(Query{Q: "jazz", Limit: 5}); err == nil {
		t.Error("swapped-out index still open after its last release")
	}
	h.Close()
	if cur, r := h.Acquire(); cur != nil {
		t.Error("Acquire after Close returned an index")
	} else {
		r()
	}
}

// TestHolderConcurrentSwaps runs searches while snapshots are swapped
// underneath; under -race it also checks the reference counting.
func TestHolderConcurrentSwaps(t *testing.T) {
	small(t)
	first, err := Open(smallPath)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHolder(first)
	var stop atomic.Bool
	var searches atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				searchOnce(t, h)
				searches.Add(1)
			}
		})
	}
	for range 50 {
		ix, err := Open(smallPath)
		if err != nil {
			t.Fatal(err)
		}
		h.Swap(ix)
		waitForSearches(&searches, 4) // let readers hold each snapshot
	}
	stop.Store(true)
	wg.Wait()
	h.Close()
	if searches.Load() == 0 {
		t.Error("no search ran")
	}
}

func waitForSearches(n *atomic.Int64, more int64) {
	target := n.Load() + more
	for deadline := time.Now().Add(5 * time.Second); n.Load() < target && time.Now().Before(deadline); {
		runtime.Gosched()
	}
}

func searchOnce(t *testing.T, h *Holder) {
	ix, release := h.Acquire()
	defer release()
	if ix == nil {
		t.Error("holder empty during swaps")
		return
	}
	res, err := ix.Search(Query{Q: "radio", Limit: 3})
	if err != nil || res.Total != 6 {
		t.Errorf("search during swap: total %d, %v", res.Total, err)
	}
}

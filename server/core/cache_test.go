package core

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// testIndex stands in for a snapshot: the cache compares indexes only
// by identity.
type testIndex struct {
	Index
	name string
}

// TestCacheHitsFromManyGoroutines: hits, stores, variants and a purge
// from many goroutines at once (run under -race by make test) leave the
// accounting whole: the size is the sum of what is held, within the
// bound, and every hit returns the entity stored under its key.
func TestCacheHitsFromManyGoroutines(t *testing.T) {
	ix := &testIndex{name: "a"}
	body := make([]byte, 100)
	one := EntrySize("k00", &Entity{Body: body})
	c := NewResponseCache(20*one, 1)
	var wg sync.WaitGroup
	var wrong atomic.Int64
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				k := "k" + strconv.Itoa((g*7+i)%40)
				if e := c.Get(ix, k, "t"+k); e != nil {
					if e.Tag != k {
						wrong.Add(1)
					}
					c.AddVariant(ix, k, e, GzipCoding, make([]byte, 3))
					continue
				}
				c.Put(ix, k, "t"+k, &Entity{Body: body, Tag: k})
				if i%500 == 499 && g == 0 {
					c.Purge()
				}
			}
		}()
	}
	wg.Wait()
	if wrong.Load() != 0 {
		t.Errorf("%d hits returned another key's entity", wrong.Load())
	}
	st := c.Stats()
	if st.Bytes > st.MaxBytes || st.Hits == 0 || st.Evictions == 0 {
		t.Errorf("after the run: %+v; want hits, evictions and the size within the bound", st)
	}
	if got := c.heldBytes(); got != st.Bytes {
		t.Errorf("the entries held add up to %d bytes, the count says %d", got, st.Bytes)
	}
}

// BenchmarkCacheHitParallel: the hit path, by key and by request
// target, from every P at once, over a cache of 1,000 entries.
func BenchmarkCacheHitParallel(b *testing.B) {
	ix := &testIndex{name: "a"}
	c := NewResponseCache(DefaultCacheBytes, 1)
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = "/api/stations?q=k" + strconv.Itoa(i)
		c.Put(ix, keys[i], keys[i], &Entity{Body: make([]byte, 512)})
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			k := keys[i%len(keys)]
			if i%2 == 0 {
				if e, _ := c.GetTarget(ix, k); e == nil {
					b.Error("miss by target")
				}
			} else if c.Get(ix, k, k) == nil {
				b.Error("miss by key")
			}
			i++
		}
	})
}

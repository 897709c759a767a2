package core

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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
// bound, and every hit returns the entity stored under its key; in a
// cache of one shard and in one of several.
func TestCacheHitsFromManyGoroutines(t *testing.T) {
	for _, bodySize := range []int{100, 300 << 10} {
		body := make([]byte, bodySize)
		one := EntrySize("k00", &Entity{Body: body})
		bound := 20 * one
		if bodySize > 100 {
			bound = 2 * minShardBytes
		}
		c := NewResponseCache(bound, 1)
		hitsFromManyGoroutines(t, c, body)
		t.Logf("%d shard(s) of %d bytes: %+v", c.shards, c.share, c.Stats())
	}
}

func hitsFromManyGoroutines(t *testing.T, c *responseCache, body []byte) {
	ix := &testIndex{name: "a"}
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
				if e, _ := c.GetTarget(ix, "t"+k); e != nil && e.Tag != k {
					wrong.Add(1)
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

// BenchmarkCacheMixParallel: hot and cold traffic at once from every P,
// as the node meets it with the default admission: half the requests
// are hits by target on 1,000 entries under Zipf (s = 1.1), half are
// searches never seen before, each asked twice in a row (a miss by
// target and by key, declined; then a miss stored, evicting once the
// 64 MB bound is full).
func BenchmarkCacheMixParallel(b *testing.B) {
	ix := &testIndex{name: "a"}
	c := NewResponseCache(DefaultCacheBytes, DefaultCacheMinUses)
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = "/api/stations?q=k" + strconv.Itoa(i)
		c.admit(ix, keys[i])
		c.Put(ix, keys[i], keys[i], &Entity{Body: make([]byte, 2048)})
	}
	var seq [4096]uint16
	z := rand.NewZipf(rand.New(rand.NewPCG(1, 2)), 1.1, 1, uint64(len(keys)-1))
	for i := range seq {
		seq[i] = uint16(z.Uint64())
	}
	var goroutines atomic.Int64
	body := make([]byte, 2048)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		cold := "/api/stations?q=c" + strconv.FormatInt(goroutines.Add(1), 10) + "-"
		i := 0
		for pb.Next() {
			if i%2 == 0 {
				k := keys[seq[(i/2)%len(seq)]]
				if e, _ := c.GetTarget(ix, k); e == nil {
					b.Error("hot miss")
				}
			} else {
				k := cold + strconv.Itoa(i/4)
				if e, _ := c.GetTarget(ix, k); e != nil {
					b.Error("cold hit by target")
				} else if c.Get(ix, k, k) == nil && c.admit(ix, k) {
					c.Put(ix, k, k, &Entity{Body: body})
				}
			}
			i++
		}
	})
}

// TestCacheHitTakesNoGlobalLock: with the lock that makes generations
// held, and every shard but one held (its entries and its targets), hits
// by key and by request target on the free shard's entries still answer,
// from many goroutines at once, with the right entities. A hit that took
// a lock shared by all keys would wait here until the test's deadline,
// which is there only to fail rather than hang.
func TestCacheHitTakesNoGlobalLock(t *testing.T) {
	ix := &testIndex{name: "a"}
	c := NewResponseCache(DefaultCacheBytes, 1)
	g := c.adopt(ix)
	if len(g.shards) < 2 {
		t.Fatalf("the default bound has %d shard(s)", len(g.shards))
	}
	free := &g.shards[0]
	var keys []string // keys whose entry and target are both in the free shard
	for i := 0; len(keys) < 20; i++ {
		k := "/api/stations?q=k" + strconv.Itoa(i)
		if g.shardOf(c.hash(k)) == free {
			keys = append(keys, k)
			c.Put(ix, k, k, &Entity{Body: make([]byte, 100), Tag: k})
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range g.shards {
		if s := &g.shards[i]; s != free {
			s.mu.Lock()
			s.tmu.Lock()
			defer s.mu.Unlock()
			defer s.tmu.Unlock()
		}
	}
	var wrong atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 1000 {
					k := keys[(w+i)%len(keys)]
					e := c.Get(ix, k, k)
					e2, k2 := c.GetTarget(ix, k)
					if e == nil || e.Tag != k || e2 != e || k2 != k {
						wrong.Add(1)
					}
				}
			}()
		}
		wg.Wait()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("hits on one shard waited for locks held on the others or on the whole cache")
	}
	if wrong.Load() != 0 {
		t.Errorf("%d of 8,000 hits missed or returned another key's entity", wrong.Load())
	}
}

// TestCacheHotTargetSurvives: an entry hit only by its request target
// (which moves it to the front only when it has fallen out of the front
// quarter) outlives a stream of 10,000 others put after it, in a cache
// of 100 entries, while every other entry goes, least recently used
// first.
func TestCacheHotTargetSurvives(t *testing.T) {
	ix := &testIndex{name: "a"}
	body := make([]byte, 100)
	one := EntrySize("k100000", &Entity{Body: body}) // every key below has 7 bytes
	c := NewResponseCache(100*one+TargetOverhead+3, 1)
	c.Put(ix, "hot0000", "t/h", &Entity{Body: body})
	for i := range 10_000 {
		if e, k := c.GetTarget(ix, "t/h"); e == nil || k != "hot0000" {
			t.Fatalf("after %d puts the hot entry is gone", i)
		}
		c.Put(ix, "k"+strconv.Itoa(100_000+i), "", &Entity{Body: body})
	}
	if st := c.Stats(); st.Evictions != 10_000-99 || st.Hits != 10_000 {
		t.Errorf("%+v: want %d evictions (every other entry but the last 99) and 10,000 hits", st, 10_000-99)
	}
	if c.Get(ix, "k109901", "") == nil || c.Get(ix, "k109900", "") != nil {
		t.Error("the entries kept are not the most recently put")
	}
}

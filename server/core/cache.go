package core

import (
	"container/list"
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// The response cache: entities (encoded bodies, with their compressed
// variants stored beside them once asked for) keyed by the canonical
// request, the same string their ETag is derived from. It is an LRU with
// byte accounting: every entity counts its key, its bodies and a fixed
// overhead, and the least recently used are evicted until the total is
// within the bound, so no stream of distinct requests can grow it past
// the bound. An entity larger than the bound is never stored.
//
// It holds entities of one snapshot only. Every lookup and store names the
// index the request acquired; the first request on a newly swapped-in index
// empties the cache and makes that index current. Requests still running on
// the index before (the one just replaced) bypass the cache, so a slow old
// request can neither serve nor store a body of the old snapshot, and can
// not make it current again.

// DefaultCacheBytes is the default bound of the response cache.
const DefaultCacheBytes = 64 << 20

// Admission. With minUses 2 (the default) a body is stored only when its
// key was asked for once already, recently: a stream of one-off searches
// (a crawler, cold traffic) then neither evicts the bodies that repeat nor
// pays for copying its own into the cache, while a key asked for twice is
// stored on its second request. "Recently" is a direct-mapped table of
// key hashes, one slot per seenSlotBytes of the bound (at least
// minSeenSlots): a key is forgotten once another lands in its slot, so the
// table remembers about as many keys as the cache could hold several times
// over, in 8 bytes each. With minUses 1 every 200 is stored.
const (
	DefaultCacheMinUses = 2
	seenSlotBytes       = 2 << 10
	minSeenSlots        = 1 << 10
	maxSeenSlots        = 1 << 20
)

// entryOverhead is what an entry costs beyond its key and bodies: the list
// element, the map slot, the entity's header fields. An estimate, on the
// high side, so that many tiny entries cannot exceed the bound.
const entryOverhead = 256

// CacheStats is a snapshot of the response cache's counters.
type CacheStats struct {
	Hits, Misses, Evictions uint64
	Bytes, MaxBytes         int64 // current size, bound
	Entries                 int
	// Declined counts bodies not stored because their key had not been
	// asked for recently (see DefaultCacheMinUses).
	Declined uint64
}

type responseCache struct {
	max     int64
	minUses int
	seed    maphash.Seed

	mu       sync.Mutex
	Current  Index // the snapshot whose entities are held
	previous Index // the one it replaced: bypasses the cache
	entries  map[string]*list.Element
	Targets  map[string]*list.Element // request targets known to name an entry (see aliasLocked)
	lru      list.List                // of *cacheEntry, most recently used first
	size     int64
	seen     []uint64 // admission: hashes of keys asked for once (see DefaultCacheMinUses)

	hits, misses, evictions, declined atomic.Uint64
}

type cacheEntry struct {
	key     string
	e       *Entity
	size    int64
	targets []string // its keys in targets
}

// NewResponseCache returns a cache bounded to max bytes that stores a body
// on the minUses-th request for it (1 or 2); max <= 0 gives a disabled
// cache (every lookup a miss, nothing stored).
func NewResponseCache(max int64, minUses int) *responseCache {
	c := &responseCache{max: max, minUses: minUses, seed: maphash.MakeSeed(),
		entries: map[string]*list.Element{}, Targets: map[string]*list.Element{}}
	if max > 0 && minUses > 1 {
		slots := minSeenSlots
		for int64(slots)*seenSlotBytes < max && slots < maxSeenSlots {
			slots <<= 1
		}
		c.seen = make([]uint64, slots)
	}
	return c
}

// admit tells whether the body of key, just built for ix after a miss,
// is to be stored: always with minUses 1, else when key was asked for
// recently (and then it is forgotten, being stored).
func (c *responseCache) admit(ix Index, key string) bool {
	if !c.enabled() {
		return false
	}
	if c.seen == nil {
		return true
	}
	h := maphash.String(c.seed, key) | 1 // 0 marks an empty slot
	slot := &c.seen[h&uint64(len(c.seen)-1)]
	c.mu.Lock()
	defer c.mu.Unlock()
	if ix != c.Current {
		return true // put decides (a new snapshot, or a replaced one)
	}
	if *slot == h {
		*slot = 0
		return true
	}
	*slot = h
	c.declined.Add(1)
	return false
}

func (c *responseCache) enabled() bool { return c.max > 0 }

// Get returns the entity stored under key for ix, or nil. When there is
// one, target (the request as sent; "" for none) is remembered as naming
// it, for getTarget.
func (c *responseCache) Get(ix Index, key, target string) *Entity {
	if !c.enabled() {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.adopt(ix) {
		c.misses.Add(1)
		return nil
	}
	el, ok := c.entries[key]
	if !ok {
		c.misses.Add(1)
		return nil
	}
	c.hits.Add(1)
	c.lru.MoveToFront(el)
	e := el.Value.(*cacheEntry).e
	c.aliasLocked(el, target)
	c.evict()
	return e
}

// Request targets. An API resource is named by its request target alone
// (the path and query as sent; no header picks it), so a target that was
// answered with an entry names that entry for the rest of the snapshot.
// Remembering it lets a request be answered before its parameters are
// parsed and its key made, which is most of the work of a cache hit that
// is not writing. An entry keeps at most maxTargets of them, each counted
// in its size (targetOverhead for the map slot), and they go with it.
const (
	MaxTargets     = 4
	TargetOverhead = 64
)

// GetTarget returns the entity that target was answered with on ix, and
// its key, or nil. A miss is not counted: the lookup by key that follows
// counts it.
func (c *responseCache) GetTarget(ix Index, target string) (*Entity, string) {
	if !c.enabled() || target == "" {
		return nil, ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.Targets[target]
	if !ok || ix != c.Current {
		return nil, ""
	}
	c.hits.Add(1)
	c.lru.MoveToFront(el)
	ce := el.Value.(*cacheEntry)
	return ce.e, ce.key
}

// aliasLocked records that target, a request, was answered with the
// entry el, unless target is empty or known, or the entry has all the
// targets it may. The caller holds mu and evicts afterwards.
func (c *responseCache) aliasLocked(el *list.Element, target string) {
	ce := el.Value.(*cacheEntry)
	if _, known := c.Targets[target]; target == "" || known || len(ce.targets) >= MaxTargets {
		return
	}
	c.Targets[target] = el
	ce.targets = append(ce.targets, target)
	n := int64(len(target) + TargetOverhead)
	ce.size += n
	c.size += n
}

// Put stores e under key for ix, evicting as needed, and remembers target
// as naming it (see get).
func (c *responseCache) Put(ix Index, key, target string, e *Entity) {
	size := EntrySize(key, e)
	if !c.enabled() || size > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.adopt(ix) {
		return
	}
	el, ok := c.entries[key]
	if ok { // built twice at once: keep the first
		c.lru.MoveToFront(el)
	} else {
		el = c.lru.PushFront(&cacheEntry{key: key, e: e, size: size})
		c.entries[key] = el
		c.size += size
	}
	c.aliasLocked(el, target)
	c.evict()
}

// AddVariant stores z as e's variant in coding cd, when e is still held for
// ix under key: the variant is then counted in the bound like the rest.
func (c *responseCache) AddVariant(ix Index, key string, e *Entity, cd Coding, z []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok || ix != c.Current || el.Value.(*cacheEntry).e != e || e.Variants[cd].Load() != nil {
		return
	}
	ce := el.Value.(*cacheEntry)
	e.Variants[cd].Store(&z)
	ce.size += int64(len(z))
	c.size += int64(len(z))
	c.evict()
}

// adopt makes ix the current snapshot if it is a new one, emptying the
// cache, and reports whether ix may use the cache. Called with mu held.
func (c *responseCache) adopt(ix Index) bool {
	switch ix {
	case c.Current:
		return true
	case c.previous, nil:
		return false
	}
	c.previous, c.Current = c.Current, ix
	c.clear()
	clear(c.seen)
	return true
}

// Purge empties the cache now, when a new snapshot has been swapped in, so
// the old snapshot's bodies are not held until the first request on the new
// one. Which snapshot is current is still decided by adopt.
func (c *responseCache) Purge() {
	c.mu.Lock()
	c.clear()
	c.mu.Unlock()
}

// clear empties the cache. Called with mu held.
func (c *responseCache) clear() {
	clear(c.entries)
	clear(c.Targets)
	c.lru.Init()
	c.size = 0
}

// evict drops least recently used entries until the size is within the
// bound. Called with mu held.
func (c *responseCache) evict() {
	for c.size > c.max {
		el := c.lru.Back()
		ce := c.lru.Remove(el).(*cacheEntry)
		delete(c.entries, ce.key)
		for _, t := range ce.targets {
			delete(c.Targets, t)
		}
		c.size -= ce.size
		c.evictions.Add(1)
	}
}

func EntrySize(key string, e *Entity) int64 {
	n := int64(entryOverhead + len(key) + len(e.Body) + len(e.ContentType) + len(e.Tag) + len(e.CSP))
	for i := range e.Variants {
		if v := e.Variants[i].Load(); v != nil {
			n += int64(len(*v))
		}
	}
	return n
}

func (c *responseCache) Stats() CacheStats {
	c.mu.Lock()
	size, n := c.size, len(c.entries)
	c.mu.Unlock()
	return CacheStats{
		Hits: c.hits.Load(), Misses: c.misses.Load(), Evictions: c.evictions.Load(),
		Bytes: size, MaxBytes: max(c.max, 0), Entries: n, Declined: c.declined.Load(),
	}
}

// heldBytes adds up the sizes of the entries held, for the tests to
// check the running count against.
func (c *responseCache) heldBytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for el := c.lru.Front(); el != nil; el = el.Next() {
		n += el.Value.(*cacheEntry).size
	}
	return n
}

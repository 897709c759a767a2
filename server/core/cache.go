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
//
// A hit takes no lock that another key's hit takes. The entries are kept
// in shards by the key's hash, each with its own lock, its own LRU list
// and its own share of the byte bound, and a shard evicts its own least
// recently used entries when it is over its share; a request target is
// kept in the shard of its own hash and names an entry of any shard. Which
// snapshot is current, and the shards that hold its entities, are one
// generation, read through an atomic pointer: a new snapshot or a purge
// makes a new generation (under the one lock that hits never take), so a
// request can never find a body of another snapshot in the shards it
// reads. A small cache (under 2*minShardBytes) has one shard, an exact
// LRU over the whole bound; the default bound has maxShards of 4 MB each,
// and an entity larger than its shard's share is never stored.

// DefaultCacheBytes is the default bound of the response cache.
const DefaultCacheBytes = 64 << 20

// Shards: as many as the bound gives minShardBytes each, a power of two
// up to maxShards. With two cores and a handful of goroutines answering
// at once, 16 shards make two hits meet on a lock rarely; more would only
// cut the share an entity may use.
const (
	minShardBytes = 4 << 20
	maxShards     = 16
)

// Admission. With minUses 2 (the default) a body is stored only when its
// key was asked for once already, recently: a stream of one-off searches
// (a crawler, cold traffic) then neither evicts the bodies that repeat nor
// pays for copying its own into the cache, while a key asked for twice is
// stored on its second request. "Recently" is a direct-mapped table of
// key hashes, one slot per seenSlotBytes of the bound (at least
// minSeenSlots): a key is forgotten once another lands in its slot, so the
// table remembers about as many keys as the cache could hold several times
// over, in 8 bytes each. Its slots are read and written atomically, with
// no lock. With minUses 1 every 200 is stored.
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
	shards  int   // per generation, a power of two
	share   int64 // each shard's part of max

	gen atomic.Pointer[generation]

	mu       sync.Mutex  // makes generations; hits never take it
	counted  shardCounts // of the generations before the current one
	declined atomic.Uint64
}

// generation is the cache of one snapshot between purges.
type generation struct {
	ix       Index           // the snapshot whose entities are held
	previous Index           // the one it replaced: bypasses the cache
	seen     []atomic.Uint64 // admission: hashes of keys asked for once
	shards   []shard
}

// shardCounts are a shard's counters, kept under its lock.
type shardCounts struct{ hits, misses, evictions uint64 }

func (a *shardCounts) add(b shardCounts) {
	a.hits += b.hits
	a.misses += b.misses
	a.evictions += b.evictions
}

type shard struct {
	mu      sync.Mutex
	entries map[string]*list.Element
	lru     list.List // of *cacheEntry, most recently used first
	size    int64
	shardCounts
	// moves counts the entries put or moved to the front of lru, and
	// held how many it holds, both written under mu: a hit by target
	// reads them without it (see GetTarget).
	moves, held atomic.Uint64

	tmu        sync.Mutex               // the targets; taken after mu, never before
	targets    map[string]*list.Element // request targets (hashed here) known to name an entry (see aliasLocked)
	targetHits uint64                   // hits by target that left the entry where it was, under tmu

	_ [64]byte // keeps the next shard's locks off this one's cache line
}

type cacheEntry struct {
	key     string
	e       *Entity
	size    int64
	shard   *shard   // where it is held; immutable
	targets []string // its request targets
	// held is whether it is still in its shard, moved its shard's moves
	// when it was last put at the front; written under shard.mu.
	held  atomic.Bool
	moved atomic.Uint64
}

// toFront makes el, of s, the most recently used. Called with s.mu held.
func (s *shard) toFront(el *list.Element) {
	s.lru.MoveToFront(el)
	el.Value.(*cacheEntry).moved.Store(s.move())
}

// move counts a move to the front and returns the count. Called with
// s.mu held: the one writer needs no read-modify-write.
func (s *shard) move() uint64 {
	n := s.moves.Load() + 1
	s.moves.Store(n)
	return n
}

// NewResponseCache returns a cache bounded to max bytes that stores a body
// on the minUses-th request for it (1 or 2); max <= 0 gives a disabled
// cache (every lookup a miss, nothing stored).
func NewResponseCache(max int64, minUses int) *responseCache {
	c := &responseCache{max: max, minUses: minUses, seed: maphash.MakeSeed(), shards: 1}
	for c.shards < maxShards && max/int64(2*c.shards) >= minShardBytes {
		c.shards *= 2
	}
	c.share = max / int64(c.shards)
	c.gen.Store(c.newGeneration(nil, nil, nil))
	return c
}

// newGeneration returns empty shards for ix; seen nil makes a new table.
func (c *responseCache) newGeneration(ix, previous Index, seen []atomic.Uint64) *generation {
	if seen == nil && c.max > 0 && c.minUses > 1 {
		slots := minSeenSlots
		for int64(slots)*seenSlotBytes < c.max && slots < maxSeenSlots {
			slots <<= 1
		}
		seen = make([]atomic.Uint64, slots)
	}
	g := &generation{ix: ix, previous: previous, seen: seen, shards: make([]shard, c.shards)}
	for i := range g.shards {
		g.shards[i].entries = map[string]*list.Element{}
		g.shards[i].targets = map[string]*list.Element{}
	}
	return g
}

// hash is key's hash: its low bits pick an admission slot, its high bits
// a shard.
func (c *responseCache) hash(key string) uint64 { return maphash.String(c.seed, key) }

func (g *generation) shardOf(h uint64) *shard {
	return &g.shards[(h>>40)&uint64(len(g.shards)-1)]
}

// admit tells whether the body of key, just built for ix after a miss,
// is to be stored: always with minUses 1, else when key was asked for
// recently (and then it is forgotten, being stored).
func (c *responseCache) admit(ix Index, key string) bool {
	if !c.enabled() {
		return false
	}
	g := c.gen.Load()
	if g.seen == nil || ix != g.ix {
		return true // put decides (a new snapshot, or a replaced one)
	}
	h := c.hash(key) | 1 // 0 marks an empty slot
	slot := &g.seen[h&uint64(len(g.seen)-1)]
	if slot.CompareAndSwap(h, 0) {
		return true
	}
	slot.Store(h)
	c.declined.Add(1)
	return false
}

func (c *responseCache) enabled() bool { return c.max > 0 }

// Get returns the entity stored under key for ix, or nil. When there is
// one, target (the request as sent; "" for none) is remembered as naming
// it, for GetTarget.
func (c *responseCache) Get(ix Index, key, target string) *Entity {
	if !c.enabled() {
		return nil
	}
	g := c.adopt(ix)
	if g == nil {
		g = c.gen.Load()
		s := g.shardOf(c.hash(key))
		s.mu.Lock()
		s.misses++
		s.mu.Unlock()
		return nil
	}
	s := g.shardOf(c.hash(key))
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.entries[key]
	if !ok {
		s.misses++
		return nil
	}
	s.hits++
	s.toFront(el)
	e := el.Value.(*cacheEntry).e
	c.aliasLocked(g, el, target)
	c.evict(g, s)
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
// counts it. It takes the target's shard's lock and, to move the entry to
// the front, the entry's; not when the entry was moved there recently
// (within the last quarter of its shard's entries' moves): it is then
// still in the front quarter of its shard's LRU order, far from
// eviction, and a hot entry's hits take one lock, not two. A shard of
// fewer than four entries moves it on every hit: an exact LRU.
func (c *responseCache) GetTarget(ix Index, target string) (*Entity, string) {
	if !c.enabled() || target == "" {
		return nil, ""
	}
	g := c.gen.Load()
	if ix != g.ix {
		return nil, ""
	}
	ts := g.shardOf(c.hash(target))
	ts.tmu.Lock()
	el := ts.targets[target]
	if el == nil {
		ts.tmu.Unlock()
		return nil, ""
	}
	ce := el.Value.(*cacheEntry)
	s := ce.shard
	if ce.held.Load() && s.moves.Load()-ce.moved.Load() < s.held.Load()/4 {
		ts.targetHits++
		ts.tmu.Unlock()
		return ce.e, ce.key
	}
	ts.tmu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ce.held.Load() { // evicted since
		return nil, ""
	}
	s.hits++
	s.toFront(el)
	return ce.e, ce.key
}

// aliasLocked records that target, a request, was answered with the
// entry el, unless target is empty or known, or the entry has all the
// targets it may. The caller holds the entry's shard's mu and evicts
// afterwards.
func (c *responseCache) aliasLocked(g *generation, el *list.Element, target string) {
	ce := el.Value.(*cacheEntry)
	if target == "" || len(ce.targets) >= MaxTargets {
		return
	}
	for _, t := range ce.targets {
		if t == target {
			return
		}
	}
	ts := g.shardOf(c.hash(target))
	ts.tmu.Lock()
	_, known := ts.targets[target]
	if !known {
		ts.targets[target] = el
	}
	ts.tmu.Unlock()
	if known {
		return
	}
	ce.targets = append(ce.targets, target)
	n := int64(len(target) + TargetOverhead)
	ce.size += n
	ce.shard.size += n
}

// Put stores e under key for ix, evicting as needed, and remembers target
// as naming it (see Get).
func (c *responseCache) Put(ix Index, key, target string, e *Entity) {
	size := EntrySize(key, e)
	if !c.enabled() || size > c.share {
		return
	}
	g := c.adopt(ix)
	if g == nil {
		return
	}
	s := g.shardOf(c.hash(key))
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.entries[key]
	if ok { // built twice at once: keep the first
		s.toFront(el)
	} else {
		ce := &cacheEntry{key: key, e: e, size: size, shard: s}
		ce.held.Store(true)
		el = s.lru.PushFront(ce)
		ce.moved.Store(s.move())
		s.entries[key] = el
		s.size += size
		s.held.Store(s.held.Load() + 1)
	}
	c.aliasLocked(g, el, target)
	c.evict(g, s)
}

// AddVariant stores z as e's variant in coding cd, when e is still held for
// ix under key: the variant is then counted in the bound like the rest.
func (c *responseCache) AddVariant(ix Index, key string, e *Entity, cd Coding, z []byte) {
	g := c.gen.Load()
	if ix != g.ix || !c.enabled() {
		return
	}
	s := g.shardOf(c.hash(key))
	s.mu.Lock()
	defer s.mu.Unlock()
	el, ok := s.entries[key]
	if !ok || el.Value.(*cacheEntry).e != e || e.Variants[cd].Load() != nil {
		return
	}
	ce := el.Value.(*cacheEntry)
	e.Variants[cd].Store(&z)
	ce.size += int64(len(z))
	s.size += int64(len(z))
	c.evict(g, s)
}

// adopt returns the generation ix may use, making ix the current
// snapshot (in a new, empty generation) if it is a new one, or nil when
// ix may not use the cache.
func (c *responseCache) adopt(ix Index) *generation {
	g := c.gen.Load()
	switch ix {
	case g.ix:
		return g
	case g.previous, nil:
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	g = c.gen.Load()
	switch ix {
	case g.ix:
		return g
	case g.previous:
		return nil
	}
	return c.replace(g, c.newGeneration(ix, g.ix, nil))
}

// Purge empties the cache now, when a new snapshot has been swapped in, so
// the old snapshot's bodies are not held until the first request on the new
// one. Which snapshot is current is still decided by adopt.
func (c *responseCache) Purge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.gen.Load()
	c.replace(g, c.newGeneration(g.ix, g.previous, g.seen))
}

// replace makes next the current generation in place of g, keeping g's
// counters. Called with mu held.
func (c *responseCache) replace(g, next *generation) *generation {
	for i := range g.shards {
		s := &g.shards[i]
		s.mu.Lock()
		c.counted.add(s.shardCounts)
		s.shardCounts = shardCounts{} // a request still on g counts from nought
		s.mu.Unlock()
		s.tmu.Lock()
		c.counted.hits += s.targetHits
		s.targetHits = 0
		s.tmu.Unlock()
	}
	c.gen.Store(next)
	return next
}

// evict drops s's least recently used entries until its size is within
// its share of the bound. Called with s.mu held.
func (c *responseCache) evict(g *generation, s *shard) {
	for s.size > c.share {
		el := s.lru.Back()
		ce := s.lru.Remove(el).(*cacheEntry)
		ce.held.Store(false)
		s.held.Store(s.held.Load() - 1)
		delete(s.entries, ce.key)
		for _, t := range ce.targets {
			ts := g.shardOf(c.hash(t))
			ts.tmu.Lock()
			if ts.targets[t] == el {
				delete(ts.targets, t)
			}
			ts.tmu.Unlock()
		}
		s.size -= ce.size
		s.evictions++
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
	defer c.mu.Unlock()
	g := c.gen.Load()
	counts := c.counted
	var size int64
	var n int
	for i := range g.shards {
		s := &g.shards[i]
		s.mu.Lock()
		counts.add(s.shardCounts)
		size += s.size
		n += len(s.entries)
		s.mu.Unlock()
		s.tmu.Lock()
		counts.hits += s.targetHits
		s.tmu.Unlock()
	}
	return CacheStats{
		Hits: counts.hits, Misses: counts.misses, Evictions: counts.evictions,
		Bytes: size, MaxBytes: max(c.max, 0), Entries: n, Declined: c.declined.Load(),
	}
}

// Current is the snapshot whose entities the cache holds (nil before the
// first request).
func (c *responseCache) Current() Index { return c.gen.Load().ix }

// TargetCount is how many request targets name an entry.
func (c *responseCache) TargetCount() int {
	g := c.gen.Load()
	n := 0
	for i := range g.shards {
		s := &g.shards[i]
		s.tmu.Lock()
		n += len(s.targets)
		s.tmu.Unlock()
	}
	return n
}

// heldBytes adds up the sizes of the entries held, for the tests to
// check the running count against.
func (c *responseCache) heldBytes() int64 {
	g := c.gen.Load()
	var n int64
	for i := range g.shards {
		s := &g.shards[i]
		s.mu.Lock()
		for el := s.lru.Front(); el != nil; el = el.Next() {
			n += el.Value.(*cacheEntry).size
		}
		s.mu.Unlock()
	}
	return n
}

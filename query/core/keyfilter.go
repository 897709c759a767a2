package core

import (
	"hash/maphash"
	"math/bits"
	"sync/atomic"
	"unsafe"

	"stationdex/internal/format"
)

// Key filters spare a search the look-ups that find nothing. A search asks
// the prefix buckets for every word (the writer stores a union there only
// for prefixes of many tokens, a few thousand words) and the names bucket
// for the whole query as an exact name; in the suite's cold traffic nearly
// all of those find nothing. Each is a page-tree descent to a leaf that is
// rarely in the CPU's caches: about half the tree reads of a search, and
// the names bucket's leaves, dense with keys, are the dearest. A filter
// answers in one cache line.
//
// keyFilter is a blocked Bloom filter (one 64-byte block per key, six bits
// set in it, 16 to 32 bits per key): it can say yes wrongly, about one
// key in a few hundred, and a yes is looked up in the bucket as before,
// so it changes no answer. It never says no to a key the bucket has.
type keyFilter struct {
	seed   maphash.Seed
	blocks [][8]uint64
}

const (
	filterBitsPerKey = 16
	filterProbes     = 6
)

// newKeyFilter builds the filter of the keys whose hashes (with seed)
// are hs.
func newKeyFilter(seed maphash.Seed, hs []uint64) *keyFilter {
	n := max(len(hs)*filterBitsPerKey/512, 1)
	f := &keyFilter{seed: seed, blocks: make([][8]uint64, 1<<bits.Len(uint(n-1)))}
	for _, h := range hs {
		f.add(h)
	}
	return f
}

// add sets h's bits.
func (f *keyFilter) add(h uint64) {
	b, g := f.probes(h)
	for range filterProbes {
		bit := g >> 55 // the top nine bits: 0..511
		b[bit>>6] |= 1 << (bit & 63)
		g <<= 9
	}
}

// mayHave reports whether key may be in the bucket: false means it is not.
func (f *keyFilter) mayHave(key []byte) bool {
	b, g := f.probes(maphash.Bytes(f.seed, key))
	for range filterProbes {
		bit := g >> 55
		if b[bit>>6]&(1<<(bit&63)) == 0 {
			return false
		}
		g <<= 9
	}
	return true
}

// probes is where h's bits are: its block, from the low bits, and its
// bits in the block, nine a probe from the top of a second hash made by
// multiplying.
func (f *keyFilter) probes(h uint64) (*[8]uint64, uint64) {
	return &f.blocks[h&uint64(len(f.blocks)-1)], h * 0x9e3779b97f4a7c15
}

// keyFilters are the filters of the buckets searches look up most in
// vain. Warm builds them (at 5M stations the names bucket has three
// million keys: about 0.2 s, and 8 MB of filter); until then a search
// looks up every key, as it would without them.
type keyFilters struct {
	ready atomic.Pointer[[len(filteredBucketNames)]*keyFilter]
}

// filteredBucketNames are the buckets filtered.
var filteredBucketNames = [...][]byte{format.BucketNamePrefix, format.BucketAllPrefix, format.BucketNames}

// buildKeyFilters reads the keys of the filtered buckets, under ix.read.
func (ix *Index) buildKeyFilters() error {
	if ix.filters.ready.Load() != nil {
		return nil
	}
	seed := maphash.MakeSeed()
	var fs [len(filteredBucketNames)]*keyFilter
	for i, name := range filteredBucketNames {
		c, err := TreeCursor(ix, name)
		if err != nil {
			return err
		}
		var hs []uint64
		for k, _ := c.Seek(nil); k != nil; k, _ = c.Next() {
			hs = append(hs, maphash.Bytes(seed, k))
		}
		fs[i] = newKeyFilter(seed, hs)
	}
	ix.filters.ready.Store(&fs)
	return nil
}

// filterOf is the filter of bucket name (named, as search.bucket names
// buckets, by the format.Bucket* variable's bytes), or nil when it has
// none or Warm has not built it yet.
func (ix *Index) filterOf(name []byte) *keyFilter {
	fs := ix.filters.ready.Load()
	if fs == nil {
		return nil
	}
	for i, n := range filteredBucketNames {
		if unsafe.SliceData(n) == unsafe.SliceData(name) {
			return fs[i]
		}
	}
	return nil
}

package query

import (
	"hash/maphash"
	"math/bits"
	"sync/atomic"

	"stationdex/indexer/format"
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

// add sets h's bits: its block from the low bits, its bits in the block
// from a second hash made by multiplying (nine bits a probe).
func (f *keyFilter) add(h uint64) {
	b := &f.blocks[h&uint64(len(f.blocks)-1)]
	g := h * 0x9e3779b97f4a7c15
	for range filterProbes {
		bit := g >> 55 // the top nine bits: 0..511
		b[bit>>6] |= 1 << (bit & 63)
		g <<= 9
	}
}

// mayHave reports whether key may be in the bucket: false means it is not.
func (f *keyFilter) mayHave(key []byte) bool {
	h := maphash.Bytes(f.seed, key)
	b := &f.blocks[h&uint64(len(f.blocks)-1)]
	g := h * 0x9e3779b97f4a7c15
	for range filterProbes {
		bit := g >> 55
		if b[bit>>6]&(1<<(bit&63)) == 0 {
			return false
		}
		g <<= 9
	}
	return true
}

// keyFilters are the filters of the buckets searches look up most in
// vain. Warm builds them (at 5M stations the names bucket has three
// million keys: about 0.2 s, and 8 MB of filter); until then a search
// looks up every key, as it would without them.
type keyFilters struct {
	ready atomic.Pointer[filteredBuckets]
}

type filteredBuckets struct {
	namePrefix, allPrefix, names *keyFilter
}

// filteredBucketNames are the buckets filtered, in filteredBuckets' order.
var filteredBucketNames = [...][]byte{format.BucketNamePrefix, format.BucketAllPrefix, format.BucketNames}

// buildKeyFilters reads the keys of the filtered buckets, under ix.read.
func (ix *Index) buildKeyFilters() error {
	if ix.filters.ready.Load() != nil {
		return nil
	}
	seed := maphash.MakeSeed()
	var fs [len(filteredBucketNames)]*keyFilter
	for i, name := range filteredBucketNames {
		c, err := ix.treeCursor(name)
		if err != nil {
			return err
		}
		var hs []uint64
		for k, _ := c.Seek(nil); k != nil; k, _ = c.Next() {
			hs = append(hs, maphash.Bytes(seed, k))
		}
		fs[i] = newKeyFilter(seed, hs)
	}
	ix.filters.ready.Store(&filteredBuckets{namePrefix: fs[0], allPrefix: fs[1], names: fs[2]})
	return nil
}

// mayHave reports whether bucket may hold key: false only when a filter
// of the bucket is built and says it does not.
func (ix *Index) mayHave(bucket, key []byte) bool {
	fb := ix.filters.ready.Load()
	if fb == nil {
		return true
	}
	var f *keyFilter
	switch &bucket[0] {
	case &format.BucketNamePrefix[0]:
		f = fb.namePrefix
	case &format.BucketAllPrefix[0]:
		f = fb.allPrefix
	case &format.BucketNames[0]:
		f = fb.names
	default:
		return true
	}
	return f.mayHave(key)
}

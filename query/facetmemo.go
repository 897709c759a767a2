package query

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/format"
)

// The facet memo: the top MaxFacetLimit values of every facet, counted
// once per snapshot, for each large stored posting list a search can match
// exactly: a country, language or genre filter alone, or one query word
// whose stations are stored as one list (the prefix buckets). These are
// the broadest searches people make (country=FR, q=radio, q=u), and their
// facets are the expensive ones: counting tens of thousands of stations
// costs several times the search itself, which only decodes its page.
// With the memo such a search's facets are a copy of a list.
//
// The memo is built by Index.Warm, in the background, from the same
// counting code a search uses (the real-snapshot tests compare both to the
// oracle); until it is built, or for any other search, facets are counted
// as before. A posting list is known by the address of its bytes in the
// read-only mapping, which stays put as long as the Index is open.

// The smallest memoised list: stations/memoShare stations, and never
// below memoFloor. On the real snapshot that is 256 stations, 761 lists,
// counted in about 100 ms and held in about 5 MB: visiting the records of
// a set of a few hundred stations, scattered over the name order, already
// costs as much as the search itself (country=PH, 767 stations, took 3.5x
// the plain search when the floor was 791), while a smaller set costs
// well under it. The share keeps the number of lists, and so the memo's
// size, about the same at any scale.
const (
	memoShare = 256
	memoFloor = 256
)

// memoBuckets are the buckets whose lists a search uses as they are.
var memoBuckets = [...][]byte{
	format.BucketCountries, format.BucketLangCodes, format.BucketLangLabels, format.BucketGenres, format.BucketAllPrefix,
}

type facetMemo struct {
	min   int
	lists map[*byte]*Facets // by the address of the posting list's bytes
}

type lazyMemo struct {
	once  sync.Once
	err   error
	ready atomic.Pointer[facetMemo]
}

// memoHits counts the facets answered from a memo, for tests.
var memoHits atomic.Int64

// memoised returns the memoised facets of m, or nil.
func (ix *Index) memoised(m set, n int) *Facets {
	memo := ix.memo.ready.Load()
	if memo == nil || m.src == nil || n < memo.min {
		return nil
	}
	f := memo.lists[m.src]
	if f != nil {
		memoHits.Add(1)
	}
	return f
}

// warmFacetMemo builds the memo once.
func (ix *Index) warmFacetMemo() error {
	lm := &ix.memo
	lm.once.Do(func() {
		memo, err := ix.buildFacetMemo()
		if err != nil {
			lm.err = err
			return
		}
		lm.ready.Store(memo)
	})
	return lm.err
}

func (ix *Index) buildFacetMemo() (*facetMemo, error) {
	memo := &facetMemo{min: max(memoFloor, ix.meta.Stations/memoShare), lists: map[*byte]*Facets{}}
	all := Query{Facets: FacetSet{Country: true, Language: true, Genre: true}, FacetLimit: MaxFacetLimit}
	err := ix.view(func(tx *bolt.Tx) error {
		var cs []rawContainer
		for _, name := range memoBuckets {
			// through the page tree: searches key the memo by the
			// addresses of the lists they read through it
			root, ok := ix.tree.roots[string(name)]
			if !ok {
				return fmt.Errorf("%w: bucket %s missing", format.ErrCorrupt, name)
			}
			c := treeCursor{t: ix.tree, root: root}
			for k, v := c.Seek(nil); k != nil; k, v = c.Next() {
				n, err := rawCardinality(v, &cs)
				if err != nil {
					return fmt.Errorf("%s %q: %w", name, k, err)
				}
				if n < memo.min || n >= ix.meta.Stations {
					continue // small, or every station: counted fast as it is
				}
				f, err := ix.countFacets(tx, v, all)
				if err != nil {
					return fmt.Errorf("%s %q: %w", name, k, err)
				}
				memo.lists[unsafe.SliceData(v)] = f
			}
		}
		return nil
	})
	return memo, err
}

// countFacets counts the facets of the stations of posting list v, in a
// workspace of its own.
func (ix *Index) countFacets(tx *bolt.Tx, v []byte, q Query) (*Facets, error) {
	w := getWorkspace()
	defer w.release()
	s := w.newSearch(ix)
	s.tx = tx
	m, err := w.view(v)
	if err != nil {
		return nil, err
	}
	// The memo is published once built, so this counts afresh.
	f, err := s.facets(q, m)
	return &f, err
}

// memoList is the first k values of a memoised facet, as a list the
// caller owns.
func memoList(f *Facets, d, k int) []FacetCount {
	l := [...][]FacetCount{f.Country, f.Language, f.Genre}[d]
	return slices.Clone(l[:min(k, len(l))])
}

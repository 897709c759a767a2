package query

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/format"
	"stationdex/query/rawroaring"
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
// as before. A posting list is known by its place in the file (listID).

// The smallest memoised list: stations/memoShare stations, and never
// below memoFloor. On the real snapshot that is 256 stations, 761 lists:
// visiting the records of a set of a few hundred stations, scattered over
// the name order, already costs as much as the search itself (country=PH, 767 stations, took 3.5x
// the plain search when the floor was 791), while a smaller set costs
// well under it. The share keeps the number of lists, and so the memo's
// size, about the same at any scale.
const (
	memoShare = 256
	memoFloor = 256
)

// The pair memo's bounds (see memoPairs): pairs of at least pairShare
// times the smallest memoised list, among the pairLists largest lists,
// sized on pairKeys keys, and pairBudget records counted in all, whatever
// the number of stations.
const (
	pairShare  = 2
	pairLists  = 256
	pairKeys   = 8
	pairBudget = 1 << 24
)

// memoSource is a bucket whose lists a search uses as they are, and the
// dimension of its lists (noDim for words' lists): a search intersects at
// most one list per filter dimension, and any number of words' lists.
type memoSource struct {
	d      Dim
	bucket []byte
}

// memoSources are the buckets of the dimensions the memo holds, then the
// words' prefixes; memoFacetSet the facets it counts.
var memoSources, memoFacetSet = func() ([]memoSource, DimSet) {
	var out []memoSource
	var ds DimSet
	for d := range NumDims {
		if !dims[d].memo {
			continue
		}
		ds = ds.With(d)
		for _, b := range dims[d].buckets {
			out = append(out, memoSource{d, b})
		}
	}
	return append(out, memoSource{noDim, format.BucketAllPrefix}), ds
}()

// The pair memo: the same top values, DefaultFacetLimit of each facet,
// for the intersection of two of those lists (a word and a country, a
// country and a genre, two words: q=music radio). These are most of the
// searches whose facets still cost several times the search itself: a
// search with a word and a filter counts the facet of that filter over
// the word alone, often thousands of stations (country=DE&genre=news&
// q=radio counts the genres of q=radio&country=DE). memoPairs chooses and
// bounds them; BenchmarkFacetMemo reports how many the real snapshot gets,
// and their time and memory. A set of three conditions or more, or a
// larger facet limit for a pair, is counted.
//
// A pair is known by both lists, lower first, and memoOf finds it from a
// search's lists before intersecting them.
type listPair struct{ a, b listID }

func pairOf(a, b listID) listPair {
	if a > b {
		a, b = b, a
	}
	return listPair{a, b}
}

// listID names a stored posting list: the offset of its bytes in the
// file (pagetree.Tree.Offset), which no other list shares. 0 is none: the
// file starts with bbolt's meta pages.
type listID uint64

// idOf is the listID of a list read through the index's page tree.
func (ix *Index) idOf(v []byte) listID {
	off, _ := ix.tree.Offset(v)
	return listID(off)
}

// memoFacets is the top limit values of each facet of one set, most
// first, as facetTops finds them; compact, since the memo holds
// thousands.
type memoFacets struct {
	limit int
	n     int // stations in the set
	lists [NumDims][]memoCount
}

type memoCount struct{ id, n uint32 }

// tops appends the first k values of facet d to top, or reports that the
// memo has fewer than k of them when the facet has more, or does not
// count d.
func (f *memoFacets) tops(d Dim, k int, top []topCount) ([]topCount, bool) {
	l := f.lists[d]
	if !memoFacetSet.Has(d) || k > f.limit && len(l) == f.limit {
		return top, false
	}
	for _, c := range l[:min(k, len(l))] {
		top = append(top, topCount{c.id, int(c.n)})
	}
	return top, true
}

type facetMemo struct {
	min   int
	lists map[listID]*memoFacets
	pairs map[listPair]*memoFacets
}

type lazyMemo struct {
	once  sync.Once
	err   error
	ready atomic.Pointer[facetMemo]
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

// memoList is one list of the memo while it is built.
type memoList struct {
	dim Dim
	v   []byte
	bm  *roaring.Bitmap // a view of v
	n   int
}

func (ix *Index) buildFacetMemo() (*facetMemo, error) {
	memo := &facetMemo{
		min:   max(memoFloor, ix.meta.Stations/memoShare),
		lists: map[listID]*memoFacets{},
		pairs: map[listPair]*memoFacets{},
	}
	return memo, ix.view(func(tx *bolt.Tx) error {
		var large []memoList
		var cs []rawroaring.Container
		for _, src := range memoSources {
			name := src.bucket
			// through the page tree: searches key the memo by the
			// addresses of the lists they read through it
			root, ok := ix.tree.Root(string(name))
			if !ok {
				return fmt.Errorf("%w: bucket %s missing", format.ErrCorrupt, name)
			}
			c := ix.tree.Cursor(root)
			for k, v := c.Seek(nil); k != nil; k, v = c.Next() {
				n, err := rawroaring.Cardinality(v, &cs)
				if err != nil {
					return fmt.Errorf("%s %q: %w", name, k, err)
				}
				if n < memo.min || n >= ix.meta.Stations {
					continue // small, or every station: counted fast as it is
				}
				f, err := ix.countMemo(tx, MaxFacetLimit, func(w *workspace) (set, error) { return w.view(v) })
				if err != nil {
					return fmt.Errorf("%s %q: %w", name, k, err)
				}
				f.n = n
				memo.lists[ix.idOf(v)] = f
				bm := roaring.New()
				if _, err := bm.FromBuffer(v); err != nil {
					return fmt.Errorf("%w: %s %q: %v", format.ErrCorrupt, name, k, err)
				}
				large = append(large, memoList{src.d, v, bm, n})
			}
		}
		return ix.memoPairs(tx, memo, large)
	})
}

// memoPairs counts the facets of the pairs of large lists that a search
// can intersect (two dimensions, or two words) whose intersection holds
// at least pairShare times the memo's smallest list, largest first, until
// pairBudget records have been counted. An intersection as large as one
// of its lists is that list, which searches find in the list memo (see
// memoOf).
//
// The pairs are sized on a sample of pairKeys keys (ranges of 65,536
// records) spread over the records, among the pairLists largest lists, so
// that sizing them costs the same at any scale; the pairs counted are
// sized exactly.
func (ix *Index) memoPairs(tx *bolt.Tx, memo *facetMemo, large []memoList) error {
	least := pairShare * memo.min
	large = slices.DeleteFunc(slices.Clone(large), func(l memoList) bool { return l.n < least })
	slices.SortStableFunc(large, func(a, b memoList) int { return cmp.Compare(b.n, a.n) })
	large = large[:min(len(large), pairLists)]
	keys := (ix.meta.Stations + 1<<16 - 1) >> 16
	mask, sampled := sampleMask(keys)
	samples := make([]*roaring.Bitmap, len(large))
	for i, l := range large {
		samples[i] = roaring.And(l.bm, mask)
	}
	type pair struct{ a, b, est int }
	var pairs []pair
	for i, a := range large {
		for j := i + 1; j < len(large); j++ {
			if a.dim == large[j].dim && a.dim != noDim {
				continue
			}
			if est := int(samples[i].AndCardinality(samples[j])) * keys / sampled; est >= least {
				pairs = append(pairs, pair{i, j, est})
			}
		}
	}
	slices.SortFunc(pairs, func(x, y pair) int { return cmp.Compare(y.est, x.est) })
	budget := pairBudget
	for _, p := range pairs {
		if budget < 0 {
			break
		}
		a, b := large[p.a], large[p.b]
		n := int(a.bm.AndCardinality(b.bm))
		if n < least || n == min(a.n, b.n) {
			continue
		}
		budget -= n
		f, err := ix.countMemo(tx, DefaultFacetLimit, func(w *workspace) (set, error) {
			sa, err := w.view(a.v)
			if err != nil {
				return set{}, err
			}
			sb, err := w.view(b.v)
			if err != nil {
				return set{}, err
			}
			return w.and(sa, sb), nil
		})
		if err != nil {
			return err
		}
		f.n = n
		memo.pairs[pairOf(ix.idOf(a.v), ix.idOf(b.v))] = f
	}
	return nil
}

// sampleMask is every record of at most pairKeys of the keys, spread
// evenly, and how many.
func sampleMask(keys int) (*roaring.Bitmap, int) {
	mask := roaring.New()
	n := min(keys, pairKeys)
	for i := range n {
		k := uint64(i * keys / n)
		mask.AddRange(k<<16, (k+1)<<16)
	}
	return mask, n
}

// countMemo counts the facets of the set made by mk, k values of each, in
// a workspace of its own. The memo is published once built, so this
// counts afresh.
func (ix *Index) countMemo(tx *bolt.Tx, k int, mk func(w *workspace) (set, error)) (*memoFacets, error) {
	w := getWorkspace()
	defer w.release()
	s := w.newSearch(ix)
	s.tx = tx
	m, err := mk(w)
	if err != nil {
		return nil, err
	}
	q := Query{Facets: memoFacetSet, FacetLimit: k}
	tasks, err := s.facetTops(q, m, false)
	if err != nil {
		return nil, err
	}
	f := &memoFacets{limit: k}
	for d := range tasks {
		f.lists[d] = make([]memoCount, len(tasks[d].top))
		for i, c := range tasks[d].top {
			f.lists[d][i] = memoCount{c.id, uint32(c.n)}
		}
		w.tops[d] = tasks[d].top[:0]
	}
	return f, nil
}

// memoOperand is a word or filter of a search as the memo may know it:
// its stored list when it is one (0 otherwise), and the dimension a facet
// may leave out (noDim for words and bitrates).
type memoOperand struct {
	dim  Dim
	list listID
}

// memoOperands looks up once the lists of q's words and filters, for
// memoOf; none when the memo is not built or cannot know q's sets (a
// distance filter, more than two words).
func (s *search) memoOperands(q Query) ([]memoOperand, error) {
	ops := s.w.memoOps[:0]
	defer func() { s.w.memoOps = ops[:0] }()
	if s.ix.memo.ready.Load() == nil || q.Near != nil || len(s.w.words) > 2 {
		return nil, nil
	}
	one := func(lists [][]byte) listID {
		if len(lists) != 1 {
			return 0
		}
		return s.ix.idOf(lists[0])
	}
	for _, word := range s.w.words {
		lists, err := s.wordLists(allSpace, word)
		if err != nil {
			return nil, err
		}
		ops = append(ops, memoOperand{noDim, one(lists)})
	}
	err := s.eachFilter(q, noDim, func(dim Dim, lists [][]byte) (bool, error) {
		ops = append(ops, memoOperand{dim, one(lists)})
		return true, nil
	})
	return ops, err
}

// memoOf is the memoised facets of the match set of ops without the
// filter of dimension except (noDim: the whole match set), when that set
// is one or two stored lists, found before any bitmap of it is built:
// intersecting two large lists allocates and fills a container per
// 65,536 records, which a memoised pair does not need. With n, the size
// of the set once built (-1 before), an intersection of two lists as
// large as one of them is that list (every US station matches the prefix
// "am"), whose facets the list memo holds. nil when the memo does not
// know the set.
func (ix *Index) memoOf(ops []memoOperand, except Dim, n int) *memoFacets {
	var lists [2]listID
	k := 0
	for _, op := range ops {
		switch {
		case op.dim == except && except != noDim:
		case op.list == 0 || k == len(lists):
			return nil
		default:
			lists[k] = op.list
			k++
		}
	}
	memo := ix.memo.ready.Load()
	switch {
	case memo == nil:
		return nil
	case k == 1:
		return memo.lists[lists[0]]
	case k == 2 && n < 0:
		return memo.pairs[pairOf(lists[0], lists[1])]
	case k == 2:
		for _, l := range lists {
			if f := memo.lists[l]; f != nil && f.n == n {
				return f
			}
		}
	}
	return nil
}

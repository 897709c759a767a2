package facets

import (
	"bytes"
	"fmt"
	"reflect"
	"sync"

	"stationdex/internal/format"
	"stationdex/query/core"
)

// The facet memo: the top values of the counted facets (country,
// language, genre) of each large stored posting list a search can match
// exactly (a country, language or genre filter alone, or one query word
// whose stations are stored as one list: the prefix buckets), of each
// large union of the few tokens a word without such a list stands for
// (mp3, russi: known here by its first list and their number, unionID),
// and of the largest intersections of two lists (a word and a country,
// two words).
// These are the broadest searches people make (country=FR, q=radio, q=u,
// q=music radio), and their facets are the expensive ones: counting tens
// of thousands of stations costs several times the search itself, which
// only decodes its page. With the memo such a search's facets are a copy
// of a list. Each entry holds the set's facets in groups too, every facet
// a search can count, for a distinct search (the search page's default),
// whose counts read every grouped entry's values.
//
// The indexer counts the memo and stores it (format/facetmemo.go says
// which lists and pairs, and how); it is read once, by Warm or the first
// search that needs it, in milliseconds, and a list is known here by its
// place in the file (listID). For any other set, or a larger facet limit
// for a pair, facets are counted. Check recounts every entry.

// MemoDims is the dimension of each of format.FacetMemoFacets, and
// MemoFacetSet those dimensions: the facets a stored memo entry lists in
// stations, in that order; DistinctDims and DistinctFacetSet are those of
// format.DistinctMemoFacets, which it lists in groups.
var (
	MemoDims, MemoFacetSet         = memoDims(format.FacetMemoFacets)
	DistinctDims, DistinctFacetSet = memoDims(format.DistinctMemoFacets)
)

func memoDims(facets []format.FacetMemoFacet) ([]core.Dim, core.DimSet) {
	var ds []core.Dim
	var set core.DimSet
	for _, f := range facets {
		d := dimOfFacetBucket(f.Bucket)
		if !sameFold(core.Dims[d].Folded, f.Fold) {
			panic(fmt.Sprintf("facet memo: %s folded unlike its row", f.Bucket))
		}
		ds, set = append(ds, d), set.With(d)
	}
	return ds, set
}

// sameFold reports whether a and b are the same folding function (or
// both none): the indexer's memo skips the keys the row's function does.
func sameFold(a, b func(string) string) bool {
	return (a == nil) == (b == nil) && (a == nil || reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer())
}

// dimOfFacetBucket is the dimension whose facet counts bucket b; it
// panics when no row counts it (the format and the table disagree).
func dimOfFacetBucket(b []byte) core.Dim {
	for d := range core.NumDims {
		if core.Dims[d].Facet && bytes.Equal(d.FacetBucket(), b) {
			return d
		}
	}
	panic(fmt.Sprintf("facet memo: no facet counts bucket %s", b))
}

// A pair is known by both lists, lower first, and memoOf finds it from a
// search's lists before intersecting them.
type listPair struct{ a, b core.ListID }

func pairOf(a, b core.ListID) listPair {
	if a > b {
		a, b = b, a
	}
	return listPair{a, b}
}

// idOf is the listID of a list read through the index's page tree.
func idOf(ix *core.Index, v []byte) core.ListID {
	off, _ := ix.Tree.Offset(v)
	return core.ListID(off)
}

// memoFacets is the top limit values of each facet of one set, most
// first, as facetTops finds them: in stations (lists), and in groups
// (distinct), as a distinct search counts them.
type memoFacets struct {
	limit    int
	n        int // stations in the set
	lists    [core.NumDims][]memoCount
	distinct [core.NumDims][]memoCount
}

type memoCount = format.MemoCount

// tops appends the first k values of facet d to top, in groups with
// distinct, or reports that the memo has fewer than k of them when the
// facet has more, or does not count d.
func (f *memoFacets) tops(d core.Dim, k int, top []core.TopCount, distinct bool) ([]core.TopCount, bool) {
	l, has := f.lists[d], MemoFacetSet.Has(d)
	if distinct {
		l, has = f.distinct[d], DistinctFacetSet.Has(d)
	}
	if !has || k > f.limit && len(l) == f.limit {
		return top, false
	}
	for _, c := range l[:min(k, len(l))] {
		top = append(top, core.TopCount{ID: c.ID, N: int(c.N)})
	}
	return top, true
}

type facetMemo struct {
	lists map[core.ListID]*memoFacets
	pairs map[listPair]*memoFacets
}

type lazyMemo struct {
	once sync.Once
	err  error
	memo *facetMemo
}

// facetMemo reads the stored memo once, through the page tree: the
// caller holds the mapping (a search, or Warm through Index.read).
func FacetMemo(ix *core.Index) (*facetMemo, error) {
	lm := &facetsOf(ix).memo
	lm.once.Do(func() { lm.memo, lm.err = readFacetMemo(ix) })
	return lm.memo, lm.err
}

// readFacetMemo decodes the memo bucket through the page tree, as
// searches read (they know lists by the places they read them at).
func readFacetMemo(ix *core.Index) (*facetMemo, error) {
	values := make([]int, len(format.DistinctMemoFacets))
	for f, facet := range format.DistinctMemoFacets {
		c, err := core.TreeCursor(ix, facet.Bucket)
		if err != nil {
			return nil, err
		}
		for k, _ := c.Seek(nil); k != nil; k, _ = c.Next() {
			values[f]++
		}
	}
	c, err := core.TreeCursor(ix, format.BucketFacetMemo)
	if err != nil {
		return nil, err
	}
	memo := &facetMemo{lists: map[core.ListID]*memoFacets{}, pairs: map[listPair]*memoFacets{}}
	for k, v := c.Seek(nil); k != nil; k, v = c.Next() {
		ids, err := memoLists(ix, k)
		if err != nil {
			return nil, err
		}
		e, err := format.ParseMemoEntry(v, values[:len(format.FacetMemoFacets)], values)
		if err != nil {
			return nil, err
		}
		f := &memoFacets{limit: e.Plain.Limit, n: e.Plain.Stations}
		for i, l := range e.Plain.Facets {
			f.lists[MemoDims[i]] = l
		}
		for i, l := range e.Distinct.Facets {
			f.distinct[DistinctDims[i]] = l
		}
		if len(ids) == 1 {
			memo.lists[ids[0]] = f // a list, or a union of tokens
		} else {
			memo.pairs[pairOf(ids[0], ids[1])] = f
		}
	}
	return memo, nil
}

// memoLists finds the lists memo key k names: a union of tokens is
// known by its first list and their number (unionID).
func memoLists(ix *core.Index, k []byte) ([]core.ListID, error) {
	lists, err := format.ParseMemoKey(k)
	if err != nil {
		return nil, err
	}
	ids := make([]core.ListID, len(lists))
	for i, l := range lists {
		c, err := core.TreeCursor(ix, l.Bucket())
		if err != nil {
			return nil, err
		}
		key, v := c.Seek(l.Key)
		if l.Union {
			first, n := v, 0
			for ; key != nil && bytes.HasPrefix(key, l.Key) && n <= format.PrefixFanout; key, _ = c.Next() {
				n++
			}
			if n == 0 || n > format.PrefixFanout {
				return nil, fmt.Errorf("%w: facet memo of the %d tokens under %q", format.ErrCorrupt, n, l.Key)
			}
			ids[i] = unionID(idOf(ix, first), n)
			continue
		}
		if key == nil || !bytes.Equal(key, l.Key) {
			return nil, fmt.Errorf("%w: facet memo of %q, which has no list", format.ErrCorrupt, l.Key)
		}
		ids[i] = idOf(ix, v)
	}
	return ids, nil
}

// unionID names the union of n lists that follow one another in a token
// bucket from the list at first (an offset in the file): the list itself
// when n is 1, else an id no offset has (the top bit set, and n).
func unionID(first core.ListID, n int) core.ListID {
	if n == 1 {
		return first
	}
	return first | core.ListID(n)<<56 | 1<<63
}

// memoOperands looks up once the lists of q's words and filters, for
// memoOf and boundOf. exact reports whether q's set is their intersection,
// which memoOf needs; a set within it (a distance filter, more than two
// words: the memo keeps no triples) still takes the bounds.
func memoOperands(s *core.Search, q core.Query) (ops []core.MemoOperand, exact bool, err error) {
	ops = s.Work.MemoOps[:0]
	defer func() { s.Work.MemoOps = ops[:0] }()
	if _, err := FacetMemo(s.Index); err != nil {
		return nil, false, err
	}
	one := func(lists [][]byte) core.ListID {
		if len(lists) == 0 {
			return 0
		}
		return unionID(idOf(s.Index, lists[0]), len(lists))
	}
	for _, word := range s.Work.Words {
		lists, err := s.WordLists(core.AllSpace, word)
		if err != nil {
			return nil, false, err
		}
		ops = append(ops, core.MemoOperand{Dim: core.NoDim, List: one(lists)})
	}
	err = s.EachFilter(q, core.NoDim, func(dim core.Dim, lists [][]byte) (bool, error) {
		ops = append(ops, core.MemoOperand{Dim: dim, List: one(lists)})
		return true, nil
	})
	return ops, q.Near == nil && len(s.Work.Words) <= 2, err
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
func memoOf(ix *core.Index, ops []core.MemoOperand, except core.Dim, n int) *memoFacets {
	var lists [2]core.ListID
	k := 0
	for _, op := range ops {
		switch {
		case op.Dim == except && except != core.NoDim:
		case op.List == 0 || k == len(lists):
			return nil
		default:
			lists[k] = op.List
			k++
		}
	}
	if k == 0 {
		return nil // also: the memo may not be read yet (memoOperands)
	}
	memo := facetsOf(ix).memo.memo
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

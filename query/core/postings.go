package core

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"unsafe"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	"stationdex/query/pagetree"
)

// search is one Search call inside its read transaction.
type Search struct {
	Index    *Index
	Tx       *bolt.Tx
	Work     *workspace
	Stations int
	// words is the words' match set before the filters, kept (read-only)
	// for the facets, which combine it with other filters; nil bm when
	// not kept.
	words Set
	// the buckets opened so far, with their cursors (see Search.bucket)
	open  [maxOpenBuckets]openBucket
	nopen int
	// MemoFacets counts the facets answered from the memo, MemoBounded
	// those whose count its bounds ended early (Result)
	MemoFacets, MemoBounded int
	// shared is the entries sharing a group of a distinct search's match
	// set of (see sharedOf), and byGroup the same entries as group<<32 |
	// record, sorted (see sharedByGroup), once a facet has needed them
	Shared struct {
		Of *roaring.Bitmap
		Set
		ByGroup []uint64
		Sorted  bool
	}
}

// namespace is a pair of token and prefix buckets: the name fields only, or
// every searchable field.
type Namespace struct {
	Tokens, Prefix []byte
}

var (
	NameSpace = Namespace{Tokens: format.BucketNameTokens, Prefix: format.BucketNamePrefix}
	AllSpace  = Namespace{Tokens: format.BucketAllTokens, Prefix: format.BucketAllPrefix}
)

// get maps the bitmap stored under key in bucket, or an empty set when the
// key is absent.
func (s *Search) Get(bucket []byte, key []byte) (Set, error) {
	v := s.Lookup(bucket, key)
	if v == nil {
		return s.Work.Scratch(), nil
	}
	return s.Work.View(v)
}

func (s *Search) KeyOf(str string) []byte {
	s.Work.key = append(s.Work.key[:0], str...)
	return s.Work.key
}

// wordSet is every station with a token in ns that starts with word: the
// ready union in the prefix bucket when the writer stored one, else the
// union of the few tokens a cursor finds (see format: PrefixFanout).
func (s *Search) WordSet(ns Namespace, word string) (Set, error) {
	lists, err := s.WordLists(ns, word)
	if err != nil {
		return Set{}, err
	}
	return s.Work.UnionRaw(lists)
}

// wordLists is where the lists of the stations with a token in ns that
// starts with word are: the ready union in the prefix bucket when the
// writer stored one, else the few tokens a cursor finds (see format:
// PrefixFanout; from the namespace's tokenTable once Warm built it). Both
// search paths build on it (wordSet; addWord). The slice is the
// workspace's scratch, valid until the next call.
func (s *Search) WordLists(ns Namespace, word string) ([][]byte, error) {
	lists := s.Work.RawLists[:0]
	defer func() { s.Work.RawLists = lists[:0] }()
	key := s.KeyOf(word)
	if v := s.Lookup(ns.Prefix, key); v != nil {
		return append(lists, v), nil
	}
	var ok bool
	if t := s.Index.tokenTable(ns); t != nil {
		lists, ok = t.appendTokens(lists, s.Index.Tree, key)
	} else {
		lists, ok = s.appendTokens(lists, ns, key)
	}
	if !ok {
		return nil, fmt.Errorf("%w: more than %d tokens start with %q in %s and %s has no entry",
			format.ErrCorrupt, format.PrefixFanout, word, ns.Tokens, ns.Prefix)
	}
	return lists, nil
}

// appendTokens is tokenTable.appendTokens read with a cursor, before Warm
// built the table.
func (s *Search) appendTokens(lists [][]byte, ns Namespace, key []byte) ([][]byte, bool) {
	c := s.Bucket(ns.Tokens).cursor()
	for k, v := c.Seek(key); k != nil && bytes.HasPrefix(k, key); k, v = c.Next() {
		if len(lists) == format.PrefixFanout {
			return lists, false
		}
		lists = append(lists, v)
	}
	return lists, true
}

// allWords is the intersection of the word sets of every word in ns,
// smallest first: the first intersection of two read-only views makes a
// fresh bitmap no larger than the smallest, which the others shrink in
// place (intersecting into a copy of the first word's view would clone
// every container of that view, however common the word). It stops early
// once a set or the intersection is empty.
func (s *Search) allWords(ns Namespace, words []string) (Set, error) {
	if len(words) == 1 {
		return s.WordSet(ns, words[0])
	}
	// Every word's lists are found first: a word nothing has makes the
	// search empty before any other word's set is built.
	refs, ends := s.Work.wordRefs[:0], s.Work.wordEnds[:0]
	defer func() {
		clear(refs[:cap(refs)])
		s.Work.wordRefs, s.Work.wordEnds = refs[:0], ends[:0]
	}()
	for _, word := range words {
		lists, err := s.WordLists(ns, word)
		if err != nil || len(lists) == 0 {
			return s.Work.Scratch(), err
		}
		refs = append(refs, lists...)
		ends = append(ends, len(refs))
	}
	sets := s.Work.wordSets[:0]
	defer func() { clear(sets); s.Work.wordSets = sets[:0] }()
	start := 0
	for _, end := range ends {
		ws, err := s.Work.UnionRaw(refs[start:end])
		if err != nil || ws.Empty() {
			return ws, err
		}
		sets = append(sets, sizedSet{ws, ws.Card()})
		start = end
	}
	slices.SortStableFunc(sets, func(a, b sizedSet) int { return cmp.Compare(a.n, b.n) })
	first := sets[0].Set
	first.Owned = false // the word sets stay as they are: intersect into a fresh bitmap
	acc := s.Work.And(first, sets[1].Set)
	for _, ws := range sets[2:] {
		if acc.Empty() {
			break
		}
		acc = s.Work.And(acc, ws.Set)
	}
	return acc, nil
}

// sizedSet is a set and its cardinality.
type sizedSet struct {
	Set
	n int
}

// exactName is the stations whose name key equals the query's.
func (s *Search) exactName(words []string) (Set, error) {
	s.Work.key = exactKey(s.Work.key[:0], words)
	return s.Get(format.BucketNames, s.Work.key)
}

// openBucket is a bucket a search has opened, read through the index's
// page tree (pagetree.Tree), with one cursor it reuses.
type openBucket struct {
	name   *byte // the format.Bucket* variable's bytes: buckets are named by those
	OK     bool  // the bucket exists
	Cur    pagetree.Cursor
	filter *keyFilter // of the bucket's keys, when Warm built one (see keyFilter)
}

// maxOpenBuckets is more than the buckets one search reads: words (two
// namespaces, tokens and prefixes), names, filters, records.
const maxOpenBuckets = 12

// bucket opens name once per search: the root is looked up in the tree's
// table of buckets, and the cursor's stack lives in the search.
func (s *Search) Bucket(name []byte) *openBucket {
	p := unsafe.SliceData(name)
	for i := range s.open[:s.nopen] {
		if s.open[i].name == p {
			return &s.open[i]
		}
	}
	i := s.nopen
	if i == len(s.open) {
		i-- // full: reuse the last slot (only costs lookups, never happens with our buckets)
	} else {
		s.nopen++
	}
	root, ok := s.Index.Tree.Root(string(name))
	s.open[i] = openBucket{name: p, OK: ok, Cur: s.Index.Tree.Cursor(root), filter: s.Index.filterOf(name)}
	return &s.open[i]
}

// cursor is the bucket's reusable cursor.
func (ob *openBucket) cursor() *pagetree.Cursor { return &ob.Cur }

// Get is the value stored under key, or nil. A key the bucket's filter
// rules out is not looked for.
func (ob *openBucket) Get(key []byte) []byte {
	if !ob.OK || ob.filter != nil && !ob.filter.mayHave(key) {
		return nil
	}
	k, v := ob.Cur.Seek(key)
	if k == nil || !bytes.Equal(k, key) {
		return nil
	}
	return v
}

// Seek is the first pair at or after key, or nils: a cursor's Seek, for
// readers that also take a bbolt cursor.
func (ob *openBucket) Seek(key []byte) (k, v []byte) {
	if !ob.OK {
		return nil, nil
	}
	return ob.Cur.Seek(key)
}

// lookup is the value stored under key in the bucket name, or nil.
func (s *Search) Lookup(name, key []byte) []byte {
	return s.Bucket(name).Get(key)
}

// treeCursor is a page-tree cursor over bucket name.
func TreeCursor(ix *Index, name []byte) (pagetree.Cursor, error) {
	root, ok := ix.Tree.Root(string(name))
	if !ok {
		return pagetree.Cursor{}, fmt.Errorf("%w: bucket %s missing", format.ErrCorrupt, name)
	}
	return ix.Tree.Cursor(root), nil
}

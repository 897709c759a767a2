package core

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
)

// search is one Search call inside its read transaction.
type search struct {
	ix       *Index
	Tx       *bolt.Tx
	w        *workspace
	stations int
	// words is the words' match set before the filters, kept (read-only)
	// for the facets, which combine it with other filters; nil bm when
	// not kept.
	words Set
	// the buckets opened so far, with their cursors (see lookup.go)
	open  [maxOpenBuckets]openBucket
	nopen int
	// memoFacets counts the facets answered from the memo (Result)
	memoFacets int
	// shared is the entries sharing a group of a distinct search's match
	// set of (see sharedOf), and byGroup the same entries as group<<32 |
	// record, sorted (see sharedByGroup), once a facet has needed them
	shared struct {
		of *roaring.Bitmap
		Set
		byGroup []uint64
		sorted  bool
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
func (s *search) get(bucket []byte, key []byte) (Set, error) {
	v := s.lookup(bucket, key)
	if v == nil {
		return s.w.scratch(), nil
	}
	return s.w.View(v)
}

func (s *search) keyOf(str string) []byte {
	s.w.key = append(s.w.key[:0], str...)
	return s.w.key
}

// wordSet is every station with a token in ns that starts with word: the
// ready union in the prefix bucket when the writer stored one, else the
// union of the few tokens a cursor finds (see format: PrefixFanout).
func (s *search) WordSet(ns Namespace, word string) (Set, error) {
	lists, err := s.wordLists(ns, word)
	if err != nil {
		return Set{}, err
	}
	return s.w.unionRaw(lists)
}

// wordLists is where the lists of the stations with a token in ns that
// starts with word are: the ready union in the prefix bucket when the
// writer stored one, else the few tokens a cursor finds (see format:
// PrefixFanout; from the namespace's tokenTable once Warm built it). Both
// search paths build on it (wordSet; addWord). The slice is the
// workspace's scratch, valid until the next call.
func (s *search) wordLists(ns Namespace, word string) ([][]byte, error) {
	lists := s.w.rawLists[:0]
	defer func() { s.w.rawLists = lists[:0] }()
	key := s.keyOf(word)
	if v := s.lookup(ns.Prefix, key); v != nil {
		return append(lists, v), nil
	}
	var ok bool
	if t := s.ix.tokenTable(ns); t != nil {
		lists, ok = t.appendTokens(lists, s.ix.tree, key)
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
func (s *search) appendTokens(lists [][]byte, ns Namespace, key []byte) ([][]byte, bool) {
	c := s.bucket(ns.Tokens).cursor()
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
func (s *search) allWords(ns Namespace, words []string) (Set, error) {
	if len(words) == 1 {
		return s.WordSet(ns, words[0])
	}
	// Every word's lists are found first: a word nothing has makes the
	// search empty before any other word's set is built.
	refs, ends := s.w.wordRefs[:0], s.w.wordEnds[:0]
	defer func() {
		clear(refs[:cap(refs)])
		s.w.wordRefs, s.w.wordEnds = refs[:0], ends[:0]
	}()
	for _, word := range words {
		lists, err := s.wordLists(ns, word)
		if err != nil || len(lists) == 0 {
			return s.w.scratch(), err
		}
		refs = append(refs, lists...)
		ends = append(ends, len(refs))
	}
	sets := s.w.wordSets[:0]
	defer func() { clear(sets); s.w.wordSets = sets[:0] }()
	start := 0
	for _, end := range ends {
		ws, err := s.w.unionRaw(refs[start:end])
		if err != nil || ws.empty() {
			return ws, err
		}
		sets = append(sets, sizedSet{ws, ws.Card()})
		start = end
	}
	slices.SortStableFunc(sets, func(a, b sizedSet) int { return cmp.Compare(a.n, b.n) })
	first := sets[0].Set
	first.owned = false // the word sets stay as they are: intersect into a fresh bitmap
	acc := s.w.And(first, sets[1].Set)
	for _, ws := range sets[2:] {
		if acc.empty() {
			break
		}
		acc = s.w.And(acc, ws.Set)
	}
	return acc, nil
}

// sizedSet is a set and its cardinality.
type sizedSet struct {
	Set
	n int
}

// exactName is the stations whose name key equals the query's.
func (s *search) exactName(words []string) (Set, error) {
	s.w.key = exactKey(s.w.key[:0], words)
	return s.get(format.BucketNames, s.w.key)
}

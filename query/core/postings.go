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
	tx       *bolt.Tx
	w        *workspace
	stations int
	// words is the words' match set before the filters, kept (read-only)
	// for the facets, which combine it with other filters; nil bm when
	// not kept.
	words set
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
		set
		byGroup []uint64
		sorted  bool
	}
}

// namespace is a pair of token and prefix buckets: the name fields only, or
// every searchable field.
type namespace struct {
	tokens, prefix []byte
}

var (
	nameSpace = namespace{tokens: format.BucketNameTokens, prefix: format.BucketNamePrefix}
	allSpace  = namespace{tokens: format.BucketAllTokens, prefix: format.BucketAllPrefix}
)

// get maps the bitmap stored under key in bucket, or an empty set when the
// key is absent.
func (s *search) get(bucket []byte, key []byte) (set, error) {
	v := s.lookup(bucket, key)
	if v == nil {
		return s.w.scratch(), nil
	}
	return s.w.view(v)
}

func (s *search) keyOf(str string) []byte {
	s.w.key = append(s.w.key[:0], str...)
	return s.w.key
}

// wordSet is every station with a token in ns that starts with word: the
// ready union in the prefix bucket when the writer stored one, else the
// union of the few tokens a cursor finds (see format: PrefixFanout).
func (s *search) wordSet(ns namespace, word string) (set, error) {
	lists, err := s.wordLists(ns, word)
	if err != nil {
		return set{}, err
	}
	return s.w.unionRaw(lists)
}

// wordLists is where the lists of the stations with a token in ns that
// starts with word are: the ready union in the prefix bucket when the
// writer stored one, else the few tokens a cursor finds (see format:
// PrefixFanout; from the namespace's tokenTable once Warm built it). Both
// search paths build on it (wordSet; addWord). The slice is the
// workspace's scratch, valid until the next call.
func (s *search) wordLists(ns namespace, word string) ([][]byte, error) {
	lists := s.w.rawLists[:0]
	defer func() { s.w.rawLists = lists[:0] }()
	key := s.keyOf(word)
	if v := s.lookup(ns.prefix, key); v != nil {
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
			format.ErrCorrupt, format.PrefixFanout, word, ns.tokens, ns.prefix)
	}
	return lists, nil
}

// appendTokens is tokenTable.appendTokens read with a cursor, before Warm
// built the table.
func (s *search) appendTokens(lists [][]byte, ns namespace, key []byte) ([][]byte, bool) {
	c := s.bucket(ns.tokens).cursor()
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
func (s *search) allWords(ns namespace, words []string) (set, error) {
	if len(words) == 1 {
		return s.wordSet(ns, words[0])
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
		sets = append(sets, sizedSet{ws, ws.card()})
		start = end
	}
	slices.SortStableFunc(sets, func(a, b sizedSet) int { return cmp.Compare(a.n, b.n) })
	first := sets[0].set
	first.owned = false // the word sets stay as they are: intersect into a fresh bitmap
	acc := s.w.and(first, sets[1].set)
	for _, ws := range sets[2:] {
		if acc.empty() {
			break
		}
		acc = s.w.and(acc, ws.set)
	}
	return acc, nil
}

// sizedSet is a set and its cardinality.
type sizedSet struct {
	set
	n int
}

// exactName is the stations whose name key equals the query's.
func (s *search) exactName(words []string) (set, error) {
	s.w.key = exactKey(s.w.key[:0], words)
	return s.get(format.BucketNames, s.w.key)
}

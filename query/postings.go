package query

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/format"
	"stationdex/indexer/iso"
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
	key := s.keyOf(word)
	if v := s.lookup(ns.prefix, key); v != nil {
		return s.w.view(v)
	}
	lists := s.w.rawLists[:0]
	defer func() { clear(lists); s.w.rawLists = lists[:0] }()
	c := s.bucket(ns.tokens).cursor()
	for k, v := c.Seek(key); k != nil && bytes.HasPrefix(k, key); k, v = c.Next() {
		if len(lists) == format.PrefixFanout {
			return set{}, fmt.Errorf("%w: more than %d tokens start with %q in %s and %s has no entry",
				format.ErrCorrupt, format.PrefixFanout, word, ns.tokens, ns.prefix)
		}
		lists = append(lists, v)
	}
	return s.w.unionRaw(lists)
}

// hasWord reports whether a token in ns starts with word.
func (s *search) hasWord(ns namespace, word string) bool {
	key := s.keyOf(word)
	if s.lookup(ns.prefix, key) != nil {
		return true
	}
	k, _ := s.bucket(ns.tokens).cursor().Seek(key)
	return k != nil && bytes.HasPrefix(k, key)
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
	for _, word := range words {
		// a word nothing has makes the search empty: found by a lookup,
		// before any other word's set is built
		if !s.hasWord(ns, word) {
			return s.w.scratch(), nil
		}
	}
	sets := s.w.wordSets[:0]
	defer func() { clear(sets); s.w.wordSets = sets[:0] }()
	for _, word := range words {
		ws, err := s.wordSet(ns, word)
		if err != nil || ws.empty() {
			return ws, err
		}
		sets = append(sets, sizedSet{ws, ws.card()})
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

// country looks the code up in upper case; only ASCII letters can match.
func (s *search) country(code string) (set, error) {
	key := s.keyOf(code)
	for i, c := range key {
		if 'a' <= c && c <= 'z' {
			key[i] = c - 'a' + 'A'
		}
	}
	return s.get(format.BucketCountries, key)
}

// language accepts an exact source label or anything iso.LanguageCode
// resolves (codes of every ISO 639 part, English and native names): the
// stations with that label, united with those filed under its code. When v
// resolves to a code, its label's stations are already filed under that
// code (the indexer files every label under the code it resolves to), so
// the code's list alone is the union.
func (s *search) language(v string) (set, error) {
	if code, ok := iso.LanguageCode(v); ok {
		return s.get(format.BucketLangCodes, s.keyOf(code))
	}
	return s.get(format.BucketLangLabels, s.keyOf(format.FacetKey(v)))
}

func (s *search) genre(v string) (set, error) {
	return s.get(format.BucketGenres, s.keyOf(format.FacetKey(v)))
}

// exactName is the stations whose name key equals the query's.
func (s *search) exactName(words []string) (set, error) {
	key := s.w.key[:0]
	for i, word := range words {
		if i > 0 {
			key = append(key, ' ')
		}
		key = append(key, word...)
	}
	s.w.key = key
	return s.get(format.BucketNames, key)
}

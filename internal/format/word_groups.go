package format

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/RoaringBitmap/roaring/v2"
)

// Word groups. A distinct search of one word and nothing else has as
// many results as there are groups among the stations the word finds;
// for a broad word that is a look at the group of hundreds of thousands
// of entries, where the search itself reads a page. So the indexer
// counts them for every word that finds many stations:
//
//	word_groups  word -> uint32 big-endian: the groups among the stations
//	             with an all_tokens token that starts with word (as a
//	             reader finds them: the all_prefix list, or the few
//	             tokens), for every word, a prefix of a token cut at a
//	             rune boundary, that finds at least WordGroupsMin
//	             stations. No other keys.
//
// A word that finds fewer costs a reader little to count.
var BucketWordGroups = []byte("word_groups")

// WordGroupsMin is the fewest stations a word of word_groups finds.
const WordGroupsMin = 1024

// Cursor is what EachCountedWord reads a token bucket through (a bbolt
// cursor).
type Cursor interface {
	First() (key, value []byte)
	Seek(seek []byte) (key, value []byte)
	Next() (key, value []byte)
}

// EachCountedWord calls fn with every word of word_groups, in ascending
// order, and the stations it finds (valid during the call only). tokens
// opens a cursor on the all_tokens bucket; prefix is the all_prefix
// bucket's list of a word, nil when it has none. Writer and checker
// enumerate the words the same way.
//
// Every prefix of a token is considered once, at the first token it
// begins, shortest first; a token's longer prefixes find no more
// stations than its shorter ones, so the first prefix that finds too few
// ends the token's.
func EachCountedWord(tokens func() Cursor, prefix func(word []byte) []byte, fn func(word []byte, stations *roaring.Bitmap) error) error {
	outer, inner := tokens(), tokens()
	var prev []byte
	ws := &wordSet{}
	for tok, _ := outer.First(); tok != nil; tok, _ = outer.Next() {
		for end := 0; end < len(tok); {
			_, size := utf8.DecodeRune(tok[end:])
			end += size
			word := tok[:end]
			if bytes.HasPrefix(prev, word) {
				continue // considered at an earlier token
			}
			stations, err := ws.of(inner, prefix, word)
			if err != nil {
				return fmt.Errorf("word %q: %w", word, err)
			}
			if stations == nil {
				break
			}
			if err := fn(word, stations); err != nil {
				return err
			}
		}
		prev = append(prev[:0], tok...)
	}
	return nil
}

// wordSet builds a word's stations, reusing its bitmaps.
type wordSet struct {
	views []*roaring.Bitmap
	union roaring.Bitmap
}

// of is the stations word finds, or nil when they are fewer than
// WordGroupsMin (known from the lists' sizes before any union).
func (ws *wordSet) of(c Cursor, prefix func([]byte) []byte, word []byte) (*roaring.Bitmap, error) {
	if v := prefix(word); v != nil {
		bm, err := ws.view(0, v)
		if err != nil || bm.GetCardinality() < WordGroupsMin {
			return nil, err
		}
		return bm, nil
	}
	n, most := 0, uint64(0)
	for k, v := c.Seek(word); k != nil && bytes.HasPrefix(k, word); k, v = c.Next() {
		if n == PrefixFanout {
			return nil, fmt.Errorf("%w: more than %d tokens start with it and all_prefix has no list", ErrCorrupt, PrefixFanout)
		}
		bm, err := ws.view(n, v)
		if err != nil {
			return nil, err
		}
		most += bm.GetCardinality()
		n++
	}
	switch {
	case most < WordGroupsMin:
		return nil, nil
	case n == 1:
		return ws.views[0], nil
	}
	ws.union.Clear()
	for _, bm := range ws.views[:n] {
		ws.union.Or(bm)
	}
	if ws.union.GetCardinality() < WordGroupsMin {
		return nil, nil
	}
	return &ws.union, nil
}

// view maps list v into the i-th view.
func (ws *wordSet) view(i int, v []byte) (*roaring.Bitmap, error) {
	for len(ws.views) <= i {
		ws.views = append(ws.views, roaring.New())
	}
	bm := ws.views[i]
	bm.Clear()
	if _, err := bm.FromBuffer(v); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return bm, nil
}

// ParseWordGroups decodes a word_groups value, written as listed_groups'
// (AppendListedGroups).
func ParseWordGroups(v []byte) (int, error) { return parseGroupCount(BucketWordGroups, v) }

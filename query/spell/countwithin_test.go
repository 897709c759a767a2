package spell

import (
	"testing"
	"unicode/utf8"

	"github.com/RoaringBitmap/roaring/v2"

	"stationdex/internal/fold"
	"stationdex/query/core"
)

// TestCountWithinAsUnion: counting a set's stations that have a token
// starting with a prefix, list by list without the union, equals counting
// them against the union, for prefixes of several tokens' lists, within
// a broad set and a narrow one; and it declines a word of one list and a
// set larger than the lists.
func TestCountWithinAsUnion(t *testing.T) {
	ix, _ := realIndex(t)
	prefixes := map[string]bool{}
	for _, r := range real.recs {
		for _, w := range fold.Tokens(r.Name) {
			if n := utf8.RuneCountInString(w); n >= 6 {
				prefixes[string([]rune(w)[:n-2])] = true // most such stand for their word and a longer one or two
			}
		}
		if len(prefixes) >= 1500 {
			break
		}
	}
	counted, declined := 0, 0
	err := ix.WithSearch(func(s *core.Search) error {
		type named struct {
			word string
			bm   *roaring.Bitmap
		}
		var sets []named
		for _, w := range []string{"radio", "fm", "jazz", "love"} {
			set, err := s.WordSet(core.AllSpace, w)
			if err != nil {
				return err
			}
			sets = append(sets, named{w, set.BM.Clone()})
		}
		c := &combiner{s: s}
		for p := range prefixes {
			for _, within := range sets {
				n, ok := c.countWithin(within.bm, p)
				if c.err != nil {
					return c.err
				}
				if !ok {
					declined++
					continue
				}
				counted++
				union, err := s.WordSet(core.AllSpace, p)
				if err != nil {
					return err
				}
				if want := int(within.bm.AndCardinality(union.BM)); n != want {
					t.Errorf("%q within %q: %d, the union says %d", p, within.word, n, want)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d counts list by list, %d declined", counted, declined)
	if counted < 10 || declined == 0 {
		t.Errorf("%d counts list by list, %d declined: a way went untested", counted, declined)
	}
}

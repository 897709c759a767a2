package spell

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/fold"
	"stationdex/query/core"
	"stationdex/query/facets"
	"stationdex/query/internal/testindex"
)

// typoQueries are zero-result searches made from real name words by one
// or two edits, a fifth with a country filter: what BenchmarkSuggest and
// the close-word checks run on.
func typoQueries(tb testing.TB, ix *core.Index, n int) []core.Query {
	tb.Helper()
	var words []string
	for _, w := range testindex.SampledWords(real.recs, n) {
		if !strings.Contains(w, " ") {
			words = append(words, w)
		}
	}
	var qs []core.Query
	for i, text := range testindex.Typos(words) {
		q := core.Query{Q: text, Limit: 10, Suggest: true}
		if i%5 == 0 {
			q.Filter[core.DimCountry] = []string{"US"}
		}
		if res, err := search(ix, core.Query{Q: q.Q, Filter: q.Filter, Limit: 1}); err == nil && res.Total == 0 {
			qs = append(qs, q)
		}
	}
	return qs
}

// BenchmarkSuggest times zero-result searches with suggestions on the
// real snapshot, and the same searches' close-word lookups alone.
func BenchmarkSuggest(b *testing.B) {
	ix, _ := realIndex(b)
	// What query.Index.Warm builds for a search (this package cannot
	// import query, which imports it).
	if err := errors.Join(facets.Warm(ix), ix.WarmGroups(), ix.WarmLookups()); err != nil {
		b.Fatal(err)
	}
	if _, err := Dictionary(ix); err != nil {
		b.Fatal(err)
	}
	qs := typoQueries(b, ix, 400)
	b.Run("search", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := search(ix, qs[i%len(qs)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	dict, err := Dictionary(ix)
	if err != nil {
		b.Fatal(err)
	}
	// each typo as if met for the first time: its words are dropped from
	// the cache of recent words before it is searched, as cold traffic
	// meets nearly every typo
	b.Run("search_first", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			q := qs[i%len(qs)]
			dict.recent.mu.Lock()
			for _, w := range strings.Fields(q.Q) {
				delete(dict.recent.words, w)
			}
			dict.recent.mu.Unlock()
			if _, err := search(ix, q); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("close_words", func(b *testing.B) {
		i := 0
		for b.Loop() {
			for _, w := range strings.Fields(qs[i%len(qs)].Q) {
				dict.closeWords(w)
			}
			i++
		}
	})
	// without the cache of recent words: a typo met for the first time
	b.Run("close_words_found", func(b *testing.B) {
		i := 0
		for b.Loop() {
			for _, w := range strings.Fields(qs[i%len(qs)].Q) {
				dict.findCloseWords(w)
			}
			i++
		}
	})
}

// TestCloseWordsByDeletesAsByWalk: the delete index finds exactly the
// words the trie walk finds (the same set, so the same first
// wordCandidates), for the words of hundreds of typo searches of the
// real snapshot, for dictionary words themselves (each its own
// neighbourhood) in every script the snapshot has, and for edge cases.
func TestCloseWordsByDeletesAsByWalk(t *testing.T) {
	ix, _ := realIndex(t)
	dict, err := Dictionary(ix)
	if err != nil {
		t.Fatal(err)
	}
	if dict.deletes == nil {
		t.Fatal("no delete index for the real snapshot's dictionary")
	}
	var words []string
	for _, q := range typoQueries(t, ix, 400) {
		words = append(words, strings.Fields(q.Q)...)
	}
	for i := 0; i < dict.Len(); i += 97 {
		words = append(words, dict.Word(i))
	}
	words = append(words, "", "a", "ab", "ba", "radoi", "rdaio", "xxxxxxxxxxxxxxxxxxxxxxxxx", "北京", "москва", "ελλαδα",
		strings.Repeat("abcdefghij", 3)[:24], strings.Repeat("abcdefghij", 3)[:25])
	compared, found := 0, 0
	for _, w := range words {
		if utf8.RuneCountInString(w) > maxIndexedRunes-2 {
			continue
		}
		byWalk, byDeletes := dict.within(w), dict.withinByDeletes(w)
		sortClose(byWalk)
		sortClose(byDeletes)
		if !slices.Equal(byWalk, byDeletes) {
			t.Fatalf("%q: walk finds %v\ndeletes find %v", w, byWalk, byDeletes)
		}
		compared++
		found += len(byWalk)
	}
	t.Logf("%d words compared, %d close words found", compared, found)
	if compared < 500 || found < 1000 {
		t.Fatalf("%d words compared, %d close words: too few to show anything", compared, found)
	}
}

func sortClose(l []closeWord) {
	slices.SortFunc(l, func(a, b closeWord) int { return strings.Compare(a.word, b.word) })
}

// TestSuggestionsByEditsAsWholeWalk: counting combinations fewest edits
// first and stopping at MaxSuggestions gives the suggestions the whole
// walk gives, for hundreds of typo searches of the real snapshot, with
// and without a filter.
func TestSuggestionsByEditsAsWholeWalk(t *testing.T) {
	ix, _ := realIndex(t)
	compared, cut := 0, 0
	for _, q := range typoQueries(t, ix, 400) {
		w := core.GetWorkspace()
		err := ix.View(func(tx *bolt.Tx) error {
			s := w.NewSearch(ix)
			s.Tx = tx
			s.Work.Words = fold.AppendTokens(s.Work.Words[:0], q.Q)
			f, filtered, err := s.Filtered(q, core.NoDim)
			if err != nil || filtered && f.Empty() {
				return err
			}
			options, err := wordOptions(s, s.Work.Words)
			if err != nil || len(options) == 0 {
				return err
			}
			newCombiner := func(want int) *combiner {
				c := &combiner{s: s, options: options, words: make([]string, len(options)), seen: map[string]bool{}, want: want}
				if filtered {
					c.filter = s.Work.Settle(f).BM
				}
				return c
			}
			whole, byEdits := newCombiner(-1), newCombiner(-1)
			whole.walk(0, nil, 0)
			byEdits.search()
			if len(byEdits.found) < len(whole.found) {
				cut++
			}
			if a, b := whole.best(), byEdits.best(); !slices.Equal(a, b) {
				t.Errorf("%s: whole walk %v, fewest edits first %v", q.String(), a, b)
			}
			compared++
			return nil
		})
		w.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d typo searches compared, %d stopped early", compared, cut)
	if compared < 200 || cut < compared/20 {
		t.Fatalf("%d compared, %d stopped early: the early stop is not exercised", compared, cut)
	}
}

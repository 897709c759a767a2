package core

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"testing"
	"time"
	"unicode/utf8"

	"stationdex/internal/format"
	"stationdex/query/internal/testindex"
)

// TestKeyFilterNeverDeniesAKey: a filter has every key it was built from,
// at sizes from one key to many blocks, and turns away nearly every key it
// was not (about one in a few hundred gets through; 2% would mean the bits
// are not spread).
func TestKeyFilterNeverDeniesAKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(20250227, 1))
	for _, n := range []int{1, 31, 1000, 50000} {
		seed := maphash.MakeSeed()
		keys := make(map[string]bool, n)
		hs := make([]uint64, 0, n)
		for len(keys) < n {
			k := fmt.Sprintf("w%x", rng.Uint64())
			if !keys[k] {
				keys[k] = true
				hs = append(hs, maphash.String(seed, k))
			}
		}
		f := newKeyFilter(seed, hs)
		for k := range keys {
			if !f.mayHave([]byte(k)) {
				t.Fatalf("%d keys: the filter denies %q, one of them", n, k)
			}
		}
		const tries = 20000
		passed := 0
		for i := range tries {
			if f.mayHave(fmt.Appendf(nil, "absent %d", i)) {
				passed++
			}
		}
		if passed > tries/50 {
			t.Errorf("%d keys: %d of %d absent keys pass the filter", n, passed, tries)
		}
	}
}

// TestWarmLookupsChangeNoAnswer: on the real snapshot, the buckets'
// filters built by Warm have every key of their buckets, its token tables
// find what a cursor finds, and searches answer byte for byte as on the
// same file without either: real words, their prefixes, whole names (the
// names bucket's keys), typos, with and without filters and suggestions.
func TestWarmLookupsChangeNoAnswer(t *testing.T) {
	shared, _ := realIndex(t)
	plain, filtered := openAgain(t, shared), openAgain(t, shared)
	if err := Warm(filtered); err != nil {
		t.Fatal(err)
	}
	if filtered.filters.ready.Load() == nil || plain.filters.ready.Load() != nil ||
		filtered.tokens.ready.Load() == nil || plain.tokens.ready.Load() != nil {
		t.Fatal("Warm built no filters or tables, or Open built some")
	}
	for _, name := range filteredBucketNames {
		keysPassFilter(t, filtered, name)
	}
	for _, ns := range []Namespace{NameSpace, AllSpace} {
		tableFindsAsCursor(t, filtered, ns)
	}
	compared := 0
	for _, q := range filterQueries() {
		if same(t, plain, filtered, q) {
			compared++
		}
	}
	if compared < 1000 {
		t.Fatalf("only %d searches compared", compared)
	}
}

// openAgain opens ix's file once more, closed at the end of the test.
func openAgain(t testing.TB, ix *Index) *Index {
	t.Helper()
	again, err := Open(ix.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := again.Close(); err != nil {
			t.Error(err)
		}
	})
	return again
}

// keysPassFilter: every key of bucket passes ix's filter of it.
func keysPassFilter(t *testing.T, ix *Index, bucket []byte) {
	t.Helper()
	n := 0
	err := ix.Read(func() error {
		c, err := TreeCursor(ix, bucket)
		if err != nil {
			return err
		}
		for k, _ := c.Seek(nil); k != nil; k, _ = c.Next() {
			if !ix.filterOf(bucket).mayHave(k) {
				return fmt.Errorf("bucket %s: the filter denies %q", bucket, k)
			}
			n++
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("bucket %s: %d keys checked, %v", bucket, n, err)
	}
}

// filterQueries are searches whose look-ups the filters answer: words and
// whole names of real stations, their first letters, typos of the words,
// each alone, with suggestions, and with a country.
func filterQueries() []Query {
	var texts []string
	words := testindex.SampledWords(real.recs, 300)
	for _, w := range words {
		texts = append(texts, w, prefixRunes(w, 1), prefixRunes(w, 3))
	}
	texts = append(texts, testindex.Typos(words)...)
	for i := 0; i < len(real.recs); i += len(real.recs)/200 + 1 {
		texts = append(texts, real.recs[i].Name)
	}
	var qs []Query
	for i, text := range texts {
		q := Query{Q: text, Limit: 10, Suggest: i%2 == 0}
		qs = append(qs, q)
		if i%3 == 0 {
			q.Filter[DimCountry] = []string{"DE"}
			qs = append(qs, q)
		}
	}
	return qs
}

func prefixRunes(w string, n int) string {
	i := 0
	for range n {
		if i == len(w) {
			break
		}
		_, size := utf8.DecodeRuneInString(w[i:])
		i += size
	}
	return w[:i]
}

// same reports whether q was compared: it fails when the two indexes
// answer it differently.
func same(t *testing.T, plain, filtered *Index, q Query) bool {
	t.Helper()
	want, wantJSON, errWant := searchJSON(plain, q, nil)
	got, gotJSON, errGot := searchJSON(filtered, q, nil)
	if (errWant != nil) != (errGot != nil) {
		t.Fatalf("%s: error %v without filters, %v with", q.String(), errWant, errGot)
	}
	if errWant != nil {
		return false // a query the API refuses: nothing to compare
	}
	if want.Total != got.Total || !bytes.Equal(wantJSON, gotJSON) ||
		fmt.Sprint(want.Suggestions) != fmt.Sprint(got.Suggestions) {
		t.Fatalf("%s: %d stations and suggestions %v without filters, %d and %v with",
			q.String(), want.Total, want.Suggestions, got.Total, got.Suggestions)
	}
	return true
}

// tableFindsAsCursor: for every key of ns's token bucket, the key itself,
// its first rune, its first two and the key with a byte after it, the
// table finds the lists a cursor finds, up to one past the fan-out.
func tableFindsAsCursor(t *testing.T, ix *Index, ns Namespace) {
	t.Helper()
	table := ix.tokenTable(ns)
	err := ix.Read(func() error {
		c, err := TreeCursor(ix, ns.Tokens)
		if err != nil {
			return err
		}
		var keys [][]byte
		for k, _ := c.Seek(nil); k != nil; k, _ = c.Next() {
			keys = append(keys, k)
		}
		if len(keys) == 0 || len(keys) != len(table.heads) {
			return fmt.Errorf("%s: %d keys, the table %d", ns.Tokens, len(keys), len(table.heads))
		}
		for _, k := range keys {
			for _, w := range [][]byte{k, []byte(prefixRunes(string(k), 1)), []byte(prefixRunes(string(k), 2)), append(bytes.Clone(k), 0)} {
				want := cursorLists(ix, ns, w)
				got, ok := table.appendTokens(nil, ix.Tree, w)
				if ok != (len(want) <= format.PrefixFanout) || len(got) > len(want) || !sameLists(got, want[:len(got)]) {
					return fmt.Errorf("%s %q: the table finds %d lists (%v), a cursor %d", ns.Tokens, w, len(got), ok, len(want))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// cursorLists is what a cursor finds under the prefix w, up to one past
// the fan-out.
func cursorLists(ix *Index, ns Namespace, w []byte) [][]byte {
	c, _ := TreeCursor(ix, ns.Tokens)
	var lists [][]byte
	for k, v := c.Seek(w); k != nil && bytes.HasPrefix(k, w) && len(lists) <= format.PrefixFanout; k, v = c.Next() {
		lists = append(lists, v)
	}
	return lists
}

// sameLists: the same values, at the same places in the mapping.
func sameLists(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) || len(a[i]) > 0 && &a[i][0] != &b[i][0] {
			return false
		}
	}
	return true
}

// BenchmarkWarmLookups times searches the way cold traffic sends them,
// each different from the last (real words, their prefixes, typos, some
// with a country), on two opens of the real snapshot: one warmed (key
// filters and token tables) and one warmed with both cleared, which reads
// the page tree as a search did before them. Batches alternate between
// the two, so that a busy machine slows both alike; it reports each
// side's time per search (ns/search-warmed, ns/search-tree).
func BenchmarkWarmLookups(b *testing.B) {
	shared, _ := realIndex(b)
	warmed, tree := openAgain(b, shared), openAgain(b, shared)
	for _, ix := range []*Index{warmed, tree} {
		if err := Warm(ix); err != nil {
			b.Fatal(err)
		}
	}
	tree.filters.ready.Store(nil)
	tree.tokens.ready.Store(nil)
	qs := coldQueries()
	const batch = 100
	var spent [2]time.Duration
	var searched [2]int
	var dst []byte
	for i := 0; b.Loop(); i++ {
		// each pair of batches: the same searches on both sides, which
		// goes first taking turns (the second finds the records cached)
		pair := i / (2 * batch)
		side := (i/batch + pair) % 2
		ix := []*Index{warmed, tree}[side]
		q := qs[(pair*batch+i%batch)%len(qs)]
		start := time.Now()
		var err error
		if _, dst, err = searchJSON(ix, q, dst[:0]); err != nil {
			b.Fatal(err)
		}
		spent[side] += time.Since(start)
		searched[side]++
	}
	for side, unit := range []string{"ns/search-warmed", "ns/search-tree"} {
		b.ReportMetric(float64(spent[side].Nanoseconds())/float64(max(searched[side], 1)), unit)
	}
}

// coldQueries are distinct searches drawn from the real snapshot as
// filterQueries are, shuffled so that consecutive ones share no pages.
func coldQueries() []Query {
	qs := filterQueries()
	rand.New(rand.NewPCG(20250227, 2)).Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	return qs
}

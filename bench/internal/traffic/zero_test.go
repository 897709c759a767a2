package traffic

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"stationdex/bench/internal/mix"
	"stationdex/indexer/realdata"
	qoracle "stationdex/oracle"
)

const coldRealN = 40_000

// samplePerKind is how many searches of the zero-result kinds the oracle
// checks, spread over the whole cold mix: each check is a linear scan of
// the snapshot, and make test runs these tests.
const samplePerKind = 150

var (
	coldOnce sync.Once
	coldQs   []mix.Query
	coldErr  error

	oracleOnce sync.Once
	oracle     *qoracle.Oracle
	oracleErr  error
)

// coldReal is the cold mix of the real snapshot (seed 1), drawn once for
// all tests, without an engine's zero check: what the tests check is the
// generator's own model.
func coldReal(t *testing.T) ([]mix.Query, error) {
	src := real(t)
	coldOnce.Do(func() { coldQs, coldErr = Cold(src, 1, coldRealN, nil) })
	return coldQs, coldErr
}

// realOracle is the query package's linear-scan oracle over the snapshot's
// cleaned records: the truth about what a search finds, written apart
// from both the engine and this generator.
func realOracle(t *testing.T) *qoracle.Oracle {
	t.Helper()
	path := realdata.Need(t)
	oracleOnce.Do(func() {
		recs, err := qoracle.ReadRecords(path)
		oracle, oracleErr = qoracle.New(recs), err
	})
	if oracleErr != nil {
		t.Fatal(oracleErr)
	}
	return oracle
}

// ofKind is the searches of the given kinds, at most n of them, spread
// over the whole mix.
func ofKind(qs []mix.Query, n int, kinds ...string) []mix.Query {
	var out []mix.Query
	for _, q := range qs {
		if slices.Contains(kinds, q.Class) {
			out = append(out, q)
		}
	}
	step := max(1, len(out)/n)
	var picked []mix.Query
	for i := 0; i < len(out) && len(picked) < n; i += step {
		picked = append(picked, out[i])
	}
	return picked
}

// TestColdZeroShare: at least 15% of the distinct cold searches are of a
// zero-result kind and at most their weight (18%), each zero-result kind
// present, in the real mix, a small one, and one large enough that the
// kinds that find stations repeat a lot.
func TestColdZeroShare(t *testing.T) {
	small, err := Cold(real(t), 9, 2000, nil)
	if err != nil {
		t.Fatal(err)
	}
	big, err := coldReal(t)
	if err != nil {
		t.Fatal(err)
	}
	large, err := Cold(real(t), 9, 200_000, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, qs := range [][]mix.Query{small, big, large} {
		kinds := map[string]int{}
		zero := 0
		for _, q := range qs {
			kinds[q.Class]++
			if IsZero(q.Class) {
				zero++
			}
		}
		if share := float64(zero) / float64(len(qs)); share < 0.15 || share > 0.18 {
			t.Errorf("%d searches: %.1f%% of a zero-result kind, want 15%% to 18%%", len(qs), 100*share)
		}
		for _, k := range []string{KindTypo1, KindTypo2, KindExcluded} {
			if kinds[k] == 0 {
				t.Errorf("%d searches: none of kind %s", len(qs), k)
			}
		}
	}
}

// TestColdZeroAnswers: the zero check is asked about every zero-result
// search and only about those, and a refused search is not in the mix.
func TestColdZeroAnswers(t *testing.T) {
	asked := 0
	refuse := func(q mix.Query) bool {
		if !IsZero(q.Class) {
			t.Fatalf("asked about %+v, not of a zero-result kind", q)
		}
		asked++
		return !strings.HasPrefix(q.Q, "s") // stands for "found something"
	}
	qs, err := Cold(real(t), 4, 3000, refuse)
	if err != nil {
		t.Fatal(err)
	}
	if asked == 0 {
		t.Fatal("the zero check was never asked")
	}
	for _, q := range qs {
		if IsZero(q.Class) && strings.HasPrefix(q.Q, "s") {
			t.Fatalf("%+v is in the mix although the zero check refused it", q)
		}
	}
	again, _ := Cold(real(t), 4, 3000, refuse)
	if !slices.Equal(qs, again) {
		t.Error("same seed and zero answers, different searches")
	}
}

// TestColdTypos: the misspelt word of every typo search is absent from
// the vocabulary (the oracle finds nothing for it) and at edit distance 1
// (typo_1) or 1 to 2 (typo_2) from a real name word, never 0.
func TestColdTypos(t *testing.T) {
	qs, err := coldReal(t)
	if err != nil {
		t.Fatal(err)
	}
	o, src := realOracle(t), real(t)
	words := nameWords(src)
	for _, q := range ofKind(qs, samplePerKind, KindTypo1, KindTypo2) {
		bad := strings.Fields(q.Q)[0]
		if _, found := slices.BinarySearch(src.vocab.tokens, bad); found {
			t.Fatalf("%q (%s) is in the vocabulary", bad, q.Class)
		}
		// Every word of a search must match, so the misspelt word
		// finding nothing is the whole search finding nothing.
		if ids := o.Search(qoracle.Request{Q: bad}); len(ids) > 0 {
			t.Fatalf("%q (%s) finds %d stations", bad, q.Class, len(ids))
		}
		d := nearest(bad, words)
		if d < 1 || d > 2 || q.Class == KindTypo1 && d != 1 {
			t.Fatalf("%q (%s): the nearest name word is %d edits away", bad, q.Class, d)
		}
	}
}

// TestColdExcluded: the word of every excluding search finds stations on
// its own, and none with its filter (the oracle says so, not the
// generator's model).
func TestColdExcluded(t *testing.T) {
	qs, err := coldReal(t)
	if err != nil {
		t.Fatal(err)
	}
	o := realOracle(t)
	byCountry := 0
	for _, q := range ofKind(qs, samplePerKind, KindExcluded) {
		if q.Country == "" && q.Language == "" || q.Genre != "" || strings.Contains(q.Q, " ") {
			t.Fatalf("%+v: want one word and a country or a language", q)
		}
		if q.Country != "" {
			byCountry++
		}
		if ids := o.Search(qoracle.Request{Q: q.Q}); len(ids) == 0 {
			t.Fatalf("%q finds nothing even without its filter", q.Q)
		}
		if ids := o.Search(qoracle.Request{Q: q.Q, Country: q.Country, Language: q.Language}); len(ids) > 0 {
			t.Fatalf("%+v finds %d stations", q, len(ids))
		}
	}
	if byCountry == 0 || byCountry == samplePerKind {
		t.Errorf("%d of %d excluding searches by country, want both filters", byCountry, samplePerKind)
	}
}

// nameWords are the distinct name words of the snapshot, by length.
func nameWords(src *Source) map[int][]string {
	seen := map[string]bool{}
	out := map[int][]string{}
	for _, s := range src.stations {
		for _, w := range s.words {
			if !seen[w] {
				seen[w] = true
				n := utf8.RuneCountInString(w)
				out[n] = append(out[n], w)
			}
		}
	}
	return out
}

// nearest is the smallest edit distance (the oracle's) from w to a name
// word, looking only at words within 2 runes of its length; 3 means
// farther than 2.
func nearest(w string, words map[int][]string) int {
	best := 3
	n := utf8.RuneCountInString(w)
	for l := n - 2; l <= n+2; l++ {
		for _, x := range words[l] {
			best = min(best, osa(w, x))
		}
	}
	return best
}

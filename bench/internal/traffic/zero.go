package traffic

import (
	"slices"
	"unicode/utf8"

	"stationdex/bench/internal/mix"
)

// The zero-result kinds of the cold mix: a name word misspelt by one or
// two edits (no token of the index starts with it), and a name word with
// a country or language filter that none of the word's stations has.
const (
	KindTypo1    = "typo_1"
	KindTypo2    = "typo_2"
	KindExcluded = "word_excluded"
)

// IsZero reports whether searches of a kind are made to find nothing.
func IsZero(kind string) bool {
	return kind == KindTypo1 || kind == KindTypo2 || kind == KindExcluded
}

// Filters of excluding searches are drawn from the most common values, as
// a user's would be; a word with more stations than excludedMost is drawn
// again (its stations have most values).
const (
	excludedFrom = 40
	excludedMost = 300
)

// typo misspells a name word by the given number of edits, at distance
// exactly that from the word and absent from the vocabulary; a third of
// the searches keep a second, correct word of the same name.
func (g *gen) typo(edits int) (mix.Query, bool) {
	s := g.station(hasWords)
	w := g.word(s)
	bad, ok := g.misspell(w, edits)
	if !ok || distance(bad, w) != edits {
		return mix.Query{}, false
	}
	q := mix.Query{Class: KindTypo1, Q: bad, Limit: g.limit()}
	if edits == 2 {
		q.Class = KindTypo2
	}
	if len(s.words) >= 2 && g.rng.IntN(3) == 0 {
		if other := g.word(s); other != w {
			q.Q += " " + other
		}
	}
	return q, true
}

// misspell applies edits random edits to a word of letters only, at least
// 4 runes long for one edit and 6 for two, and wants the result absent
// from the vocabulary; ok is false when the word does not qualify or the
// result is a real word's prefix.
func (g *gen) misspell(w string, edits int) (string, bool) {
	if !lettersOnly(w) || utf8.RuneCountInString(w) < 2+2*edits {
		return "", false
	}
	bad := w
	for range edits {
		bad = g.edit(bad)
	}
	return bad, g.src.vocab.absent(bad)
}

// excluded is a name word with a filter that none of the stations the word
// finds passes: a common country or language outside theirs.
func (g *gen) excluded() (mix.Query, bool) {
	w := g.word(g.station(hasWords))
	found, ok := g.src.vocab.matching(w, excludedMost)
	if !ok {
		return mix.Query{}, false
	}
	q := mix.Query{Class: KindExcluded, Q: w, Limit: g.limit()}
	if g.rng.IntN(2) == 0 {
		q.Country, ok = g.outside(g.src.countries, found, func(s *station) []string { return []string{s.country} })
	} else {
		q.Language, ok = g.outside(g.src.languages, found, func(s *station) []string { return s.langKeys })
	}
	return q, ok
}

// outside draws one of the first excludedFrom values that none of the
// found stations has.
func (g *gen) outside(values []string, found []int32, has func(*station) []string) (string, bool) {
	if len(values) == 0 {
		return "", false
	}
	v := values[g.rng.IntN(min(excludedFrom, len(values)))]
	for _, i := range found {
		if slices.Contains(has(&g.src.stations[i]), v) {
			return "", false
		}
	}
	return v, true
}

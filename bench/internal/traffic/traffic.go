// Package traffic generates the HTTP load mixes of the suite from the real
// snapshot's own words, prefixes, filters and offsets, deterministically
// (same snapshot and seed, same queries in the same order):
//
//   - Cold: many distinct searches, each meant to be sent about once per
//     run, so that no cache can help.
//   - Hot: about a thousand distinct searches, requested under a Zipf law
//     (s about 1.1), the shape of real traffic: a few searches very often,
//     a long tail rarely.
//   - Typos: zero-result searches made from real words by one or two
//     edits, for the "did you mean" suggestions.
//
// The committed mix (queries/mix.tsv) is for the engine; these are
// generated at run time and never committed.
package traffic

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode/utf8"

	"stationdex/bench/internal/mix"
	"stationdex/bench/internal/raw"
	"stationdex/indexer/fold"
	"stationdex/indexer/iso"
)

// station is what the generators use of one real station.
type station struct {
	words    []string // folded name tokens of at least two runes
	country  string   // alpha-2, upper case, or ""
	langs    []string // ISO 639 codes
	tags     []string // source tags fit for a filter
	hasWords bool
}

// Source is the vocabulary of a snapshot.
type Source struct {
	stations []station
	common   []string // the most frequent name words, for broad searches
}

// NewSource extracts the vocabulary of the real stations. Stations without
// a name word, a country, a language or a tag still count for what they
// have.
func NewSource(all []raw.Station) *Source {
	src := &Source{}
	freq := map[string]int{}
	for _, r := range all {
		var st station
		for _, w := range fold.Tokens(raw.CleanName(r.Name)) {
			if utf8.RuneCountInString(w) >= 2 && len(w) <= 40 {
				st.words = append(st.words, w)
				freq[w]++
			}
		}
		st.hasWords = len(st.words) > 0
		if len(r.CountryCode) == 2 {
			st.country = strings.ToUpper(r.CountryCode)
		}
		for _, l := range raw.SplitList(r.Language) {
			if c, ok := iso.LanguageCode(l); ok && !slices.Contains(st.langs, c) {
				st.langs = append(st.langs, c)
			}
		}
		for _, t := range raw.SplitList(r.Tags) {
			if utf8.RuneCountInString(t) <= 40 && !strings.ContainsAny(t, "\t\r\n") {
				st.tags = append(st.tags, t)
			}
		}
		src.stations = append(src.stations, st)
	}
	src.common = topWords(freq, 50)
	return src
}

func topWords(freq map[string]int, n int) []string {
	words := make([]string, 0, len(freq))
	for w := range freq {
		words = append(words, w)
	}
	slices.SortFunc(words, func(a, b string) int {
		if freq[a] != freq[b] {
			return freq[b] - freq[a]
		}
		return strings.Compare(a, b)
	})
	return words[:min(n, len(words))]
}

// Kinds of generated searches with their weights (per 100), in the order
// the generator draws them.
var Kinds = []struct {
	Name   string
	Weight int
}{
	{"word", 22}, {"prefix", 14}, {"two_words", 18}, {"word_country", 10}, {"word_genre", 6},
	{"word_language", 5}, {"country_genre", 7}, {"filter_offset", 10}, {"broad_offset", 8},
}

type gen struct {
	src *Source
	rng *rand.Rand
}

func (g *gen) station(ok func(*station) bool) *station {
	for {
		if s := &g.src.stations[g.rng.IntN(len(g.src.stations))]; ok(s) {
			return s
		}
	}
}

func hasWords(s *station) bool { return s.hasWords }

func (g *gen) limit() int { return []int{10, 20, 20, 20, 20, 20, 20, 20, 20, 50}[g.rng.IntN(10)] }

func (g *gen) word(s *station) string { return s.words[g.rng.IntN(len(s.words))] }

func (g *gen) kind() string {
	r := g.rng.IntN(100)
	for _, k := range Kinds {
		if r < k.Weight {
			return k.Name
		}
		r -= k.Weight
	}
	return Kinds[0].Name
}

// one draws a search of the given kind.
func (g *gen) one(kind string) mix.Query {
	q := mix.Query{Class: kind, Limit: g.limit()}
	switch kind {
	case "word":
		q.Q = g.word(g.station(hasWords))
	case "prefix":
		w := []rune(g.word(g.station(func(s *station) bool { return s.hasWords && longest(s.words) >= 4 })))
		for len(w) < 4 {
			w = []rune(g.word(g.station(hasWords)))
		}
		q.Q = string(w[:3+g.rng.IntN(min(3, len(w)-2))])
	case "two_words":
		s := g.station(func(s *station) bool { return len(s.words) >= 2 })
		i := g.rng.IntN(len(s.words) - 1)
		q.Q = s.words[i] + " " + s.words[i+1]
	case "word_country":
		s := g.station(func(s *station) bool { return s.hasWords && s.country != "" })
		q.Q, q.Country = g.word(s), s.country
	case "word_genre":
		s := g.station(func(s *station) bool { return s.hasWords && len(s.tags) > 0 })
		q.Q, q.Genre = g.word(s), s.tags[g.rng.IntN(len(s.tags))]
	case "word_language":
		s := g.station(func(s *station) bool { return s.hasWords && len(s.langs) > 0 })
		q.Q, q.Language = g.word(s), s.langs[g.rng.IntN(len(s.langs))]
	case "country_genre":
		s := g.station(func(s *station) bool { return s.country != "" && len(s.tags) > 0 })
		q.Country, q.Genre = s.country, s.tags[g.rng.IntN(len(s.tags))]
	case "filter_offset":
		s := g.station(func(s *station) bool { return s.country != "" && len(s.tags) > 0 && len(s.langs) > 0 })
		switch g.rng.IntN(3) {
		case 0:
			q.Country = s.country
		case 1:
			q.Genre = s.tags[g.rng.IntN(len(s.tags))]
		default:
			q.Language = s.langs[g.rng.IntN(len(s.langs))]
		}
		q.Offset = g.rng.IntN(100) * q.Limit
	case "broad_offset":
		q.Q = g.src.common[g.rng.IntN(len(g.src.common))]
		q.Offset = g.rng.IntN(5000/q.Limit+1) * q.Limit
	default:
		panic("traffic: unknown kind " + kind)
	}
	return q
}

func longest(words []string) int {
	n := 0
	for _, w := range words {
		n = max(n, utf8.RuneCountInString(w))
	}
	return n
}

// Cold returns n distinct searches (distinct request paths), drawn by kind
// weights, in a deterministic order.
func Cold(src *Source, seed uint64, n int) ([]mix.Query, error) {
	g := &gen{src: src, rng: rand.New(rand.NewPCG(seed, 0xc01d))}
	seen := make(map[string]bool, n)
	out := make([]mix.Query, 0, n)
	for tries := 0; len(out) < n; tries++ {
		if tries > 50*n {
			return nil, fmt.Errorf("traffic: only %d distinct searches after %d draws (wanted %d)", len(out), tries, n)
		}
		q := g.one(g.kind())
		if p := q.Path(); !seen[p] {
			seen[p] = true
			out = append(out, q)
		}
	}
	return out, nil
}

// Hot is a Zipf-shaped request sequence over a small set of searches.
type Hot struct {
	Queries []mix.Query // distinct, by popularity rank (0 most requested)
	Seq     []int       // the requests, as indexes into Queries
	S       float64     // the Zipf exponent
}

// NewHot draws distinct searches like Cold (another seed stream) and a
// sequence of requests whose ranks follow P(rank k) ∝ k^-s, k = 1..distinct.
func NewHot(src *Source, seed uint64, distinct, requests int, s float64) (*Hot, error) {
	qs, err := Cold(src, seed^0x407, distinct)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x2191))
	z := rand.NewZipf(rng, s, 1, uint64(distinct-1))
	if z == nil {
		return nil, fmt.Errorf("traffic: no Zipf law with s=%v (s must be > 1)", s)
	}
	h := &Hot{Queries: qs, Seq: make([]int, requests), S: s}
	for i := range h.Seq {
		h.Seq[i] = int(z.Uint64())
	}
	return h, nil
}

// Paths lists the request path of every query in order.
func Paths(qs []mix.Query) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.Path()
	}
	return out
}

// Paths lists the request paths of the sequence.
func (h *Hot) Paths() []string {
	p := Paths(h.Queries)
	out := make([]string, len(h.Seq))
	for i, k := range h.Seq {
		out[i] = p[k]
	}
	return out
}

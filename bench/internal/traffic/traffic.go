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
//   - Search pages: the cold and hot searches asked of the HTML search
//     page, as its form and pager send them, with the page's defaults
//     (searchpage.go).
//   - Crawl: every station page, listening page, Markdown twin and
//     directory page of an index, each once, the way a crawler walks a
//     site (crawl.go).
//
// Real search traffic finds nothing often: the cold mix has misspelt
// words and words with a filter that excludes all their stations
// (zero.go), at least 15% of it, so that a node's cost of an empty answer
// is part of what is measured.
//
// The committed mix (queries/mix.tsv) is for the engine; these are
// generated at run time and never committed.
//
// File map:
//   - traffic.go: this comment; Source, the snapshot's vocabulary, and the
//     cold and hot mixes drawn from it by weighted kinds
//   - vocabulary.go: what a query word can match, modelled from the raw
//     stations: tokens and their prefixes, the stations a word finds, the
//     filter values
//   - zero.go: the zero-result kinds of the cold mix: misspelt words and
//     words with a filter that excludes their stations
//   - typos.go: Typos, zero-result searches made from real name words by
//     one or two edits
//   - crawl.go: Site, Crawl and the pages a crawler walks, HTML and
//     Markdown twins
//   - site.go: SiteOf, the stations and directory values read from an
//     index
//   - upstream.go: the Radio Browser API's mix under /json/: its kinds,
//     requests and their /api twins
//   - searchpage.go: the HTML search page's paths of the cold and hot
//     searches, as its form and pager ask for them
package traffic

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode/utf8"

	"stationdex/bench/internal/mix"
	"stationdex/bench/internal/raw"
	"stationdex/internal/fold"
	"stationdex/internal/iso"
)

// station is what the generators use of one real station.
type station struct {
	words    []string // folded name tokens of at least two runes
	country  string   // alpha-2, upper case, or ""
	langs    []string // ISO 639 codes
	tags     []string // source tags fit for a filter
	hasWords bool
	// langKeys: every language value a filter could match the station
	// by (codes from the labels and from the source's own codes, and the
	// labels' facet keys), so that an excluding filter excludes.
	langKeys []string
}

// Source is the vocabulary of a snapshot.
type Source struct {
	stations []station
	common   []string // the most frequent name words, for broad searches
	vocab    vocabulary
	// countries and languages by how many stations have them, most
	// first: the filters an excluding search draws from.
	countries, languages []string
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
		st.langKeys = languageKeys(r, st.langs)
		src.vocab.add(int32(len(src.stations)), searchable(r))
		src.stations = append(src.stations, st)
	}
	src.common = topWords(freq, 50)
	src.vocab.seal()
	src.countries, src.languages = src.filterValues()
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

// Kind is a kind of generated search with its weight (per 100).
type Kind struct {
	Name   string
	Weight int
}

// HotKinds are the kinds of the hot mix, in the order the generator draws
// them: searches that find stations, as popular searches do.
var HotKinds = []Kind{
	{"word", 22}, {"prefix", 14}, {"two_words", 18}, {"word_country", 10}, {"word_genre", 6},
	{"word_language", 5}, {"country_genre", 7}, {"filter_offset", 10}, {"broad_offset", 8},
}

// ColdKinds are the kinds of the cold mix: the hot kinds at 82% and the
// zero-result kinds (ZeroKinds) at 18%, so that a little over 15% of the
// distinct searches find nothing even where repeats of the small kinds
// are dropped.
var ColdKinds = []Kind{
	{"word", 18}, {"prefix", 12}, {"two_words", 15}, {"word_country", 8}, {"word_genre", 5},
	{"word_language", 4}, {"country_genre", 6}, {"filter_offset", 8}, {"broad_offset", 6},
	{KindTypo1, 7}, {KindTypo2, 5}, {KindExcluded, 6},
}

type gen struct {
	src   *Source
	rng   *rand.Rand
	kinds []Kind
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
	for _, k := range g.kinds {
		if r < k.Weight {
			return k.Name
		}
		r -= k.Weight
	}
	return g.kinds[0].Name
}

// one draws a search of the given kind; a zero-result kind may find no
// candidate in one draw (ok false), the others always do.
func (g *gen) one(kind string) (q mix.Query, ok bool) {
	switch kind {
	case KindTypo1:
		return g.typo(1)
	case KindTypo2:
		return g.typo(2)
	case KindExcluded:
		return g.excluded()
	}
	return g.found(kind), true
}

// found draws a search of one of the hot kinds.
func (g *gen) found(kind string) mix.Query {
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

// Cold returns n distinct searches (distinct request paths), drawn by the
// weights of ColdKinds, in a deterministic order. zero, when not nil, is
// asked about every search of a zero-result kind (the suite asks the
// engine): one it refuses is drawn again, so the searches meant to find
// nothing find nothing even where this package's model of the index
// (vocabulary.go) falls short. Deterministic for a seed and the same zero
// answers.
func Cold(src *Source, seed uint64, n int, zero func(mix.Query) bool) ([]mix.Query, error) {
	g := &gen{src: src, rng: rand.New(rand.NewPCG(seed, 0xc01d)), kinds: ColdKinds}
	return g.distinct(n, zero)
}

// distinct draws n searches with distinct paths. A draw of a zero-result
// kind that fails is repeated in the same kind, so that kinds keep their
// weights.
func (g *gen) distinct(n int, zero func(mix.Query) bool) ([]mix.Query, error) {
	seen := make(map[string]bool, n)
	out := make([]mix.Query, 0, n)
	zeros := 0
	for tries := 0; len(out) < n; tries++ {
		if tries > 50*n {
			return nil, fmt.Errorf("traffic: only %d distinct searches after %d draws (wanted %d)", len(out), tries, n)
		}
		q, ok := g.retry(g.kind(), zero)
		if p := q.Path(); ok && !seen[p] && !g.zeroFull(q, zeros, len(out)) {
			seen[p] = true
			out = append(out, q)
			if IsZero(q.Class) {
				zeros++
			}
		}
	}
	return out, nil
}

// zeroFull reports that q, of a zero-result kind, would take the
// zero-result share of the first n+1 searches past the kinds' weight.
// Misspellings never run out while the kinds that find stations repeat
// and are dropped more and more: without the bound, 400,000 cold searches
// were 40% zero-result ones, more than real traffic has.
func (g *gen) zeroFull(q mix.Query, zeros, n int) bool {
	return IsZero(q.Class) && 100*(zeros+1) > zeroWeight(g.kinds)*(n+1)
}

// zeroWeight is the weight of the zero-result kinds among kinds, per 100.
func zeroWeight(kinds []Kind) int {
	w := 0
	for _, k := range kinds {
		if IsZero(k.Name) {
			w += k.Weight
		}
	}
	return w
}

// retry draws a search of kind until one is found (at most maxRetries
// draws), a zero-result one also passing zero.
func (g *gen) retry(kind string, zero func(mix.Query) bool) (mix.Query, bool) {
	for range maxRetries {
		q, ok := g.one(kind)
		if ok && (zero == nil || !IsZero(kind) || zero(q)) {
			return q, true
		}
	}
	return mix.Query{}, false
}

// maxRetries bounds the draws of one search: a vocabulary without a word
// fit for a kind gives up rather than loop.
const maxRetries = 200

// Hot is a Zipf-shaped request sequence over a small set of searches.
type Hot struct {
	Queries []mix.Query // distinct, by popularity rank (0 most requested)
	Seq     []int       // the requests, as indexes into Queries
	S       float64     // the Zipf exponent
}

// NewHot draws distinct searches like Cold (another seed stream, only the
// kinds that find stations: HotKinds) and a
// sequence of requests whose ranks follow P(rank k) ∝ k^-s, k = 1..distinct.
func NewHot(src *Source, seed uint64, distinct, requests int, s float64) (*Hot, error) {
	g := &gen{src: src, rng: rand.New(rand.NewPCG(seed^0x407, 0xc01d)), kinds: HotKinds}
	qs, err := g.distinct(distinct, nil)
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

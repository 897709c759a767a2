// Command genmix writes the committed query mix (queries/mix.tsv) from the
// real snapshot, deterministically: the same snapshot and seed give the same
// file byte for byte. It is run once by hand; the benchmark reads the file.
//
//	go run ./cmd/genmix -o queries/mix.tsv
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"sort"
	"stationdex/indexer/realdata"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/language"

	"stationdex/bench/internal/mix"
	"stationdex/bench/internal/raw"
	"stationdex/bench/internal/traffic"
	"stationdex/internal/fold"
	"stationdex/internal/iso"
)

// How many queries of each class; 3,000 in all.
var counts = map[string]int{
	"name_full": 400, "name_part": 400, "prefix1": 150, "prefix2": 150, "prefix3": 150,
	"genre": 250, "country": 250, "lang_code": 150, "lang_name": 150,
	"combo": 500, "deep_offset": 200, "zero": 150,
}

// bibliographic lists the ISO 639-2/B codes that differ from 639-2/T for
// languages of the snapshot, so the mix exercises "ger" as well as "deu".
// Only the mix uses it; the engine resolves codes with golang.org/x/text.
var bibliographic = map[string]string{
	"de": "ger", "fr": "fre", "zh": "chi", "nl": "dut", "el": "gre", "fa": "per",
	"cs": "cze", "ro": "rum", "sk": "slo", "hy": "arm", "ka": "geo", "is": "ice",
	"mk": "mac", "ms": "may", "my": "bur", "sq": "alb", "eu": "baq", "cy": "wel", "bo": "tib",
}

type gen struct {
	rng      *rand.Rand
	stations []raw.Station
	tokens   []string // every folded token of every searchable field, sorted, unique
}

func main() {
	data := flag.String("data", realdata.Path(), "real snapshot (default: ../shared/data beside the repository, or $"+realdata.EnvPath+")")
	out := flag.String("o", "queries/mix.tsv", "output file")
	seed := flag.Uint64("seed", 20250227, "random seed")
	kind := flag.String("traffic", "", "instead of the committed mix, write a generated HTTP mix as the suite makes it at run time: cold (-n distinct searches) or hot (-n requests over 1,000 searches under Zipf s=1.1)")
	n := flag.Int("n", 40000, "with -traffic: searches (cold) or requests (hot)")
	flag.Parse()
	all, err := raw.ReadAll(*data)
	if err != nil {
		log.Fatal(err)
	}
	if *kind != "" {
		if err := writeTraffic(*kind, all, *seed, *n, *out); err != nil {
			log.Fatal(err)
		}
		return
	}
	g := &gen{rng: rand.New(rand.NewPCG(*seed, 1)), stations: usable(all)}
	g.tokens = allTokens(all)
	var qs []mix.Query
	for _, c := range mix.Classes {
		for i := 0; i < counts[c.Name]; i++ {
			q := g.one(c.Name)
			q.Class = c.Name
			if q.Limit == 0 {
				q.Limit = g.limit()
			}
			qs = append(qs, q)
		}
	}
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	if err := mix.Write(f, qs); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "genmix: %d queries from %d stations -> %s\n", len(qs), len(all), *out)
}

// usable keeps stations whose cleaned name is a sensible thing to type.
func usable(all []raw.Station) []raw.Station {
	var out []raw.Station
	for _, s := range all {
		n := raw.CleanName(s.Name)
		if n == "" || utf8.RuneCountInString(n) > 100 || len(fold.Tokens(n)) == 0 {
			continue
		}
		s.Name = n
		out = append(out, s)
	}
	return out
}

func allTokens(all []raw.Station) []string {
	seen := map[string]bool{}
	for _, s := range all {
		for _, f := range []string{s.Name, s.Country, s.CountryCode, s.State, s.Language, s.Tags} {
			for _, t := range fold.Tokens(f) {
				seen[t] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for t := range seen {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

func (g *gen) limit() int {
	switch r := g.rng.IntN(10); {
	case r == 0:
		return 10
	case r == 1:
		return 50
	}
	return 20
}

func (g *gen) station() raw.Station { return g.stations[g.rng.IntN(len(g.stations))] }

// pick returns a station for which ok holds (the snapshot has plenty of each).
func (g *gen) pick(ok func(raw.Station) bool) raw.Station {
	for {
		if s := g.station(); ok(s) {
			return s
		}
	}
}

func (g *gen) one(class string) mix.Query {
	switch class {
	case "name_full":
		return mix.Query{Q: g.station().Name}
	case "name_part":
		return mix.Query{Q: g.namePart()}
	case "prefix1", "prefix2", "prefix3":
		return mix.Query{Q: g.prefix(int(class[6] - '0'))}
	case "genre":
		return mix.Query{Genre: g.tag(g.pick(hasTag))}
	case "country":
		return mix.Query{Country: g.country(g.pick(hasCountry))}
	case "lang_code":
		return mix.Query{Language: g.langCode(g.pick(hasLangCode))}
	case "lang_name":
		return mix.Query{Language: g.langName(g.pick(hasLangCode))}
	case "combo":
		return g.combo()
	case "deep_offset":
		return g.deep()
	case "zero":
		return g.zero()
	}
	panic("unknown class " + class)
}

func (g *gen) maybeLower(s string) string {
	if g.rng.IntN(2) == 0 {
		return strings.ToLower(s)
	}
	return s
}

func (g *gen) namePart() string {
	for {
		words := strings.Fields(g.station().Name)
		var ok []string
		for _, w := range words {
			if len(fold.Tokens(w)) > 0 && utf8.RuneCountInString(w) >= 2 {
				ok = append(ok, w)
			}
		}
		if len(ok) < 2 {
			continue // a one-word name is a full name, not a part
		}
		i := g.rng.IntN(len(ok))
		part := ok[i]
		if i+1 < len(ok) && g.rng.IntN(2) == 0 {
			part += " " + ok[i+1]
		}
		return g.maybeLower(part)
	}
}

func (g *gen) prefix(n int) string {
	for {
		toks := fold.Tokens(g.station().Name)
		t := toks[g.rng.IntN(len(toks))]
		if utf8.RuneCountInString(t) < n {
			continue
		}
		r := []rune(t)[:n]
		return g.maybeLower(string(r))
	}
}

func hasTag(s raw.Station) bool     { return len(raw.SplitList(s.Tags)) > 0 }
func hasCountry(s raw.Station) bool { return len(s.CountryCode) == 2 }
func hasLangCode(s raw.Station) bool {
	for _, l := range raw.SplitList(s.Language) {
		if _, ok := iso.LanguageCode(l); ok {
			return true
		}
	}
	return false
}

func (g *gen) tag(s raw.Station) string {
	for {
		tags := raw.SplitList(s.Tags)
		t := tags[g.rng.IntN(len(tags))]
		if utf8.RuneCountInString(t) <= 60 && !strings.ContainsAny(t, "\t\r\n") {
			return t
		}
		s = g.pick(hasTag)
	}
}

func (g *gen) country(s raw.Station) string {
	if g.rng.IntN(10) < 3 {
		return strings.ToLower(s.CountryCode)
	}
	return strings.ToUpper(s.CountryCode)
}

func (g *gen) code(s raw.Station) (code, label string) {
	for _, l := range raw.SplitList(s.Language) {
		if c, ok := iso.LanguageCode(l); ok {
			return c, l
		}
	}
	panic("station without a language code")
}

func (g *gen) langCode(s raw.Station) string {
	c, _ := g.code(s)
	switch g.rng.IntN(4) {
	case 0: // 639-2/T or 639-3
		if b, err := language.ParseBase(c); err == nil {
			return b.ISO3()
		}
	case 1: // 639-2/B where it differs
		if b, ok := bibliographic[c]; ok {
			return b
		}
	case 2:
		return strings.ToUpper(c)
	}
	return c
}

func (g *gen) langName(s raw.Station) string {
	c, label := g.code(s)
	if g.rng.IntN(10) < 4 && utf8.RuneCountInString(label) <= 60 {
		return label
	}
	name := iso.LanguageName(c)
	if name == "" {
		return label
	}
	return g.maybeLower(name)
}

// word is a name word of s as a user would type it: whole or a prefix of at
// least three letters.
func (g *gen) word(s raw.Station) string {
	toks := fold.Tokens(s.Name)
	t := toks[g.rng.IntN(len(toks))]
	r := []rune(t)
	if len(r) > 3 && g.rng.IntN(3) == 0 {
		r = r[:3+g.rng.IntN(len(r)-3)]
	}
	return string(r)
}

func (g *gen) combo() mix.Query {
	s := g.pick(func(s raw.Station) bool { return hasCountry(s) && hasTag(s) && hasLangCode(s) })
	q := mix.Query{Q: g.word(s)}
	switch g.rng.IntN(6) {
	case 0:
		q.Country = g.country(s)
	case 1:
		q.Language = g.langCode(s)
	case 2:
		q.Genre = g.tag(s)
	case 3:
		q.Country, q.Genre = g.country(s), g.tag(s)
	case 4:
		q.Country, q.Language = g.country(s), g.langName(s)
	case 5: // a genre typed as a word, with a country
		q.Q = fold.Tokens(g.tag(s) + " x")[0]
		q.Country = g.country(s)
	}
	return q
}

var broadWords = []string{"radio", "fm", "pop", "music", "news", "rock", "hits", "classic", "the", "la", "a", "s", "m", "de"}

func (g *gen) deep() mix.Query {
	var q mix.Query
	switch g.rng.IntN(4) {
	case 0:
		q.Country = []string{"US", "DE", "RU", "FR", "CN", "GR", "GB"}[g.rng.IntN(7)]
	case 1:
		q.Language = []string{"english", "en", "german", "spanish", "es"}[g.rng.IntN(5)]
	case 2:
		q.Genre = []string{"pop", "music", "news", "rock", "classical"}[g.rng.IntN(5)]
	default:
		q.Q = broadWords[g.rng.IntN(len(broadWords))]
	}
	q.Limit = []int{20, 20, 50}[g.rng.IntN(3)]
	q.Offset = (500 + g.rng.IntN(4501)) / q.Limit * q.Limit
	return q
}

// zero returns a search that matches nothing in the snapshot.
func (g *gen) zero() mix.Query {
	switch g.rng.IntN(5) {
	case 0: // a real word and a made-up one: every word must match
		return mix.Query{Q: g.word(g.station()) + " " + g.nonsense()}
	case 1:
		return mix.Query{Genre: g.nonsense() + " " + g.nonsense()}
	case 2:
		return mix.Query{Q: g.nonsense(), Country: g.country(g.pick(hasCountry))}
	}
	return mix.Query{Q: g.nonsense()}
}

// nonsense is a made-up word that no token of the snapshot starts with.
func (g *gen) nonsense() string {
	const letters = "bcdfghjklmnpqrstvwxz"
	for {
		b := make([]byte, 5+g.rng.IntN(4))
		for i := range b {
			b[i] = letters[g.rng.IntN(len(letters))]
		}
		w := string(b)
		i := sort.SearchStrings(g.tokens, w)
		if i == len(g.tokens) || !strings.HasPrefix(g.tokens[i], w) {
			return w
		}
	}
}

// writeTraffic writes a generated HTTP mix (package traffic) as a mix file,
// for reading: the suite generates its own at run time from the base set.
func writeTraffic(kind string, all []raw.Station, seed uint64, n int, out string) error {
	src := traffic.NewSource(all)
	var qs []mix.Query
	switch kind {
	case "cold":
		var err error
		// No engine here: the zero-result searches rest on the
		// generator's own model of the vocabulary.
		if qs, err = traffic.Cold(src, seed, n, nil); err != nil {
			return err
		}
	case "hot":
		h, err := traffic.NewHot(src, seed, 1000, n, 1.1)
		if err != nil {
			return err
		}
		for _, k := range h.Seq {
			qs = append(qs, h.Queries[k])
		}
	default:
		return fmt.Errorf("-traffic %q: cold or hot", kind)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := mix.Write(f, qs); err != nil {
		f.Close()
		return err
	}
	fmt.Fprintf(os.Stderr, "genmix: %d %s searches -> %s\n", len(qs), kind, out)
	return f.Close()
}

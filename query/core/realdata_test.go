package core

import (
	"slices"
	"testing"
	"unicode/utf8"

	"stationdex/internal/format"
	"stationdex/query/internal/testindex"
)

// handPicked are query texts a person would try: whole words, accents and
// their absence, non-Latin scripts, one- to three-letter prefixes, words
// that match only through country, language or genre, and no-match cases.
var handPicked = []string{
	"", "radio", "jazz", "jaz", "rock fm", "classic rock", "radio comercial", "rádio comercial", "o3", "ö3", "Ö3",
	"méxico", "mexico", "北京", "音乐", "广播", "радио", "москва", "ράδιο", "ελλάδα", "ラジオ", "라디오", "رادیو",
	"إذاعة", "רדיו", "วิทยุ", "bbc", "bbc radio", "npr", "80s", "news talk", "deutschlandfunk", "antenne",
	"germany", "united states", "france inter", "1", "2", "fm", "am", "100", "a", "b", "z", "é", "ß", "ра",
	"ab", "ro", "cla", "rad", "lor fm", "lor'fm", "!!!", "zzzzzz", "qxj", "pop", "deutsch", "english", "us",
	"de", "brazilian portuguese", "espanol", "español", "sao paulo", "são paulo", "new york", "berlin", "x",
	"radio radio", "the", "la", "el", "di", "st", "k",
}

var (
	countryFilters  = []string{"US", "de", "fr", "Ru", "cn", "GR", "gb", "mx", "zz"}
	languageFilters = []string{"de", "deu", "ger", "German", "german", "english", "en", "eng", "español",
		"spanish", "es", "chinese", "zh", "russian", "greek", "brazilian portuguese", "klingonish", "xx"}
	genreFilters = []string{"pop", "Jazz", "news", "rock", "classical", "80s", "méxico", "mexico", "talk", "no such genre"}
)

// oracleQueries is the full query list: every text alone, every filter
// alone and paired, and texts with filters.
func oracleQueries(recs []format.Record) []Query {
	texts := append(slices.Clone(handPicked), testindex.SampledWords(recs, 60)...)
	var qs []Query
	for _, t := range texts {
		qs = append(qs, Query{Q: t})
	}
	for i, c := range countryFilters {
		l := languageFilters[i%len(languageFilters)]
		g := genreFilters[i%len(genreFilters)]
		qs = append(qs, Query{Filter: filters(c, "", "")}, Query{Filter: filters(c, l, "")}, Query{Filter: filters(c, "", g)},
			Query{Q: texts[(i*7)%len(texts)], Filter: filters(c, "", "")}, Query{Q: "r", Filter: filters(c, l, g)})
	}
	for i, l := range languageFilters {
		g := genreFilters[i%len(genreFilters)]
		qs = append(qs, Query{Filter: filters("", l, "")}, Query{Filter: filters("", l, g)}, Query{Q: texts[(i*5)%len(texts)], Filter: filters("", l, "")})
	}
	for i, g := range genreFilters {
		qs = append(qs, Query{Filter: filters("", "", g)}, Query{Q: texts[(i*3)%len(texts)], Filter: filters("", "", g)}, Query{Q: "a", Filter: filters("", "", g)})
	}
	return qs
}

func TestSearchMatchesOracleOnRealSnapshot(t *testing.T) {
	ix, o := realIndex(t)
	qs := oracleQueries(real.recs)
	pages := 0
	for _, q := range qs {
		q.Limit = MaxLimit
		pages += walkPages(t, ix, o, q)
		if t.Failed() {
			break // one difference explains the next ones; keep the log readable
		}
	}
	t.Logf("%d queries, %d pages compared", len(qs), pages)
	if len(qs) < 300 {
		t.Errorf("only %d oracle queries; want hundreds", len(qs))
	}
}

// TestSearchOddPagesOnRealSnapshot starts pages off the 50-grid and with
// odd limits, near tier boundaries and the deepest offsets.
func TestSearchOddPagesOnRealSnapshot(t *testing.T) {
	ix, o := realIndex(t)
	for _, text := range []string{"", "radio", "a", "jazz", "ra", "fm", "北"} {
		want := o.search(Query{Q: text})
		for _, p := range [][2]int{{1, 0}, {7, 3}, {13, 4990}, {50, 4999}, {49, 5000}, {3, len(want) - 2}, {50, len(want)}} {
			q := Query{Q: text, Limit: p[0], Offset: max(0, p[1])}
			samePage(t, ix, q, want)
		}
	}
}

// TestSampledWordsAreValid guards the generator: a query the oracle test
// draws must be a usable query text.
func TestSampledWordsAreValid(t *testing.T) {
	for _, w := range handPicked {
		if !utf8.ValidString(w) || utf8.RuneCountInString(w) > 120 {
			t.Errorf("bad hand-picked query %q", w)
		}
	}
}

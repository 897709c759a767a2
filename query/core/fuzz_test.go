package core

import (
	"testing"
	"unicode/utf8"
)

// FuzzSearch runs arbitrary query texts and filters on the small set and
// compares with the oracle: no input may panic, fail, or rank differently.
func FuzzSearch(f *testing.F) {
	for _, seed := range []struct {
		q, country, language, genre string
		limit, offset               int
	}{
		{"jazz", "", "", "", 2, 1}, {"radio comercial", "pt", "", "", 5, 0}, {"北京", "", "chinese", "", 1, 0},
		{"", "DE", "ger", "news", 50, 0}, {"!!!", "", "", "", 3, 2}, {"Ö3 ", "at", "deutsch", "POP", 1, 0},
		{"r a", "", "", "", 4, 3}, {"\xff", "\x00z", "  ", "\t", 1, 0},
	} {
		f.Add(seed.q, seed.country, seed.language, seed.genre, seed.limit, seed.offset)
	}
	f.Fuzz(func(t *testing.T, text, country, language, genre string, limit, offset int) {
		if !utf8.ValidString(text+country+language+genre) || !isASCII(country) {
			t.Skip("the API rejects invalid UTF-8 and non-ASCII country codes before searching")
		}
		ix, o := small(t)
		q := Query{Q: text, Filter: filters(country, language, genre),
			Limit: 1 + abs(limit)%MaxLimit, Offset: abs(offset) % 40}
		samePage(t, ix, q, o.search(q))
	})
}

func abs(n int) int {
	if n < 0 {
		return -(n + 1)
	}
	return n
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

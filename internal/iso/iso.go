// Package iso maps free-text language labels and country codes of the
// directory onto ISO 639 languages and ISO 3166-1 regions, using the CLDR data
// in golang.org/x/text rather than tables of our own. The indexer uses it to
// file stations under language codes and English country names; the query
// engine uses the same functions to resolve a `language` filter, so "de",
// "deu", "ger", "German" and "deutsch" all reach the same posting list.
package iso

import (
	"strings"
	"sync"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"stationdex/internal/fold"
)

// LanguageCode resolves a language label to its ISO 639 code: the two-letter
// 639-1 code where one exists, else the three-letter code. It accepts, in
// this order: an ISO 639-1, 639-2/B, 639-2/T or 639-3 code; the English name
// of a language ("german"); its own name ("deutsch", "español"); and, for
// labels of several words ("brazilian portuguese", "язык: русский",
// "español mexico"), the first word that is a language name. It reports false
// when nothing matches. Case and accents do not matter.
func LanguageCode(label string) (string, bool) {
	f := fold.String(strings.TrimSpace(label))
	if code, ok := parseCode(f); ok {
		return code, true
	}
	names := languageNames()
	if code, ok := names[fold.Key(f)]; ok {
		return code, true
	}
	for _, w := range fold.Tokens(f) {
		if code, ok := names[w]; ok {
			return code, true
		}
	}
	return "", false
}

// LanguageName is the English name of an ISO 639 code, or "" if unknown.
func LanguageName(code string) string {
	b, err := language.ParseBase(code)
	if err != nil {
		return ""
	}
	return display.English.Languages().Name(b)
}

// CountryName is the English name of an ISO 3166-1 alpha-2 code, or "" if
// the code is not a known region.
func CountryName(alpha2 string) string {
	if len(alpha2) != 2 {
		return ""
	}
	r, err := language.ParseRegion(alpha2)
	if err != nil || !r.IsCountry() {
		return ""
	}
	return display.English.Regions().Name(r)
}

// parseCode accepts only two- and three-letter ASCII codes, canonicalising
// deprecated and bibliographic ones (ger -> de, iw -> he) through CLDR's
// aliases.
func parseCode(f string) (string, bool) {
	if len(f) < 2 || len(f) > 3 {
		return "", false
	}
	for i := 0; i < len(f); i++ {
		if f[i] < 'a' || f[i] > 'z' {
			return "", false
		}
	}
	t, err := language.All.Parse(f)
	if err != nil {
		return "", false
	}
	b, conf := t.Base()
	if conf == language.No || b.String() == "und" {
		return "", false
	}
	return b.String(), true
}

var (
	namesOnce sync.Once
	names     map[string]string
)

// languageNames maps the folded English name and own name of every language
// CLDR knows to its code. CLDR offers no list of languages, so it is built
// once by asking for every two- and three-letter code (about 18k parses,
// ~15 ms).
func languageNames() map[string]string {
	namesOnce.Do(func() {
		names = make(map[string]string, 1024)
		own := make(map[string]string, 512)
		eachCode(func(code string) {
			// Only canonical codes name a language: an alias ("ji", "iw")
			// would otherwise claim a name ("yiddish") that the code
			// lookup in parseCode canonicalises differently ("yi").
			if canon, ok := parseCode(code); !ok || canon != code {
				return
			}
			b, err := language.ParseBase(code)
			if err != nil {
				return
			}
			if n := display.English.Languages().Name(b); n != "" {
				addName(names, fold.Key(n), code)
			}
			if n := display.Self.Name(b); n != "" {
				addName(own, fold.Key(n), code)
			}
		})
		// English names win over own names where both claim a word.
		for k, v := range own {
			if _, taken := names[k]; !taken {
				names[k] = v
			}
		}
	})
	return names
}

// addName keeps the shortest code per name so that "chinese" is "zh", not a
// three-letter variety, and breaks ties by code so the map does not depend
// on visiting order.
func addName(m map[string]string, name, code string) {
	if name == "" {
		return
	}
	if old, ok := m[name]; ok && (len(old) < len(code) || (len(old) == len(code) && old < code)) {
		return
	}
	m[name] = code
}

func eachCode(fn func(string)) {
	var b [3]byte
	for x := byte('a'); x <= 'z'; x++ {
		for y := byte('a'); y <= 'z'; y++ {
			b[0], b[1] = x, y
			fn(string(b[:2]))
			for z := byte('a'); z <= 'z'; z++ {
				b[2] = z
				fn(string(b[:3]))
			}
		}
	}
}

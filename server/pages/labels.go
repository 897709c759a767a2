package pages

import (
	"unicode"
	"unicode/utf8"

	"stationdex/internal/format"
	"stationdex/internal/iso"
	"stationdex/query"
)

// How the pages name what a station is filed under, the same on every
// page: a country by its short English name (the facets' name, "United
// States", not the source's "The United States Of America"), a language
// capitalised as English writes language names ("English", not the
// source's "english"), and a genre by its label in the index, the
// spelling its stations use most. The JSON API keeps the source's text.

// countryNames are the English names of the country codes, made once:
// a result list names a country per result.
var countryNames = func() (t [26 * 26]string) {
	for i := range t {
		code := string([]byte{'A' + byte(i/26), 'A' + byte(i%26)})
		t[i] = iso.CountryName(code)
	}
	return t
}()

// countryName is the name the pages give r's country: the English name of
// its code, or the source's name when the code is not a known country.
func countryName(r *format.Record) string {
	if c := r.CountryCode; len(c) == 2 && c[0]-'A' < 26 && c[1]-'A' < 26 {
		if name := countryNames[int(c[0]-'A')*26+int(c[1]-'A')]; name != "" {
			return name
		}
	}
	return r.Country
}

// languageLabel capitalises each word of a language's label, as English
// writes language names: a letter after anything but a letter or an
// apostrophe becomes upper case ("english/russian" is "English/Russian").
// Labels with an upper-case letter are kept as written.
func languageLabel(s string) string {
	for _, r := range s {
		if unicode.IsUpper(r) {
			return s
		}
	}
	b := make([]byte, 0, len(s))
	word := false
	for _, r := range s {
		if !word && unicode.IsLower(r) {
			r = unicode.ToTitle(r)
		}
		word = unicode.IsLetter(r) || r == '\'' || r == '’'
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}

// listingLabel is the label a directory value is shown with.
func listingLabel(d query.Dim, label string) string {
	if d == query.DimLanguage {
		return languageLabel(label)
	}
	return label
}

package pages

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"stationdex/internal/format"
	"stationdex/query"
)

// TestCountryName: a known code is named as the facets name it, whatever
// the source wrote; an unknown or missing code keeps the source's name.
func TestCountryName(t *testing.T) {
	for _, c := range []struct{ code, source, want string }{
		{"US", "The United States Of America", "United States"},
		{"GB", "The United Kingdom Of Great Britain And Northern Ireland", "United Kingdom"},
		{"DE", "", "Germany"},
		{"XX", "Nowhere", "Nowhere"},
		{"", "Somewhere", "Somewhere"},
		{"us", "lower", "lower"},
		{"U", "short", "short"},
	} {
		r := format.Record{CountryCode: c.code, Country: c.source}
		if got := countryName(&r); got != c.want {
			t.Errorf("countryName(%q, %q) = %q, want %q", c.code, c.source, got, c.want)
		}
	}
}

// TestLanguageLabel: each word capitalised as English writes language
// names; a label written with capitals, and what follows an apostrophe,
// kept.
func TestLanguageLabel(t *testing.T) {
	for in, want := range map[string]string{
		"english":              "English",
		"brazilian portuguese": "Brazilian Portuguese",
		"english/russian":      "English/Russian",
		"castellano. español":  "Castellano. Español",
		"SiSwati":              "SiSwati",
		"n'ko":                 "N'ko",
		"ελληνικά":             "Ελληνικά",
		"":                     "",
		"123":                  "123",
	} {
		if got := languageLabel(in); got != want {
			t.Errorf("languageLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestKilometres: thousands are separated, distances rounded.
func TestKilometres(t *testing.T) {
	for km, want := range map[float64]string{10: "10 km", 999.4: "999 km", 1344.2: "1,344 km", 20000: "20,000 km", 1234567: "1,234,567 km"} {
		if got := kilometres(km); got != want {
			t.Errorf("kilometres(%v) = %q, want %q", km, got, want)
		}
	}
	for km, want := range map[float64]string{0.25: "250 m away", 3.14: "3.1 km away", 12.6: "13 km away", 1344.2: "1,344 km away"} {
		if got := distanceText(km); got != want {
			t.Errorf("distanceText(%v) = %q, want %q", km, got, want)
		}
	}
	if got := nearRadius(3); got != 50 {
		t.Errorf("nearRadius(3) = %v, want the default 50", got)
	}
	if got := nearRadius(1343.2); got != 1344 {
		t.Errorf("nearRadius(1343.2) = %v, want 1344", got)
	}
}

// TestGenreKey: the shortcut gives the key folding gives, for tags as
// written and for random strings over letters, digits, the characters
// the shortcut leaves out and some it does not take.
func TestGenreKey(t *testing.T) {
	tags := []string{"pop", "80s", "2000", "Pop", "hip hop", "Hip-Hop", "#jazz", "méxico", "rock'n'roll", "", "k-pop",
		"classic rock", "  pop  ", "a  b", "-", "--", "' '", "rock 'n' roll", "r&b", "drum & bass", "80's", "rock`n`roll",
		"hip\thop", "top 40", "90s-00s", "a'", "'", " ", "x" + strings.Repeat("y ", 60)}
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "az09 -'#&.AZé\t"
	for range 20000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		if utf8.Valid(b) {
			tags = append(tags, string(b))
		}
	}
	for _, g := range tags {
		if got, want := string(appendGenreKey([]byte("kept "), g)), "kept "+query.ListingKey(query.DimGenre, g); got != want {
			t.Errorf("appendGenreKey(%q) = %q, want %q", g, got, want)
		}
	}
}

package pages

import (
	"strconv"
	"strings"
	"testing"
	"unicode"

	"stationdex/internal/format"
)

// TestCleanTextFastPath: the shortcuts of cleanText (printable ASCII kept
// whole, runes below the first bidi control kept without a table search)
// give what the rule gives, for every ASCII byte alone and in text and for
// every rune.
func TestCleanTextFastPath(t *testing.T) {
	for c := range 0x80 {
		for _, s := range []string{string(rune(c)), "Radio " + string(rune(c)) + " FM"} {
			if got, want := CleanText(s), strings.Map(cleanRune, s); got != want {
				t.Errorf("cleanText(%q) = %q, want %q", s, got, want)
			}
		}
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if got, want := cleanRune(r), cleanRuneRule(r); got != want {
			t.Fatalf("cleanRune(%U) = %U, want %U", r, got, want)
		}
	}
	if got := CleanText("a\u202Eb\u2028c\x7fd"); got != "ab c d" {
		t.Errorf("cleanText of bidi and controls: %q", got)
	}
}

// cleanRuneRule is cleanRune's rule without its shortcut.
func cleanRuneRule(r rune) rune {
	switch {
	case unicode.Is(unicode.Bidi_Control, r):
		return -1
	case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == '\ufffe' || r == '\uffff':
		return ' '
	}
	return r
}

// cleanSamples are texts cleanText treats differently: printable ASCII,
// controls, bidi marks, line separators, runes past ASCII, invalid UTF-8
// (whole, cut, and at either end).
var cleanSamples = []string{"", "Radio FM", "a\u202Eb\u2028c\x7fd", "Zürich", "Москва", "\xff", "ab\xe2\x82",
	"\xe2\x82 x", "\t", "北京 \u200f", "\ufffe\uffff", "x\x00y", "é\u2066é\u2069"}

// TestAppendCleanText: appending gives cleanText's string, after any
// prefix.
func TestAppendCleanText(t *testing.T) {
	for _, s := range cleanSamples {
		if got := string(appendCleanText([]byte("<"), s)); got != "<"+CleanText(s) {
			t.Errorf("appendCleanText(%q) = %q, want %q", s, got, "<"+CleanText(s))
		}
	}
}

// TestResultNote: the note is the joined parts, cleaned as one text,
// after its lead, for every combination of present and absent parts and
// hostile text in each.
func TestResultNote(t *testing.T) {
	rule := func(lead string, r *format.Record) string {
		var where, parts []string
		for _, p := range []string{r.Location, r.Country} {
			if p != "" {
				where = append(where, p)
			}
		}
		if w := strings.Join(where, ", "); w != "" {
			parts = append(parts, w)
		}
		if r.Codec != "" {
			parts = append(parts, r.Codec)
		}
		if r.BitrateKbps > 0 {
			parts = append(parts, strconv.FormatUint(uint64(r.BitrateKbps), 10)+" kbps")
		}
		return CleanText(lead + strings.Join(parts, " · "))
	}
	texts := append([]string{""}, cleanSamples...)
	for i, loc := range texts {
		for j, country := range texts {
			r := format.Record{Location: loc, Country: country, Codec: texts[(i+j)%len(texts)], BitrateKbps: uint32(i * j % 3 * 64)}
			for _, lead := range []string{"", "3 km away · "} {
				if got, want := resultNote(lead, &r), rule(lead, &r); got != want {
					t.Errorf("resultNote(%q, %+v) = %q, want %q", lead, r, got, want)
				}
			}
		}
	}
}

// TestHasSpaceOrControl: the ASCII shortcut answers as unicode.IsSpace
// and unicode.IsControl do, for every rune inside a URL, and for invalid
// UTF-8.
func TestHasSpaceOrControl(t *testing.T) {
	rule := func(s string) bool {
		return strings.ContainsFunc(s, unicode.IsSpace) || strings.ContainsFunc(s, unicode.IsControl)
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		s := "http://a.example/" + string(r) + "x"
		if got := hasSpaceOrControl(s); got != rule(s) {
			t.Fatalf("hasSpaceOrControl(%q) = %v, want %v", s, got, rule(s))
		}
	}
	for _, s := range cleanSamples {
		if got := hasSpaceOrControl(s); got != rule(s) {
			t.Errorf("hasSpaceOrControl(%q) = %v, want %v", s, got, rule(s))
		}
	}
}

// TestFirstRunes: slicing gives what the conversion through runes gives,
// for valid and invalid UTF-8, and for n past the end.
func TestFirstRunes(t *testing.T) {
	for _, s := range cleanSamples {
		rs := []rune(s)
		for n := 0; n <= len(rs)+1; n++ {
			if got, want := firstRunes(s, n), string(rs[:min(n, len(rs))]); got != want {
				t.Errorf("firstRunes(%q, %d) = %q, want %q", s, n, got, want)
			}
		}
	}
}

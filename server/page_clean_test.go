package server

import (
	"strings"
	"testing"
	"unicode"
)

// TestCleanTextFastPath: the shortcuts of cleanText (printable ASCII kept
// whole, runes below the first bidi control kept without a table search)
// give what the rule gives, for every ASCII byte alone and in text and for
// every rune.
func TestCleanTextFastPath(t *testing.T) {
	for c := range 0x80 {
		for _, s := range []string{string(rune(c)), "Radio " + string(rune(c)) + " FM"} {
			if got, want := cleanText(s), strings.Map(cleanRune, s); got != want {
				t.Errorf("cleanText(%q) = %q, want %q", s, got, want)
			}
		}
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if got, want := cleanRune(r), cleanRuneRule(r); got != want {
			t.Fatalf("cleanRune(%U) = %U, want %U", r, got, want)
		}
	}
	if got := cleanText("a\u202Eb\u2028c\x7fd"); got != "ab c d" {
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

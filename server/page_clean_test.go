package server

import (
	"strings"
	"testing"
)

// TestCleanTextFastPath: the printable-ASCII shortcut of cleanText gives
// what cleaning rune by rune gives, for every ASCII byte alone and in text.
func TestCleanTextFastPath(t *testing.T) {
	for c := range 0x80 {
		for _, s := range []string{string(rune(c)), "Radio " + string(rune(c)) + " FM"} {
			if got, want := cleanText(s), strings.Map(cleanRune, s); got != want {
				t.Errorf("cleanText(%q) = %q, want %q", s, got, want)
			}
		}
	}
	if got := cleanText("a\u202Eb\u2028c\x7fd"); got != "ab c d" {
		t.Errorf("cleanText of bidi and controls: %q", got)
	}
}

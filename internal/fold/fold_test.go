package fold

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Rádio Comercial", []string{"radio", "comercial"}},
		{"Ö3", []string{"o3"}},
		{"RADIO  radio", []string{"radio", "radio"}},
		{"𝐑𝐚𝐝𝐢𝐨 𝐒𝐭𝐚𝐫", []string{"radio", "star"}},             // mathematical bold letters
		{"Ｒａｄｉｏ", []string{"radio"}},                          // full-width
		{"Ra\u200bdio", []string{"radio"}},                    // zero-width space inside a word
		{"Bidi \u202eoidar\u202c", []string{"bidi", "oidar"}}, // bidi controls vanish
		{"Straße", []string{"strasse"}},
		{"lor'fm", []string{"lor", "fm"}},
		{"-= Party Mix =-", []string{"party", "mix"}},
		{"80's hits", []string{"80", "s", "hits"}},
		{"Радио Ретро", []string{"радио", "ретро"}},
		{"Ελληνικό", []string{"ελληνικο"}},
		{"北京音乐", []string{"北", "京", "音", "乐"}},
		{"東京ジャズ", []string{"東", "京", "ジ", "ャ", "ズ"}},
		{"라디오 서울", []string{"라디오", "서울"}},
		{"தமிழ்", []string{"தமிழ்"}}, // Tamil keeps its virama and vowel signs
		{"हिन्दी रेडियो", []string{"हिन्दी", "रेडियो"}},
		{"📻 🎶", nil},
		{"", nil},
		{"\xff\xfeab", []string{"ab"}}, // invalid UTF-8 is replaced, never passed on
	}
	for _, tt := range tests {
		if got := Tokens(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestKeyIgnoresCasePunctuationAndSpacing(t *testing.T) {
	same := []string{"Radio-1", "radio 1", "  RADIO   1 ", "#Radio 1!", "Rádio 1"}
	for _, s := range same {
		if got := Key(s); got != "radio 1" {
			t.Errorf("Key(%q) = %q, want %q", s, got, "radio 1")
		}
	}
}

func TestCutAtRuneBoundary(t *testing.T) {
	long := strings.Repeat("é", MaxTokenRunes+10)
	got := Cut(long)
	if utf8.RuneCountInString(got) != MaxTokenRunes || !utf8.ValidString(got) {
		t.Fatalf("Cut kept %d runes (valid %v), want %d", utf8.RuneCountInString(got), utf8.ValidString(got), MaxTokenRunes)
	}
	toks := Tokens(strings.Repeat("x", 990))
	if len(toks) != 1 || len(toks[0]) != MaxTokenRunes {
		t.Fatalf("990-character word gave %d tokens of %d bytes", len(toks), len(toks[0]))
	}
}

// FuzzTokens checks the invariants every caller relies on: tokens are
// non-empty, valid UTF-8, already folded, within the length cap, and free of
// separators; folding is idempotent.
func FuzzTokens(f *testing.F) {
	for _, s := range []string{"Rádio Comercial", "Ö3", "北京音乐", "\xff", "a\u0301", "ﬁ", "İstanbul", "ǅ", "\u202e", "ß"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range Tokens(s) {
			if tok == "" || !utf8.ValidString(tok) {
				t.Fatalf("bad token %q from %q", tok, s)
			}
			if n := utf8.RuneCountInString(tok); n > MaxTokenRunes {
				t.Fatalf("token of %d runes from %q", n, s)
			}
			if strings.ContainsAny(tok, " \t\n,.'") {
				t.Fatalf("separator inside token %q from %q", tok, s)
			}
		}
		if f1 := String(s); String(f1) != f1 {
			t.Fatalf("folding not idempotent: %q -> %q -> %q", s, f1, String(f1))
		}
	})
}

// TestCherokeeFoldsToCapitals: Unicode folds Cherokee to its capital
// letters, and folding what is folded changes nothing.
func TestCherokeeFoldsToCapitals(t *testing.T) {
	for _, s := range []string{"Ꮦ", "ꮦ", "Ᏸ", "ᏸ", "ᏣᎳᎩ", "ꮳꮃꭹ"} {
		f := String(s)
		if String(f) != f {
			t.Errorf("%q -> %q -> %q: not idempotent", s, f, String(f))
		}
		for _, r := range f {
			if r >= 0xAB70 && r <= 0xABBF || r >= 0x13F8 && r <= 0x13FD {
				t.Errorf("%q folds to %q, which holds the small letter %q", s, f, r)
			}
		}
	}
	if String("ᏣᎳᎩ") != String("ꮳꮃꭹ") {
		t.Errorf("capital and small Cherokee fold apart: %q, %q", String("ᏣᎳᎩ"), String("ꮳꮃꭹ"))
	}
}

// TestFoldingIsIdempotentForEveryCodePoint folds every code point alone
// and folds the result again: nothing may change the second time (the
// fuzz target found one script where it did; this looks at all of them).
func TestFoldingIsIdempotentForEveryCodePoint(t *testing.T) {
	bad := 0
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue // surrogates: not characters
		}
		f := String(string(r))
		if again := String(f); again != f {
			if bad++; bad <= 10 {
				t.Errorf("%U: %q -> %q -> %q", r, string(r), f, again)
			}
		}
	}
	if bad > 10 {
		t.Errorf("%d code points in all", bad)
	}
}

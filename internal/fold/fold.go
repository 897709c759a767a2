// Package fold defines how station text becomes search tokens. The indexer
// applies it to station fields and the query engine to query words, so both
// sides always agree on what a token is.
//
// Folding is compatibility decomposition (NFKD, so styled "𝐑𝐚𝐝𝐢𝐨" and
// full-width letters become plain ones), removal of the Latin, Greek and
// Cyrillic diacritics ("Rádio" -> "radio", "Ö3" -> "o3"; other scripts' marks
// are part of their letters and stay), removal of format characters (zero-width
// joiners and spaces, bidi controls), Unicode case folding ("ß" -> "ss"), and
// recomposition (NFC).
//
// Tokens are maximal runs of letters, digits and marks in the folded
// text; everything else separates tokens ("lor'fm" is "lor" and "fm"). Han,
// Hiragana and Katakana characters are tokens of one character each, because
// those scripts do not separate words with spaces: "北京" then finds
// "北京音乐广播" as two words that both match. A token is cut to MaxTokenRunes
// runes, so a 990-character tag costs no more than a word.
package fold

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// MaxTokenRunes is the length at which tokens, and query words, are cut.
const MaxTokenRunes = 40

// diacritics are the combining marks that accents decompose into for Latin,
// Greek and Cyrillic. Marks of other scripts (kana voicing, Indic viramas and
// vowel signs, Hebrew and Arabic points) are part of the letter there, so they
// stay.
var diacritics = &unicode.RangeTable{R16: []unicode.Range16{
	{Lo: 0x0300, Hi: 0x036f, Stride: 1}, // Combining Diacritical Marks
	{Lo: 0x1ab0, Hi: 0x1aff, Stride: 1}, // ... Extended
	{Lo: 0x1dc0, Hi: 0x1dff, Stride: 1}, // ... Supplement
	{Lo: 0x20d0, Hi: 0x20ff, Stride: 1}, // ... for Symbols
	{Lo: 0xfe20, Hi: 0xfe2f, Stride: 1}, // Combining Half Marks
}}

// folders pools the transform chain: its stages keep state, so a chain
// serves one call at a time.
var folders = sync.Pool{New: func() any {
	return transform.Chain(
		norm.NFKD,
		runes.Remove(runes.In(diacritics)),
		runes.Remove(runes.In(unicode.Cf)),
		cases.Fold(),
		runes.Map(cherokeeFold),
		norm.NFC,
	)
}}

// cherokeeFold finishes case folding for Cherokee, whose capital letters
// were encoded first and are the folded form (Unicode's CaseFolding.txt
// maps the small letters to them). cases.Fold (x/text v0.42.0) maps them
// the other way round as well, capital to small and small to capital, so
// folding twice would undo it: "Ꮦ" -> "ꮦ" -> "Ꮦ". Taking every Cherokee
// letter to its capital after it makes folding idempotent again, which
// tokens need (FuzzTokens found it).
func cherokeeFold(r rune) rune {
	switch {
	case r >= 0xAB70 && r <= 0xABBF: // small letters A..YA
		return r - 0xAB70 + 0x13A0
	case r >= 0x13F8 && r <= 0x13FD: // small letters YE..MV
		return r - 0x13F8 + 0x13F0
	}
	return r
}

// String folds s for matching and sorting.
func String(s string) string {
	if isLowerASCII(s) {
		return s
	}
	if isASCII(s) {
		return strings.ToLower(s)
	}
	t := folders.Get().(transform.Transformer)
	defer folders.Put(t)
	t.Reset()
	out, _, err := transform.String(t, strings.ToValidUTF8(s, "\uFFFD"))
	if err != nil {
		// The chain has no failure mode on valid UTF-8; keep the input
		// rather than lose the field if that ever changes.
		return strings.ToLower(s)
	}
	return out
}

// Tokens folds s and splits it into tokens, in order of appearance,
// duplicates included.
func Tokens(s string) []string {
	return AppendTokens(nil, s)
}

// AppendTokens appends the tokens of s to dst.
func AppendTokens(dst []string, s string) []string {
	return AppendFoldedTokens(dst, String(s))
}

// AppendFoldedTokens appends the tokens of f, which String folded, to dst:
// AppendTokens(dst, s) is AppendFoldedTokens(dst, String(s)). For callers
// that need both the folded text and its tokens, folding once.
func AppendFoldedTokens(dst []string, f string) []string {
	start := -1
	for i, r := range f {
		switch {
		case isIdeograph(r):
			dst = flush(dst, f, start, i)
			start = -1
			dst = append(dst, f[i:i+utf8.RuneLen(r)])
		case isWordRune(r):
			if start < 0 {
				start = i
			}
		default:
			dst = flush(dst, f, start, i)
			start = -1
		}
	}
	return flush(dst, f, start, len(f))
}

func flush(dst []string, f string, start, end int) []string {
	if start < 0 || start == end {
		return dst
	}
	return append(dst, Cut(f[start:end]))
}

// Cut shortens a token to MaxTokenRunes runes.
func Cut(tok string) string {
	if len(tok) <= MaxTokenRunes {
		return tok
	}
	n := 0
	for i := range tok {
		if n == MaxTokenRunes {
			return tok[:i]
		}
		n++
	}
	return tok
}

// Key is the name key of s: its tokens joined by single spaces. Two names
// with the same key are the same name for ranking ("Radio-1" and "radio 1");
// stations are sorted by it, which ignores leading punctuation and symbols.
func Key(s string) string {
	return strings.Join(Tokens(s), " ")
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc)
}

func isIdeograph(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isLowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

package format

import "unicode/utf8"

// Name grams (BucketNameGrams), for substring matching of names (the
// compatible API's name filter, upstream's LIKE '%text%'). A name is
// filed under the NameGramRunes runes that start at each of its runes,
// in its folded form (fold.String), padded at the end with NameGramPad so
// that every rune starts a gram: "jazz" under "jaz", "azz", "zz\x00",
// "z\x00\x00". Then the names holding a text of at most NameGramRunes
// runes are exactly those filed under a key that starts with it (a range
// of keys), and those holding a longer text are among the names filed
// under each of its grams (AppendTextGrams), which a reader checks.
const (
	NameGramRunes = 3
	NameGramPad   = "\x00\x00" // NameGramRunes-1 bytes no folded name holds
)

// AppendNameGrams appends the grams a folded name is filed under, one
// for each of its runes: substrings of one string, so one allocation.
func AppendNameGrams(dst []string, folded string) []string {
	return appendGrams(dst, folded+NameGramPad, len(folded))
}

// AppendTextGrams appends the grams of NameGramRunes runes of a folded
// text longer than that: every name holding the text is filed under each.
func AppendTextGrams(dst []string, folded string) []string {
	if utf8.RuneCountInString(folded) < NameGramRunes {
		return dst
	}
	end := len(folded)
	for range NameGramRunes - 1 { // the last grams would run past the text
		_, size := utf8.DecodeLastRuneInString(folded[:end])
		end -= size
	}
	return appendGrams(dst, folded, end)
}

// appendGrams appends the NameGramRunes runes of s starting at each rune
// that starts before the byte offset starts.
func appendGrams(dst []string, s string, starts int) []string {
	for i := 0; i < starts; {
		end := i
		for range NameGramRunes {
			_, size := utf8.DecodeRuneInString(s[end:])
			end += size
		}
		dst = append(dst, s[i:end])
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return dst
}

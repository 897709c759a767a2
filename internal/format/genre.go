package format

import (
	"strings"
	"unicode"
)

// GenreKey is the lookup key of a genre tag, the key the genres bucket files
// it under and a genre filter or directory page looks it up with: the
// tag's FacetKey (case and accents folded) without white space, hyphens,
// apostrophes and leading '#' characters, so that "Hip Hop", "hip-hop",
// "hiphop" and "#HipHop" are one genre, as are "80s" and "80's", "r'n'b"
// and "rnb". The source's spellings of one genre differ in exactly these
// ways (881 tags of the real snapshot fall into 382 keys so); dots, '&'
// and the like are left alone, as "r&b" and "rnb" or "d.j." and "dj" may
// well be different things. A tag left with nothing but punctuation ("-",
// "...", "#") has no key (""): it is no genre anyone could filter on.
//
// Hyphens are U+002D, U+2010 and U+2011 (and what folding maps onto them:
// U+FE63, U+FF0D); apostrophes are U+0027, U+0060, U+00B4, U+02B9, U+02BC,
// U+2018, U+2019, U+201B, U+2032 and U+FF07, every form the sources type
// one in.
func GenreKey(tag string) string {
	k := FacetKey(tag)
	if strings.IndexFunc(k, ignoredInGenre) >= 0 {
		k = strings.Map(func(r rune) rune {
			if ignoredInGenre(r) {
				return -1
			}
			return r
		}, k)
	}
	k = strings.TrimLeft(k, "#")
	if strings.IndexFunc(k, isNotPunct) < 0 {
		return ""
	}
	return k
}

// ignoredInGenre reports whether r is a character GenreKey leaves out.
func ignoredInGenre(r rune) bool {
	switch r {
	case '-', '\u2010', '\u2011', // hyphens
		'\'', '`', '\u00b4', '\u02b9', '\u02bc', '\u2018', '\u2019', '\u201b', '\u2032', '\uff07': // apostrophes
		return true
	}
	return unicode.IsSpace(r)
}

func isNotPunct(r rune) bool { return !unicode.IsPunct(r) }

package oracle

import (
	"cmp"
	"strings"
	"unicode"

	"stationdex/internal/fold"
)

// GenreKey is the genre a tag is one spelling of, by the API guide's rule
// and apart from the engine's code: folded, then every space, hyphen and
// apostrophe taken out and the '#' signs it starts with; no key (""), when
// nothing but punctuation is left.
func GenreKey(tag string) string {
	var b strings.Builder
	for _, r := range fold.String(tag) {
		if unicode.IsSpace(r) || strings.ContainsRune(genreDashes+genreApostrophes, r) {
			continue
		}
		b.WriteRune(r)
	}
	key := b.String()
	for strings.HasPrefix(key, "#") {
		key = key[1:]
	}
	if strings.TrimFunc(key, unicode.IsPunct) == "" {
		return ""
	}
	return key
}

// The characters a genre key leaves out besides white space: the hyphens
// and every apostrophe form, as the guide lists them.
const (
	genreDashes      = "-\u2010\u2011\ufe63\uff0d"
	genreApostrophes = "'`\u00b4\u02b9\u02bc\u2018\u2019\u201b\u2032\uff07"
)

// GenreLabels is, for every genre key, the spelling the most stations list
// (ties: the bytewise smallest spelling).
func (o *Oracle) GenreLabels() map[string]string {
	count := map[string]map[string]int{}
	for i := range o.stations {
		for _, tag := range o.stations[i].tags {
			k := GenreKey(tag)
			if k == "" {
				continue
			}
			if count[k] == nil {
				count[k] = map[string]int{}
			}
			count[k][tag]++
		}
	}
	labels := make(map[string]string, len(count))
	for k, spellings := range count {
		best := ""
		for tag, n := range spellings {
			if m := spellings[best]; best == "" || n > m || n == m && cmp.Less(tag, best) {
				best = tag
			}
		}
		labels[k] = best
	}
	return labels
}

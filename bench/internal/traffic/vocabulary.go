package traffic

import (
	"slices"
	"strings"

	"stationdex/bench/internal/raw"
	"stationdex/internal/fold"
	"stationdex/internal/format"
	"stationdex/internal/iso"
)

// vocabulary is what a query word can match in the index, modelled from
// the raw stations: the folded tokens of every searchable field (name,
// country label, code and English name, location, language labels, tags;
// indexer/postings.go's searchable) and, per token, the stations that
// have it. A word matches a token it is a prefix of (package query), so a
// word finds nothing exactly when no token starts with it.
type vocabulary struct {
	tokens   []string           // sorted, distinct (after seal)
	stations map[string][]int32 // token -> station numbers, ascending
}

func (v *vocabulary) add(station int32, tokens []string) {
	if v.stations == nil {
		v.stations = map[string][]int32{}
	}
	for _, t := range tokens {
		if l := v.stations[t]; len(l) == 0 || l[len(l)-1] != station {
			v.stations[t] = append(l, station)
		}
	}
}

// seal sorts the tokens, for the prefix look-ups.
func (v *vocabulary) seal() {
	v.tokens = make([]string, 0, len(v.stations))
	for t := range v.stations {
		v.tokens = append(v.tokens, t)
	}
	slices.Sort(v.tokens)
}

// prefixed is the range of tokens starting with w.
func (v *vocabulary) prefixed(w string) []string {
	i, _ := slices.BinarySearch(v.tokens, w)
	k := i
	for k < len(v.tokens) && strings.HasPrefix(v.tokens[k], w) {
		k++
	}
	return v.tokens[i:k]
}

// absent reports that no token starts with w: a search for it finds
// nothing.
func (v *vocabulary) absent(w string) bool { return len(v.prefixed(w)) == 0 }

// matching lists the stations a word finds, or ok false when there are
// more than most (a common word has every filter value among its
// stations, and listing them would cost more than drawing another word).
// The list may be the vocabulary's own: read it, never change it.
func (v *vocabulary) matching(w string, most int) (stations []int32, ok bool) {
	toks := v.prefixed(w)
	for _, t := range toks {
		if len(v.stations[t]) > most { // the union is at least as long
			return nil, false
		}
	}
	if len(toks) == 1 { // one list is already distinct
		return v.stations[toks[0]], true
	}
	seen := make(map[int32]bool, most+1)
	for _, t := range toks {
		for _, s := range v.stations[t] {
			if !seen[s] {
				if seen[s] = true; len(seen) > most {
					return nil, false
				}
				stations = append(stations, s)
			}
		}
	}
	return stations, true
}

// searchable are the folded tokens of every field of r a query word may
// match.
func searchable(r raw.Station) []string {
	code := strings.ToUpper(r.CountryCode)
	fields := []string{raw.CleanName(r.Name), r.Country, strings.ToLower(r.CountryCode), iso.CountryName(code), r.State}
	fields = append(fields, raw.SplitList(r.Language)...)
	fields = append(fields, raw.SplitList(r.Tags)...)
	var toks []string
	for _, f := range fields {
		toks = append(toks, fold.Tokens(f)...)
	}
	return toks
}

// languageKeys are the values a language filter could find r by: its ISO
// codes (from the labels, and the source's own list) and the facet keys of
// its labels. Codes are canonical, as the indexer files them.
func languageKeys(r raw.Station, codes []string) []string {
	keys := slices.Clone(codes)
	for _, c := range raw.SplitList(r.LanguageCodes) {
		if code, ok := iso.LanguageCode(c); ok { // "eng" files under "en"
			keys = append(keys, code)
		}
	}
	for _, l := range raw.SplitList(r.Language) {
		keys = append(keys, format.FacetKey(l))
	}
	return keys
}

// filterValues are the countries and language codes of the stations, most
// frequent first (ties by name, so the order is fixed).
func (src *Source) filterValues() (countries, languages []string) {
	cf, lf := map[string]int{}, map[string]int{}
	for _, s := range src.stations {
		if s.country != "" {
			cf[s.country]++
		}
		for _, l := range s.langs {
			lf[l]++
		}
	}
	return topWords(cf, len(cf)), topWords(lf, len(lf))
}

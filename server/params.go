package server

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"stationdex/query"
)

// Limits of the search parameters, from the spec.
const (
	maxQRunes      = 120
	maxFacetRunes  = query.MaxFilterRunes // language and genre
	minLimit       = 1
	maxLimit       = query.MaxLimit
	defaultLimit   = 20
	maxOffset      = 5000
	maxEchoedRunes = 40 // of user input quoted back in an error message
)

// searchParams is a validated search request. Filter holds the filter
// values by dimension exactly as the client gave them, because the
// envelope echoes them (codecs canonical, in format.Codecs order); none
// means absent (an empty filter is refused, so it cannot mean anything
// else). BitrateMin and BitrateMax are 0 when absent; RadiusKm is set
// with Near; FacetLimit with Facets.
type searchParams struct {
	Q                      string
	Filter                 query.Filters
	BitrateMin, BitrateMax int
	Near                   *point
	RadiusKm               float64
	Facets                 query.DimSet
	FacetLimit             int
	// Distinct is "true", "false" or "" (not given: false in the API,
	// true on the search page; see distinct)
	Distinct      string
	Limit, Offset int
}

// point is a position in degrees.
type point struct{ Lat, Lon float64 }

// one is the value of a single-valued filter, "" when absent.
func (p *searchParams) one(d query.Dim) string {
	if v := p.Filter[d]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// query is the engine's view of p. Suggestions are always asked for: the
// engine computes them only for a query with words and no result.
func (p searchParams) query() query.Query {
	q := query.Query{Q: p.Q, Filter: p.Filter, BitrateMin: p.BitrateMin, BitrateMax: p.BitrateMax,
		Facets: p.Facets, FacetLimit: p.FacetLimit, Suggest: true, Limit: p.Limit, Offset: p.Offset}
	if p.Near != nil {
		q.Near = &query.Near{Lat: p.Near.Lat, Lon: p.Near.Lon, RadiusKm: p.RadiusKm}
	}
	q.Distinct = p.distinct(false)
	return q
}

// parseSearchParams validates a raw query string. It parses rawQuery itself,
// rather than through url.ParseQuery, because a url.Values has already
// merged repeated parameters and dropped malformed pairs, and both must be
// refused with 400 here (but for a list parameter, whose repeats join its
// list). Errors are *Error with a 400 code.
func parseSearchParams(rawQuery string) (searchParams, error) {
	p := searchParams{Limit: defaultLimit}
	var seen paramSet
	var lists [len(searchParamTable)]string
	for pair := range strings.SplitSeq(rawQuery, "&") {
		if pair == "" {
			continue // "?" alone, or "a=1&&b=2": nothing was asked
		}
		name, value, err := decodePair(pair)
		if err != nil {
			return searchParams{}, err
		}
		i := paramIndex(name)
		if i < 0 {
			return searchParams{}, errorf(CodeUnknownParameter, "unknown parameter %s; the allowed parameters are %s", quoteClip(name), allowedParams)
		}
		row := &searchParamTable[i]
		switch {
		case row.isList() && seen.has(i):
			lists[i] += "," + value
		case row.isList():
			lists[i] = value
		case seen.has(i):
			return searchParams{}, errorf(CodeRepeatedParameter, "parameter %s is given more than once; give it at most once", name)
		default:
			if err := row.parse(&p, value); err != nil {
				return searchParams{}, err
			}
		}
		seen |= 1 << i
	}
	for i := range searchParamTable {
		if row := &searchParamTable[i]; row.isList() && seen.has(i) {
			if err := row.parse(&p, lists[i]); err != nil {
				return searchParams{}, err
			}
		}
	}
	return p, p.check(seen)
}

// decodePair splits and percent-decodes one name=value pair ('+' is a space,
// as in HTML forms) and refuses text that is not printable UTF-8.
func decodePair(pair string) (name, value string, err error) {
	rawName, rawValue, _ := strings.Cut(pair, "=")
	if name, err = url.QueryUnescape(rawName); err != nil {
		return "", "", errorf(CodeInvalidParameter, "malformed percent-encoding in parameter name %s; encode '%%' as %%25", quoteClip(rawName))
	}
	if value, err = url.QueryUnescape(rawValue); err != nil {
		return "", "", errorf(CodeInvalidParameter, "malformed percent-encoding in the value of %s; encode '%%' as %%25", quoteClip(name))
	}
	if !utf8.ValidString(name) || hasControl(name) {
		return "", "", errorf(CodeInvalidParameter, "a parameter name is not valid UTF-8 text")
	}
	if !utf8.ValidString(value) {
		return "", "", errorf(CodeInvalidParameter, "the value of %s is not valid UTF-8; send UTF-8 text, percent-encoded", quoteClip(name))
	}
	if hasControl(value) {
		return "", "", errorf(CodeInvalidParameter, "the value of %s contains control characters; remove them", quoteClip(name))
	}
	return name, value, nil
}

// paramSet is a set of search parameters, one bit each (its row in
// searchParamTable): the parameters already seen in a query string. (A
// map was two allocations per search, cache hits included.)
type paramSet uint32

// has reports whether row i is in ps.
func (ps paramSet) has(i int) bool { return ps&(1<<i) != 0 }

// check applies the rules between parameters, once all are read, and the
// defaults that depend on them.
func (p *searchParams) check(seen paramSet) error {
	switch {
	case seen.has(paramIndex("radius_km")) && p.Near == nil:
		return errorf(CodeInvalidParameter, "radius_km needs near=LAT,LON; give both or neither")
	case seen.has(paramIndex("facet_limit")) && !p.Facets.Any():
		return errorf(CodeInvalidParameter, "facet_limit needs facets, such as facets=country,genre")
	case p.BitrateMin > 0 && p.BitrateMax > 0 && p.BitrateMin > p.BitrateMax:
		return errorf(CodeInvalidParameter, "bitrate_min %d is above bitrate_max %d; swap them", p.BitrateMin, p.BitrateMax)
	}
	if p.Near != nil && p.RadiusKm == 0 {
		p.RadiusKm = defaultRadiusKm
	}
	if p.Facets.Any() && p.FacetLimit == 0 {
		p.FacetLimit = query.DefaultFacetLimit
	}
	return nil
}

// text checks a free-text parameter's length in characters (runes, not
// bytes, so "ü" counts once). An empty filter is refused rather than read as
// "any", so that an echoed filter is never an empty string; an empty q is
// the same as none.
func text(name, value string, maxRunes int, emptyOK bool) (string, error) {
	if value == "" && !emptyOK {
		return "", errorf(CodeInvalidParameter, "%s is empty; give a value or leave the parameter out", name)
	}
	if n := utf8.RuneCountInString(value); n > maxRunes {
		return "", errorf(CodeInvalidParameter, "%s is %d characters long; the maximum is %d", name, n, maxRunes)
	}
	return value, nil
}

// countryCode checks the spec's pattern ^[A-Za-z]{2}$.
func countryCode(value string) (string, error) {
	if len(value) != 2 || !isASCIILetter(value[0]) || !isASCIILetter(value[1]) {
		return "", errorf(CodeInvalidParameter, "country must be a two-letter ISO 3166-1 code such as DE or us; got %s", quoteClip(value))
	}
	return value, nil
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// integer parses a plain decimal integer in [lo, hi]. Only digits are
// accepted: no sign, no '+', no spaces, no exponent, so that every value has
// an obvious meaning. Leading zeros are harmless and accepted.
func integer(name, value string, lo, hi int, note string) (int, error) {
	bad := func() error {
		return errorf(CodeInvalidParameter, "%s must be a whole number from %d to %d (%s); got %s", name, lo, hi, note, quoteClip(value))
	}
	if value == "" || strings.Trim(value, "0123456789") != "" {
		return 0, bad()
	}
	n, err := strconv.ParseUint(value, 10, 32) // a range error is simply out of range
	if err != nil || n < uint64(lo) || n > uint64(hi) {
		return 0, bad()
	}
	return int(n), nil
}

// hasControl reports Unicode control characters (C0, DEL, C1), which have no
// place in a search and would only corrupt logs and echoes.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, unicode.IsControl)
}

// quoteClip quotes user input for an error message: cut to a few dozen
// characters, so a message never reflects a huge input, and Go-quoted, so
// odd characters are visible.
func quoteClip(s string) string {
	if utf8.RuneCountInString(s) > maxEchoedRunes {
		r := []rune(s)
		return strconv.Quote(string(r[:maxEchoedRunes])) + "…"
	}
	return strconv.Quote(s)
}

// canonicalQuery is the query string that denotes p and only p: parameters in
// a fixed order, limit and offset always present. It keys the ETag and forms
// the next link, so one request spelt two ways shares a cache entry.
func (p searchParams) canonicalQuery() string { return string(p.appendCanonicalQuery(nil)) }

// appendCanonicalQuery appends canonicalQuery to b. The search key is made
// on every request, cache hits included: appending it to one buffer costs
// one allocation (the key) where a strings.Builder and an escaped string per
// parameter cost several.
func (p searchParams) appendCanonicalQuery(b []byte) []byte {
	start := len(b)
	for i := range searchParamTable {
		row := &searchParamTable[i]
		mark := len(b)
		if len(b) > start {
			b = append(b, '&')
		}
		b = append(append(b, row.name...), '=')
		var ok bool
		if b, ok = row.appendValue(b, &p); !ok {
			b = b[:mark]
		}
	}
	return b
}

// appendQueryEscape appends url.QueryEscape(s) to b with commas left
// unescaped: commas separate list items, and left as they are they stay
// readable. Unreserved characters stay, a space becomes '+', every other
// byte %XX (upper-case hex), exactly as url.QueryEscape
// (TestAppendQueryEscape).
func appendQueryEscape(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '_', c == '.', c == '~', c == ',':
			b = append(b, c)
		case c == ' ':
			b = append(b, '+')
		default:
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return b
}

// distinct is whether p asks for one result per group, unset the
// default of the page asking (the API lists every entry unless told, as
// the specification's total counts records; the search page shows each
// station once).
func (p *searchParams) distinct(unset bool) bool {
	if p.Distinct == "" {
		return unset
	}
	return p.Distinct == "true"
}

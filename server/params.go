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
	allowedParams  = "q, country, language, genre, codec, bitrate_min, bitrate_max, near, radius_km, facets, facet_limit, limit, offset"
	maxEchoedRunes = 40 // of user input quoted back in an error message
)

// searchParams is a validated search request. Country, Language and Genre
// are exactly as the client gave them, because the envelope echoes them; ""
// means absent (an empty filter is rejected, so it cannot mean anything else).
type searchParams struct {
	Q, Country, Language, Genre string
	discovery
	Limit, Offset int
}

// query is the engine's view of p. Suggestions are always asked for: the
// engine computes them only for a query with words and no result.
func (p searchParams) query() query.Query {
	q := query.Query{Q: p.Q, BitrateMin: p.BitrateMin, BitrateMax: p.BitrateMax,
		Facets: p.Facets, FacetLimit: p.FacetLimit, Suggest: true, Limit: p.Limit, Offset: p.Offset}
	for i, v := range [...]string{p.Country, p.Language, p.Genre} {
		if v != "" {
			q.Filter[query.Dim(i)] = []string{v} // facetNames order
		}
	}
	q.Filter[query.DimCodec] = p.Codecs
	if p.Near != nil {
		q.Near = &query.Near{Lat: p.Near.Lat, Lon: p.Near.Lon, RadiusKm: p.RadiusKm}
	}
	return q
}

// parseSearchParams validates a raw query string. It parses rawQuery itself,
// rather than through url.ParseQuery, because a url.Values has already
// merged repeated parameters and dropped malformed pairs, and both must be
// refused with 400 here. Errors are *Error with a 400 code.
func parseSearchParams(rawQuery string) (searchParams, error) {
	p := searchParams{Limit: defaultLimit}
	var seen paramSet
	for pair := range strings.SplitSeq(rawQuery, "&") {
		if pair == "" {
			continue // "?" alone, or "a=1&&b=2": nothing was asked
		}
		name, value, err := decodePair(pair)
		if err != nil {
			return searchParams{}, err
		}
		bit := paramBit(name)
		if bit == 0 {
			return searchParams{}, errorf(CodeUnknownParameter, "unknown parameter %s; the allowed parameters are %s", quoteClip(name), allowedParams)
		}
		if seen&bit != 0 {
			return searchParams{}, errorf(CodeRepeatedParameter, "parameter %s is given more than once; give it at most once", name)
		}
		seen |= bit
		if err := p.set(name, value); err != nil {
			return searchParams{}, err
		}
	}
	return p, p.discovery.check(seen)
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

// paramSet is a set of search parameters, one bit each: the parameters
// already seen in a query string. (A map was two allocations per search,
// cache hits included.)
type paramSet uint16

// paramBit is the bit of a search parameter, 0 for any other name.
func paramBit(name string) paramSet {
	for i, n := range searchParamNames {
		if n == name {
			return 1 << i
		}
	}
	return 0
}

// searchParamNames are the search parameters, in paramSet's bit order.
var searchParamNames = [...]string{"q", "country", "language", "genre", "limit", "offset",
	"codec", "bitrate_min", "bitrate_max", "near", "radius_km", "facets", "facet_limit"}

// has reports whether name is in ps.
func (ps paramSet) has(name string) bool { return ps&paramBit(name) != 0 }

// set validates value as parameter name (one of the search parameters).
func (p *searchParams) set(name, value string) (err error) {
	switch name {
	case "q":
		p.Q, err = text(name, value, maxQRunes, true)
	case "country":
		p.Country, err = countryCode(value)
	case "language":
		p.Language, err = text(name, value, maxFacetRunes, false)
	case "genre":
		p.Genre, err = text(name, value, maxFacetRunes, false)
	case "limit":
		p.Limit, err = integer(name, value, minLimit, maxLimit, "default 20")
	case "offset":
		p.Offset, err = integer(name, value, 0, maxOffset, "default 0; results past 5000 cannot be reached")
	default:
		err = p.discovery.set(name, value)
	}
	return err
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
	add := func(name, value string) {
		if len(b) > start {
			b = append(b, '&')
		}
		b = append(b, name...)
		b = append(b, '=')
		b = appendQueryEscape(b, value)
	}
	if p.Q != "" {
		add("q", p.Q)
	}
	for _, f := range [...]struct{ name, value string }{{"country", p.Country}, {"language", p.Language}, {"genre", p.Genre}} {
		if f.value != "" {
			add(f.name, f.value)
		}
	}
	p.discovery.canonical(add)
	var num [20]byte
	add("limit", string(strconv.AppendInt(num[:0], int64(p.Limit), 10)))
	add("offset", string(strconv.AppendInt(num[:0], int64(p.Offset), 10)))
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

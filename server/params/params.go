// Package params is the search parameters of the API and the pages: one
// row per parameter (parser, limits, canonical form, words, form field),
// parsed from a query string into SearchParams and written back as the
// canonical query that names a search in the cache.
//
// File map:
//   - params.go: parsing a query string and writing a canonical one; the
//     next page's URL
//   - paramtable.go: the parameters, one row each, and their limits as
//     the capabilities document states them
//   - paramvalues.go: the value parsers of lists, positions and radii
package params

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"stationdex/query"
	"stationdex/server/core"
)

// Ranking is the constant "ranking" of every search envelope.
const Ranking = "name_match_then_alphabetical"

// NextPage is the absolute URL of the page after p, or nil when p is the
// last page or the next one would start beyond the reachable offset 5000.
func NextPage(base string, p SearchParams, total int) *string {
	next := p
	next.Offset = p.Offset + p.Limit
	if next.Offset >= total || next.Offset > core.MaxOffset {
		return nil
	}
	var ub [256]byte // one allocation for the URL, as for the search key
	u := string(next.AppendCanonicalQuery(append(append(ub[:0], base...), core.PathStations+"?"...)))
	return &u
}

// SearchParams is a validated search request. Filter holds the filter
// values by dimension exactly as the client gave them, because the
// envelope echoes them (codecs canonical, in format.Codecs order); none
// means absent (an empty filter is refused, so it cannot mean anything
// else). BitrateMin and BitrateMax are 0 when absent; RadiusKm is set
// with Near; FacetLimit with Facets.
type SearchParams struct {
	Q                      string
	Filter                 query.Filters
	BitrateMin, BitrateMax int
	Near                   *Point
	RadiusKm               float64
	Facets                 query.DimSet
	FacetLimit             int
	// Distinct is "true", "false" or "" (not given: false in the API,
	// true on the search page; see distinct)
	Distinct string
	// Sort is the order asked for, one of SortNames but relevance (the
	// default, kept as "", so that it names the same search).
	Sort          string
	Limit, Offset int
}

// Point is a position in degrees.
type Point struct{ Lat, Lon float64 }

// One is the value of a single-valued filter, "" when absent.
func (p *SearchParams) One(d query.Dim) string {
	if v := p.Filter[d]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Query is the engine's view of p. Suggestions are always asked for: the
// engine computes them only for a query with words and no result.
func (p SearchParams) Query() query.Query {
	q := query.Query{Q: p.Q, Filter: p.Filter, BitrateMin: p.BitrateMin, BitrateMax: p.BitrateMax,
		Facets: p.Facets, FacetLimit: p.FacetLimit, Suggest: true, Limit: p.Limit, Offset: p.Offset}
	if p.Near != nil {
		q.Near = &query.Near{Lat: p.Near.Lat, Lon: p.Near.Lon, RadiusKm: p.RadiusKm}
	}
	q.Distinct = p.IsDistinct(false)
	q.Sort, _ = query.SortOf(p.Sort) // checked by sortValue
	return q
}

// ParseSearchParams validates a raw query string. It parses rawQuery itself,
// rather than through url.ParseQuery, because a url.Values has already
// merged repeated parameters and dropped malformed pairs, and both must be
// refused with 400 here (but for a list parameter, whose repeats join its
// list). Errors are *Error with a 400 code.
func ParseSearchParams(rawQuery string) (SearchParams, error) {
	p := SearchParams{Limit: core.DefaultLimit}
	var seen paramSet
	var lists [len(SearchParamTable)]string
	for pair := range strings.SplitSeq(rawQuery, "&") {
		if pair == "" {
			continue // "?" alone, or "a=1&&b=2": nothing was asked
		}
		name, value, err := decodePair(pair)
		if err != nil {
			return SearchParams{}, err
		}
		i := ParamIndex(name)
		if i < 0 {
			return SearchParams{}, core.Errorf(core.CodeUnknownParameter, "unknown parameter %s; the allowed parameters are %s", core.QuoteClip(name), AllowedParams)
		}
		row := &SearchParamTable[i]
		switch {
		case row.isList() && seen.has(i):
			lists[i] += "," + value
		case row.isList():
			lists[i] = value
		case seen.has(i):
			return SearchParams{}, core.Errorf(core.CodeRepeatedParameter, "parameter %s is given more than once; give it at most once", name)
		default:
			if err := row.parse(&p, value); err != nil {
				return SearchParams{}, err
			}
		}
		seen |= 1 << i
	}
	for i := range SearchParamTable {
		if row := &SearchParamTable[i]; row.isList() && seen.has(i) {
			if err := row.parse(&p, lists[i]); err != nil {
				return SearchParams{}, err
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
		return "", "", core.Errorf(core.CodeInvalidParameter, "malformed percent-encoding in parameter name %s; encode '%%' as %%25", core.QuoteClip(rawName))
	}
	if value, err = url.QueryUnescape(rawValue); err != nil {
		return "", "", core.Errorf(core.CodeInvalidParameter, "malformed percent-encoding in the value of %s; encode '%%' as %%25", core.QuoteClip(name))
	}
	if !utf8.ValidString(name) || hasControl(name) {
		return "", "", core.Errorf(core.CodeInvalidParameter, "a parameter name is not valid UTF-8 text")
	}
	if !utf8.ValidString(value) {
		return "", "", core.Errorf(core.CodeInvalidParameter, "the value of %s is not valid UTF-8; send UTF-8 text, percent-encoded", core.QuoteClip(name))
	}
	if hasControl(value) {
		return "", "", core.Errorf(core.CodeInvalidParameter, "the value of %s contains control characters; remove them", core.QuoteClip(name))
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
func (p *SearchParams) check(seen paramSet) error {
	switch {
	case seen.has(ParamIndex("radius_km")) && p.Near == nil:
		return core.Errorf(core.CodeInvalidParameter, "radius_km needs near=LAT,LON; give both or neither")
	case seen.has(ParamIndex("facet_limit")) && !p.Facets.Any():
		return core.Errorf(core.CodeInvalidParameter, "facet_limit needs facets, such as facets=country,genre")
	case p.BitrateMin > 0 && p.BitrateMax > 0 && p.BitrateMin > p.BitrateMax:
		return core.Errorf(core.CodeInvalidParameter, "bitrate_min %d is above bitrate_max %d; swap them", p.BitrateMin, p.BitrateMax)
	case p.Sort == SortDistance && p.Near == nil:
		return core.Errorf(core.CodeInvalidParameter, "sort=distance needs near=LAT,LON, the place distances are measured from")
	}
	if p.Near != nil && p.RadiusKm == 0 {
		p.RadiusKm = DefaultRadiusKm
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
		return "", core.Errorf(core.CodeInvalidParameter, "%s is empty; give a value or leave the parameter out", name)
	}
	if n := utf8.RuneCountInString(value); n > maxRunes {
		return "", core.Errorf(core.CodeInvalidParameter, "%s is %d characters long; the maximum is %d", name, n, maxRunes)
	}
	return value, nil
}

// countryCode checks the spec's pattern ^[A-Za-z]{2}$.
func countryCode(value string) (string, error) {
	if len(value) != 2 || !IsASCIILetter(value[0]) || !IsASCIILetter(value[1]) {
		return "", core.Errorf(core.CodeInvalidParameter, "country must be a two-letter ISO 3166-1 code such as DE or us; got %s", core.QuoteClip(value))
	}
	return value, nil
}

func IsASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// Integer parses a plain decimal integer in [lo, hi]. Only digits are
// accepted: no sign, no '+', no spaces, no exponent, so that every value has
// an obvious meaning. Leading zeros are harmless and accepted.
func Integer(name, value string, lo, hi int, note string) (int, error) {
	bad := func() error {
		return core.Errorf(core.CodeInvalidParameter, "%s must be a whole number from %d to %d (%s); got %s", name, lo, hi, note, core.QuoteClip(value))
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

// CanonicalQuery is the query string that denotes p and only p: parameters in
// a fixed order, limit and offset always present. It keys the ETag and forms
// the next link, so one request spelt two ways shares a cache entry.
// It is written into a buffer on the stack first (a query rarely passes
// it), so that the string is the one allocation.
func (p SearchParams) CanonicalQuery() string {
	var space [256]byte
	return string(p.AppendCanonicalQuery(space[:0]))
}

// LinkURL is base, path, "?" and p's canonical query: a page's link to
// the search p denotes, made in one allocation as CanonicalQuery is.
func (p SearchParams) LinkURL(base, path string) string {
	var space [512]byte
	b := append(append(append(space[:0], base...), path...), '?')
	return string(p.AppendCanonicalQuery(b))
}

// AppendCanonicalQuery appends canonicalQuery to b. The search key is made
// on every request, cache hits included: appending it to one buffer costs
// one allocation (the key) where a strings.Builder and an escaped string per
// parameter cost several.
func (p SearchParams) AppendCanonicalQuery(b []byte) []byte {
	start := len(b)
	for i := range SearchParamTable {
		b = SearchParamTable[i].appendPair(b, start, &p)
	}
	return b
}

// appendPair appends the row's name=value to a query begun at start in
// b, after an & when it is not the first, or nothing when p leaves the
// parameter out.
func (row *param) appendPair(b []byte, start int, p *SearchParams) []byte {
	mark := len(b)
	if len(b) > start {
		b = append(b, '&')
	}
	b = append(append(b, row.Name...), '=')
	b, ok := row.appendValue(b, p)
	if !ok {
		return b[:mark]
	}
	return b
}

// AppendCanonicalQueryOf appends to b the canonical query of p with the
// filter of dimension d set to one value yet to be written, and returns
// where that value goes: the canonical query of p with Filter[d] = {v}
// (v not empty) is b[:at], AppendQueryEscape(v) and then b[at:]. The
// search page links some forty refinements, a value each of a few
// dimensions: each dimension's query is then written once, not each
// value's. ok is false, b unchanged, when d has no parameter of its own.
func (p SearchParams) AppendCanonicalQueryOf(b []byte, d query.Dim) (_ []byte, at int, ok bool) {
	start := len(b)
	at = -1
	for i := range SearchParamTable {
		row := &SearchParamTable[i]
		if (row.Kind == KindFilter || row.Kind == kindCodec) && row.dim == d {
			if at >= 0 {
				return b[:start], 0, false // two parameters of one dimension
			}
			if len(b) > start {
				b = append(b, '&')
			}
			b = append(append(b, row.Name...), '=')
			at = len(b)
			continue
		}
		b = row.appendPair(b, start, &p)
	}
	if at < 0 {
		return b[:start], 0, false
	}
	return b, at, true
}

// AppendQueryEscape appends url.QueryEscape(s) to b with commas left
// unescaped: commas separate list items, and left as they are they stay
// readable. Unreserved characters stay, a space becomes '+', every other
// byte %XX (upper-case hex), exactly as url.QueryEscape
// (TestAppendQueryEscape).
func AppendQueryEscape(b []byte, s string) []byte {
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
func (p *SearchParams) IsDistinct(unset bool) bool {
	if p.Distinct == "" {
		return unset
	}
	return p.Distinct == "true"
}

package server

import (
	"strconv"
	"strings"

	"stationdex/internal/format"
	"stationdex/query"
)

// param is one public search parameter: a row of searchParamTable. Its
// name, how it is read (its kind, with the dimension or field it sets and
// the check of a value), and its spec, the words and limits that describe
// it wherever they are listed and that the parser enforces (the
// well-known file, the guide, the HTML form; the OpenAPI document is held
// equal to it by a test). A new filter or facet is a new row.
//
// Rows name what they set instead of carrying closures: parsing and
// writing a request go through one switch on the kind, whose calls the
// compiler sees, so a request's parameters stay on the stack.
type param struct {
	name  string
	group paramGroup
	kind  paramKind
	dim   query.Dim // kindFilter, kindCodec
	field intField  // kindInt, kindPaging
	// check validates a kindFilter value, returning it as kept.
	check func(value string) (string, error)
	spec  capLimit
	note  string // what the 400 of a number adds ("kbps", "default 20")
	// form describes the parameter's field of the HTML search form (none
	// for an empty label).
	form formField
}

// paramKind is how a parameter is read and written.
type paramKind uint8

const (
	kindQ          paramKind = iota
	kindFilter               // one value of dimension dim, as given
	kindCodec                // the codec list
	kindInt                  // an optional whole number (0: absent)
	kindNear                 // near=LAT,LON
	kindRadius               // radius_km, written with near
	kindFacets               // the facet list
	kindFacetLimit           // written with facets
	kindPaging               // limit, offset: always written
	kindDistinct             // true or false, as given
)

// intField names a whole-number field of searchParams.
type intField uint8

const (
	fieldBitrateMin intField = iota
	fieldBitrateMax
	fieldLimit
	fieldOffset
)

// paramGroup is where a parameter is listed in the well-known file.
type paramGroup int

const (
	groupFilter paramGroup = iota
	groupPaging
	groupFacets
	groupGrouping
)

// formField is a parameter's field in the search form.
type formField struct {
	Label, Type, Placeholder string
	Size                     int
	Options                  []string // for a select: "" (any) then these
	// OptionText, when set, is what each option shows (else its value).
	OptionText []string
	// Unset is what a select's "" option shows when not "any": what the
	// page does when the parameter is not given.
	Unset string
}

// searchParamTable is every search parameter, in canonical order: the
// order of next, facet and suggestion links and of ETags. A row's index
// is its bit in a paramSet.
var searchParamTable = [...]param{
	{name: "q", kind: kindQ, spec: capLimit{Type: "string", MaxLength: maxQRunes,
		Accepts: "words; each must match a token of name, country, location, language or genre, whole or as a prefix"},
		form: formField{Label: "Words", Type: "search"}},
	{name: "country", kind: kindFilter, dim: query.DimCountry, check: countryCode,
		spec: capLimit{Type: "string", Pattern: "^[A-Za-z]{2}$", Accepts: "ISO 3166-1 alpha-2 code, any case"},
		form: formField{Label: "Country code", Type: "text", Placeholder: "de", Size: 3}},
	{name: "language", kind: kindFilter, dim: query.DimLanguage, check: folded("language"),
		spec: capLimit{Type: "string", MaxLength: maxFacetRunes, Accepts: "source label, ISO 639-1/639-2/639-3 code or English name, any case"},
		form: formField{Label: "Language", Type: "text", Placeholder: "German or de"}},
	{name: "genre", kind: kindFilter, dim: query.DimGenre, check: folded("genre"),
		spec: capLimit{Type: "string", MaxLength: maxFacetRunes,
			Accepts: "a source tag in any of its spellings: case, accents, spaces, hyphens, apostrophes and a leading # do not count (hip hop, Hip-Hop and hiphop are one genre)"},
		form: formField{Label: "Genre", Type: "text", Placeholder: "jazz"}},
	{name: "location", kind: kindFilter, dim: query.DimLocation, check: folded("location"),
		spec: capLimit{Type: "string", MaxLength: maxFacetRunes,
			Accepts: "the station's place as the directory lists it (see /locations/), any case and accents"},
		form: formField{Label: "Location", Type: "text", Placeholder: "Berlin"}},
	{name: "codec", kind: kindCodec, dim: query.DimCodec, spec: capLimit{Type: "array", Items: format.Codecs,
		Accepts: "comma-separated codecs (or codec repeated), any case; a station with any of them matches; write AAC+ as AAC%2B"},
		form: formField{Label: "Codec", Type: "select", Options: format.Codecs}},
	{name: "https", kind: kindFilter, dim: query.DimHTTPS, check: boolean("https"), spec: capLimit{Type: "boolean",
		Accepts: "true: stations whose stream address is HTTPS; false: plain HTTP (stations without a stream match neither)"},
		form: formField{Label: "Stream address", Type: "select", Options: []string{"true", "false"},
			OptionText: []string{"HTTPS only", "plain HTTP only"}}},
	{name: "bitrate_min", kind: kindInt, field: fieldBitrateMin, note: "kbps", spec: capLimit{Type: "integer", Minimum: nump(1),
		Maximum: maxBitrate, Accepts: "kbps; stations of unknown bitrate never match; at most bitrate_max"},
		form: formField{Label: "Bitrate from (kbps)", Type: "number", Placeholder: "128"}},
	{name: "bitrate_max", kind: kindInt, field: fieldBitrateMax, note: "kbps", spec: capLimit{Type: "integer", Minimum: nump(1),
		Maximum: maxBitrate, Accepts: "kbps; stations of unknown bitrate never match; at least bitrate_min"},
		form: formField{Label: "Bitrate to (kbps)", Type: "number", Placeholder: "320"}},
	{name: "near", kind: kindNear, spec: capLimit{Type: "string", Pattern: capNearPattern, MaxLength: 41,
		Accepts: "LAT,LON in decimal degrees (-90..90, -180..180); stations within radius_km along the great circle; stations without coordinates never match"},
		form: formField{Label: "Near (lat,lon)", Type: "text", Placeholder: "52.52,13.405"}},
	{name: "radius_km", kind: kindRadius, spec: capLimit{Type: "number", Minimum: nump(minRadiusKm), Maximum: maxRadiusKm,
		Default: nump(defaultRadiusKm), Requires: "near", Accepts: "kilometres, decimals allowed"},
		form: formField{Label: "Radius (km)", Type: "number", Placeholder: "50"}},
	{name: "facets", group: groupFacets, kind: kindFacets, spec: capLimit{Type: "array", Items: facetNames(),
		Accepts: "comma-separated (or facets repeated), each at most once"}},
	{name: "facet_limit", group: groupFacets, kind: kindFacetLimit, note: "default 10", spec: capLimit{Type: "integer", Minimum: nump(1),
		Maximum: query.MaxFacetLimit, Default: nump(query.DefaultFacetLimit), Requires: "facets",
		Accepts: "values per facet, most stations first, ties by value"}},
	{name: "distinct", group: groupGrouping, kind: kindDistinct, check: boolean("distinct"), spec: capLimit{Type: "boolean",
		Accepts: "true: one result per group of entries (one stream submitted again, or one station's streams), its best-ranked entry at that entry's place; total and facets then count groups. Default false in the API, true on the search page"},
		form: formField{Label: "Entries", Type: "select", Options: []string{"false"}, OptionText: []string{"every entry"}, Unset: "each station once"}},
	{name: "limit", group: groupPaging, kind: kindPaging, field: fieldLimit, note: "default 20", spec: capLimit{Type: "integer",
		Minimum: nump(minLimit), Maximum: maxLimit, Default: nump(defaultLimit), Accepts: "results per page"}},
	{name: "offset", group: groupPaging, kind: kindPaging, field: fieldOffset, note: "default 0; results past 5000 cannot be reached",
		spec: capLimit{Type: "integer", Minimum: nump(0), Maximum: maxOffset, Default: nump(0), Accepts: "zero-based offset; follow next"}},
}

// isList: a comma-separated list, which may also be given as the
// parameter repeated (x=a&x=b is x=a,b).
func (row *param) isList() bool { return row.kind == kindCodec || row.kind == kindFacets }

// number is the whole-number field f of p.
func (p *searchParams) number(f intField) *int {
	switch f {
	case fieldBitrateMin:
		return &p.BitrateMin
	case fieldBitrateMax:
		return &p.BitrateMax
	case fieldLimit:
		return &p.Limit
	}
	return &p.Offset
}

// parse validates value as row's parameter and sets it in p.
func (row *param) parse(p *searchParams, value string) (err error) {
	switch row.kind {
	case kindQ:
		p.Q, err = text(row.name, value, maxQRunes, true)
	case kindFilter:
		if value, err = row.check(value); err == nil {
			p.Filter[row.dim] = []string{value}
		}
	case kindCodec:
		p.Filter[row.dim], err = codecList(value)
	case kindInt, kindPaging, kindFacetLimit:
		n, err := integer(row.name, value, int(*row.spec.Minimum), int(row.spec.Maximum), row.note)
		if row.kind == kindFacetLimit {
			p.FacetLimit = n
		} else {
			*p.number(row.field) = n
		}
		return err
	case kindNear:
		p.Near, err = position(value)
	case kindRadius:
		p.RadiusKm, err = radius(value)
	case kindFacets:
		p.Facets, err = facetList(value)
	case kindDistinct:
		p.Distinct, err = row.check(value)
	}
	return err
}

// appendValue appends row's value in p to b as a canonical query writes
// it, escaped; ok is false when the parameter is absent (b unchanged).
// Numbers are appended as digits: a string made of them would be an
// allocation per parameter per link.
func (row *param) appendValue(b []byte, p *searchParams) (_ []byte, ok bool) {
	switch row.kind {
	case kindQ:
		return appendQueryEscape(b, p.Q), p.Q != ""
	case kindFilter:
		v := p.one(row.dim)
		return appendQueryEscape(b, v), v != ""
	case kindCodec:
		for i, c := range p.Filter[row.dim] {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendQueryEscape(b, c)
		}
		return b, len(p.Filter[row.dim]) > 0
	case kindInt:
		n := *p.number(row.field)
		return strconv.AppendInt(b, int64(n), 10), n > 0
	case kindPaging:
		return strconv.AppendInt(b, int64(*p.number(row.field)), 10), true
	case kindNear:
		if p.Near == nil {
			return b, false
		}
		b = strconv.AppendFloat(b, p.Near.Lat, 'f', -1, 64)
		return strconv.AppendFloat(append(b, ','), p.Near.Lon, 'f', -1, 64), true
	case kindRadius:
		return strconv.AppendFloat(b, p.RadiusKm, 'f', -1, 64), p.Near != nil
	case kindFacets:
		for i, name := range facetNamesOf(p.Facets) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, name...)
		}
		return b, p.Facets.Any()
	case kindFacetLimit:
		return strconv.AppendInt(b, int64(p.FacetLimit), 10), p.Facets.Any()
	case kindDistinct:
		return append(b, p.Distinct...), p.Distinct != ""
	}
	return b, false
}

// folded checks a filter matched after folding: 1 to maxFacetRunes
// characters.
func folded(name string) func(string) (string, error) {
	return func(v string) (string, error) { return text(name, v, maxFacetRunes, false) }
}

// boolean accepts exactly true or false.
func boolean(name string) func(string) (string, error) {
	return func(v string) (string, error) {
		if v != "true" && v != "false" {
			return "", errorf(CodeInvalidParameter, "%s must be true or false; got %s", name, quoteClip(v))
		}
		return v, nil
	}
}

// paramIndex is the row of a parameter name, -1 for any other name.
func paramIndex(name string) int {
	for i := range searchParamTable {
		if searchParamTable[i].name == name {
			return i
		}
	}
	return -1
}

// allowedParams lists the parameter names for the unknown_parameter
// message.
var allowedParams = func() string {
	names := make([]string, len(searchParamTable))
	for i := range searchParamTable {
		names[i] = searchParamTable[i].name
	}
	return strings.Join(names, ", ")
}()

// facetNames are the dimensions a search may count, in canonical order.
func facetNames() []string {
	var names []string
	for d := range query.NumDims {
		if d.Facetable() {
			names = append(names, d.Name())
		}
	}
	return names
}

// facetNamesOf names the facets of ds in canonical order.
func facetNamesOf(ds query.DimSet) []string {
	var names []string
	for d := range query.NumDims {
		if ds.Has(d) {
			names = append(names, d.Name())
		}
	}
	return names
}

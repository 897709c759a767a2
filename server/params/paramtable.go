package params

import (
	"strconv"
	"strings"

	"stationdex/internal/dim"
	"stationdex/query"
	"stationdex/server/core"
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
	Name  string
	Group ParamGroup
	Kind  paramKind
	dim   query.Dim // kindFilter, kindCodec
	field intField  // kindInt, kindPaging
	// Check validates a kindFilter value, returning it as kept.
	Check func(value string) (string, error)
	Spec  CapLimit
	note  string // what the 400 of a number adds ("kbps", "default 20")
	// Form describes the parameter's field of the HTML search form (none
	// for an empty label).
	Form FormField
}

// paramKind is how a parameter is read and written.
type paramKind uint8

const (
	kindQ          paramKind = iota
	KindFilter               // one value of dimension dim, as given
	kindCodec                // the codec list
	kindInt                  // an optional whole number (0: absent)
	kindNear                 // near=LAT,LON
	kindRadius               // radius_km, written with near
	kindFacets               // the facet list
	kindFacetLimit           // written with facets
	kindPaging               // limit, offset: always written
	kindDistinct             // true or false, as given
	kindSort                 // one of SortNames; relevance (the default) is not written
)

// intField names a whole-number field of searchParams.
type intField uint8

const (
	fieldBitrateMin intField = iota
	fieldBitrateMax
	fieldLimit
	fieldOffset
)

// ParamGroup is where a parameter is listed in the well-known file.
type ParamGroup int

const (
	GroupFilter ParamGroup = iota
	GroupPaging
	GroupFacets
	GroupGrouping
	GroupOrder
)

// FormField is a parameter's field in the search form.
type FormField struct {
	Label, Type, Placeholder string
	Size                     int
	Options                  []string // for a select: "" (any) then these
	// OptionText, when set, is what each option shows (else its value).
	OptionText []string
	// Unset is what a select's "" option shows when not "any": what the
	// page does when the parameter is not given.
	Unset string
}

// SearchParamTable is every search parameter, in canonical order: the
// order of next, facet and suggestion links and of ETags. A row's index
// is its bit in a paramSet. After q come the dimensions' parameters, one
// for each row of the dimension table (dimParam), then the rest.
var SearchParamTable = searchParamTable()

// numSearchParams is the number of search parameters.
const numSearchParams = len(leadingParams) + int(query.NumDims) + len(trailingParams)

func searchParamTable() (t [numSearchParams]param) {
	n := copy(t[:], leadingParams[:])
	for d := range query.NumDims {
		t[n] = dimParam(d)
		n++
	}
	copy(t[n:], trailingParams[:])
	return t
}

// dimParam is the parameter of dimension d, read from its row: the kind
// and check of its value, and its words and form field as the row says.
func dimParam(d query.Dim) param {
	row := &dim.Rows[d].Param
	p := param{Name: d.Name(), dim: d, Kind: KindFilter, Spec: CapLimit{Accepts: row.Accepts}, Form: FormField{
		Label: row.Form.Label, Type: row.Form.Type, Placeholder: row.Form.Placeholder, Size: row.Form.Size,
		Options: row.Form.Options, OptionText: row.Form.OptionText,
	}}
	switch row.Value {
	case dim.Code:
		p.Check, p.Spec.Type, p.Spec.Pattern = countryCode, "string", row.Pattern
	case dim.Text:
		p.Check, p.Spec.Type, p.Spec.MaxLength = folded(p.Name), "string", core.MaxFacetRunes
	case dim.List: // the one list, of codecs (codecList)
		p.Kind, p.Spec.Type, p.Spec.Items = kindCodec, "array", row.Items
	case dim.Boolean:
		p.Check, p.Spec.Type = boolean(p.Name), "boolean"
	}
	return p
}

// leadingParams come before the dimensions' parameters, trailingParams
// after them.
var leadingParams = [...]param{
	{Name: "q", Kind: kindQ, Spec: CapLimit{Type: "string", MaxLength: core.MaxQRunes,
		Accepts: "words; each must match a token of name, country, location, language or genre, whole or as a prefix"},
		Form: FormField{Label: "Words", Type: "search"}},
}

var trailingParams = [...]param{
	{Name: "bitrate_min", Kind: kindInt, field: fieldBitrateMin, note: "kbps", Spec: CapLimit{Type: "integer", Minimum: nump(1),
		Maximum: MaxBitrate, Accepts: "kbps; stations of unknown bitrate never match; at most bitrate_max"},
		Form: FormField{Label: "Bitrate from (kbps)", Type: "number", Placeholder: "128"}},
	{Name: "bitrate_max", Kind: kindInt, field: fieldBitrateMax, note: "kbps", Spec: CapLimit{Type: "integer", Minimum: nump(1),
		Maximum: MaxBitrate, Accepts: "kbps; stations of unknown bitrate never match; at least bitrate_min"},
		Form: FormField{Label: "Bitrate to (kbps)", Type: "number", Placeholder: "320"}},
	{Name: "near", Kind: kindNear, Spec: CapLimit{Type: "string", Pattern: capNearPattern, MaxLength: 41,
		Accepts: "LAT,LON in decimal degrees (-90..90, -180..180); stations within radius_km along the great circle; stations without coordinates never match"},
		Form: FormField{Label: "Near (lat,lon)", Type: "text", Placeholder: "52.52,13.405"}},
	{Name: "radius_km", Kind: kindRadius, Spec: CapLimit{Type: "number", Minimum: nump(MinRadiusKm), Maximum: MaxRadiusKm,
		Default: nump(DefaultRadiusKm), Requires: "near", Accepts: "kilometres, decimals allowed"},
		Form: FormField{Label: "Radius (km)", Type: "number", Placeholder: "50"}},
	{Name: "facets", Group: GroupFacets, Kind: kindFacets, Spec: CapLimit{Type: "array", Items: FacetNames(),
		Accepts: "comma-separated (or facets repeated), each at most once"}},
	{Name: "facet_limit", Group: GroupFacets, Kind: kindFacetLimit, note: "default 10", Spec: CapLimit{Type: "integer", Minimum: nump(1),
		Maximum: query.MaxFacetLimit, Default: nump(query.DefaultFacetLimit), Requires: "facets",
		Accepts: "values per facet, most stations first, ties by value"}},
	{Name: "distinct", Group: GroupGrouping, Kind: kindDistinct, Check: boolean("distinct"), Spec: CapLimit{Type: "boolean",
		Accepts: "true: one result per group of entries (one stream submitted again, or one station's streams), its best-ranked entry at that entry's place; total and facets then count groups. Default false in the API, true on the search page"},
		Form: FormField{Label: "Entries", Type: "select", Options: []string{"false"}, OptionText: []string{"every entry"}, Unset: "each station once"}},
	{Name: "sort", Group: GroupOrder, Kind: kindSort, Spec: CapLimit{Type: "string", Items: SortNames[:],
		Accepts: "the order of the results: relevance (the default: exact name, then name matches, then the other matches, each alphabetically), " +
			"name (alphabetically), popular (the upstream directory's votes, then its clicks, as of the snapshot; most first), " +
			"distance (nearest first, only with near; each result says its distance_km) or bitrate (highest first, unknown last); ties go alphabetically"}},
	{Name: "limit", Group: GroupPaging, Kind: kindPaging, field: fieldLimit, note: "default 20", Spec: CapLimit{Type: "integer",
		Minimum: nump(core.MinLimit), Maximum: core.MaxLimit, Default: nump(core.DefaultLimit), Accepts: "results per page"}},
	{Name: "offset", Group: GroupPaging, Kind: kindPaging, field: fieldOffset, note: "default 0; results past 5000 cannot be reached",
		Spec: CapLimit{Type: "integer", Minimum: nump(0), Maximum: core.MaxOffset, Default: nump(0), Accepts: "zero-based offset; follow next"}},
}

// isList: a comma-separated list, which may also be given as the
// parameter repeated (x=a&x=b is x=a,b).
func (row *param) isList() bool { return row.Kind == kindCodec || row.Kind == kindFacets }

// number is the whole-number field f of p.
func (p *SearchParams) number(f intField) *int {
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
func (row *param) parse(p *SearchParams, value string) (err error) {
	switch row.Kind {
	case kindQ:
		p.Q, err = text(row.Name, value, core.MaxQRunes, true)
	case KindFilter:
		if value, err = row.Check(value); err == nil {
			p.Filter[row.dim] = []string{value}
		}
	case kindCodec:
		p.Filter[row.dim], err = codecList(value)
	case kindInt, kindPaging, kindFacetLimit:
		n, err := Integer(row.Name, value, int(*row.Spec.Minimum), int(row.Spec.Maximum), row.note)
		if row.Kind == kindFacetLimit {
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
		p.Distinct, err = row.Check(value)
	case kindSort:
		p.Sort, err = sortValue(value)
	}
	return err
}

// appendValue appends row's value in p to b as a canonical query writes
// it, escaped; ok is false when the parameter is absent (b unchanged).
// Numbers are appended as digits: a string made of them would be an
// allocation per parameter per link.
func (row *param) appendValue(b []byte, p *SearchParams) (_ []byte, ok bool) {
	switch row.Kind {
	case kindQ:
		return AppendQueryEscape(b, p.Q), p.Q != ""
	case KindFilter:
		v := p.One(row.dim)
		return AppendQueryEscape(b, v), v != ""
	case kindCodec:
		for i, c := range p.Filter[row.dim] {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendQueryEscape(b, c)
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
	case kindSort:
		return append(b, p.Sort...), p.Sort != ""
	}
	return b, false
}

// folded checks a filter matched after folding: 1 to maxFacetRunes
// characters.
func folded(name string) func(string) (string, error) {
	return func(v string) (string, error) { return text(name, v, core.MaxFacetRunes, false) }
}

// boolean accepts exactly true or false.
func boolean(name string) func(string) (string, error) {
	return func(v string) (string, error) {
		if v != "true" && v != "false" {
			return "", core.Errorf(core.CodeInvalidParameter, "%s must be true or false; got %s", name, core.QuoteClip(v))
		}
		return v, nil
	}
}

// ParamIndex is the row of a parameter name, -1 for any other name.
func ParamIndex(name string) int {
	for i := range SearchParamTable {
		if SearchParamTable[i].Name == name {
			return i
		}
	}
	return -1
}

// AllowedParams lists the parameter names for the unknown_parameter
// message.
var AllowedParams = func() string {
	names := make([]string, len(SearchParamTable))
	for i := range SearchParamTable {
		names[i] = SearchParamTable[i].Name
	}
	return strings.Join(names, ", ")
}()

// FacetNames are the dimensions a search may count, in canonical order.
func FacetNames() []string {
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

// CapLimit is one parameter's rule. Numbers are float64 because
// radius_km takes decimals; whole numbers still encode without a point.
// Items are what a comma-separated list may hold; Requires names the
// parameter without which this one is refused.
type CapLimit struct {
	Type      string   `json:"type"`
	MaxLength int      `json:"max_length,omitempty"`
	Pattern   string   `json:"pattern,omitempty"`
	Items     []string `json:"items,omitempty"`
	Minimum   *float64 `json:"minimum,omitempty"`
	Maximum   float64  `json:"maximum,omitempty"`
	Default   *float64 `json:"default,omitempty"`
	Requires  string   `json:"requires,omitempty"`
	Accepts   string   `json:"accepts"`
}

func nump(n float64) *float64 { return &n }

// Limits says l's bounds, default and dependency in words, for people.
func (l CapLimit) Limits() string {
	var parts []string
	if l.MaxLength > 0 {
		parts = append(parts, "at most "+strconv.Itoa(l.MaxLength)+" characters")
	}
	if l.Minimum != nil {
		parts = append(parts, formatDecimal(*l.Minimum)+" to "+formatDecimal(l.Maximum))
	}
	if l.Default != nil {
		parts = append(parts, "default "+formatDecimal(*l.Default))
	}
	if len(l.Items) > 0 {
		parts = append(parts, "of "+strings.Join(l.Items, ", "))
	}
	if l.Requires != "" {
		parts = append(parts, "only with "+l.Requires)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// capNearPattern is the shape of near: two decimals separated by a comma.
const capNearPattern = `^-?[0-9]+(\.[0-9]+)?,-?[0-9]+(\.[0-9]+)?$`

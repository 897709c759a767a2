package server

import (
	"slices"
	"strconv"
	"strings"

	"stationdex/indexer/format"
	"stationdex/query"
)

// Limits of the discovery parameters.
const (
	maxBitrate      = 10000 // kbps, as the indexer keeps them
	minRadiusKm     = 0.1
	maxRadiusKm     = 20000
	defaultRadiusKm = 50
	maxListItems    = 16 // items in a comma-separated list
)

// facetNames are the facets a search may ask for, in canonical order.
var facetNames = [...]string{"country", "language", "genre"}

// discovery holds the search parameters beyond the specification's:
// facets, the codec, bitrate and distance filters.
type discovery struct {
	Codecs                 []string // canonical, in format.Codecs order
	BitrateMin, BitrateMax int      // 0: none
	Near                   *point
	RadiusKm               float64 // set with Near
	Facets                 query.DimSet
	FacetLimit             int // 0: facets not asked for
}

// point is a position in degrees.
type point struct{ Lat, Lon float64 }

func (d *discovery) set(name, value string) (err error) {
	switch name {
	case "codec":
		d.Codecs, err = codecList(value)
	case "bitrate_min":
		d.BitrateMin, err = integer(name, value, 1, maxBitrate, "kbps")
	case "bitrate_max":
		d.BitrateMax, err = integer(name, value, 1, maxBitrate, "kbps")
	case "near":
		d.Near, err = position(value)
	case "radius_km":
		d.RadiusKm, err = radius(value)
	case "facets":
		d.Facets, err = facetList(value)
	case "facet_limit":
		d.FacetLimit, err = integer(name, value, 1, query.MaxFacetLimit, "default 10")
	}
	return err
}

// check applies the rules between parameters, once all are read, and the
// defaults that depend on them.
func (d *discovery) check(seen paramSet) error {
	switch {
	case seen.has("radius_km") && d.Near == nil:
		return errorf(CodeInvalidParameter, "radius_km needs near=LAT,LON; give both or neither")
	case seen.has("facet_limit") && !d.Facets.Any():
		return errorf(CodeInvalidParameter, "facet_limit needs facets, such as facets=country,genre")
	case d.BitrateMin > 0 && d.BitrateMax > 0 && d.BitrateMin > d.BitrateMax:
		return errorf(CodeInvalidParameter, "bitrate_min %d is above bitrate_max %d; swap them", d.BitrateMin, d.BitrateMax)
	}
	if d.Near != nil && d.RadiusKm == 0 {
		d.RadiusKm = defaultRadiusKm
	}
	if d.Facets.Any() && d.FacetLimit == 0 {
		d.FacetLimit = query.DefaultFacetLimit
	}
	return nil
}

// splitList splits a comma-separated value; an empty item or more than
// maxListItems is an error.
func splitList(name, value string) ([]string, error) {
	items := strings.Split(value, ",")
	if len(items) > maxListItems {
		return nil, errorf(CodeInvalidParameter, "%s lists %d items; at most %d", name, len(items), maxListItems)
	}
	for _, it := range items {
		if it == "" {
			return nil, errorf(CodeInvalidParameter, "%s has an empty item; separate values by single commas, such as %s", name, listExample(name))
		}
	}
	return items, nil
}

func listExample(name string) string {
	if name == "codec" {
		return "codec=mp3,aac"
	}
	return "facets=country,genre"
}

// codecList accepts codecs in any case, each once, and returns them in
// the canonical order so that one filter has one spelling.
func codecList(value string) ([]string, error) {
	items, err := splitList("codec", value)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, it := range items {
		c, ok := format.CodecOf(it)
		if !ok {
			hint := ""
			if strings.EqualFold(strings.TrimSpace(it), "aac") && it != strings.TrimSpace(it) {
				hint = " (in a URL '+' is a space: write AAC+ as AAC%2B)"
			}
			return nil, errorf(CodeInvalidParameter, "codec %s is not one of %s%s", quoteClip(it), strings.Join(format.Codecs, ", "), hint)
		}
		if want[c] {
			return nil, errorf(CodeInvalidParameter, "codec %s is listed twice; list each codec once", c)
		}
		want[c] = true
	}
	var out []string
	for _, c := range format.Codecs {
		if want[c] {
			out = append(out, c)
		}
	}
	return out, nil
}

// facetList accepts a non-empty subset of facetNames, each once. The
// i-th name is query.Dim(i).
func facetList(value string) (query.DimSet, error) {
	var f query.DimSet
	items, err := splitList("facets", value)
	if err != nil {
		return f, err
	}
	for _, it := range items {
		i := slices.Index(facetNames[:], it)
		if i < 0 {
			return 0, errorf(CodeInvalidParameter, "facet %s is not one of country, language, genre", quoteClip(it))
		}
		if f.Has(query.Dim(i)) {
			return 0, errorf(CodeInvalidParameter, "facet %s is listed twice; list each facet once", it)
		}
		f = f.With(query.Dim(i))
	}
	return f, nil
}

// position parses near=LAT,LON: two plain decimals (an optional minus,
// digits, an optional fraction), latitude -90..90, longitude -180..180.
func position(value string) (*point, error) {
	bad := errorf(CodeInvalidParameter, "near must be LAT,LON in decimal degrees, such as near=52.52,13.405 (latitude -90 to 90, longitude -180 to 180); got %s", quoteClip(value))
	latText, lonText, ok := strings.Cut(value, ",")
	if !ok {
		return nil, bad
	}
	lat, ok1 := decimal(latText)
	lon, ok2 := decimal(lonText)
	if !ok1 || !ok2 || lat < -90 || lat > 90 || lon < -180 || lon > 180 {
		return nil, bad
	}
	return &point{Lat: lat, Lon: lon}, nil
}

func radius(value string) (float64, error) {
	r, ok := decimal(value)
	if !ok || r < minRadiusKm || r > maxRadiusKm {
		return 0, errorf(CodeInvalidParameter, "radius_km must be a decimal from 0.1 to 20000 (default 50); got %s", quoteClip(value))
	}
	return r, nil
}

// decimal parses -?digits(.digits)?, at most 20 characters: no exponent,
// no '+', no spaces, no NaN or infinity, so every value reads one way.
func decimal(s string) (float64, bool) {
	body := strings.TrimPrefix(s, "-")
	whole, frac, hasFrac := strings.Cut(body, ".")
	if len(s) > 20 || whole == "" || !digits(whole) || hasFrac && (frac == "" || !digits(frac)) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

func digits(s string) bool { return strings.Trim(s, "0123456789") == "" }

// canonical adds the discovery parameters in their fixed order: after
// the specification's filters, before limit and offset.
func (d *discovery) canonical(add func(name, value string)) {
	if len(d.Codecs) > 0 {
		add("codec", strings.Join(d.Codecs, ","))
	}
	if d.BitrateMin > 0 {
		add("bitrate_min", strconv.Itoa(d.BitrateMin))
	}
	if d.BitrateMax > 0 {
		add("bitrate_max", strconv.Itoa(d.BitrateMax))
	}
	if d.Near != nil {
		add("near", formatDecimal(d.Near.Lat)+","+formatDecimal(d.Near.Lon))
		add("radius_km", formatDecimal(d.RadiusKm))
	}
	if d.Facets.Any() {
		var names []string
		for i, name := range facetNames {
			if d.Facets.Has(query.Dim(i)) {
				names = append(names, name)
			}
		}
		add("facets", strings.Join(names, ","))
		add("facet_limit", strconv.Itoa(d.FacetLimit))
	}
}

// facetCounts is f's lists in facetNames order.
func facetCounts(f query.Facets) [len(facetNames)][]query.FacetCount {
	return [...][]query.FacetCount{f[query.DimCountry], f[query.DimLanguage], f[query.DimGenre]}
}

// refined is the search a facet entry links to: this one, from its first
// page, with facet i (in facetNames order) set to v.
func (p searchParams) refined(i int, v string) searchParams {
	p.Offset = 0
	switch facetNames[i] {
	case "country":
		p.Country = v
	case "language":
		p.Language = v
	default:
		p.Genre = v
	}
	return p
}

// formatDecimal writes a parsed decimal back in its shortest form, which
// decimal reads as the same number.
func formatDecimal(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

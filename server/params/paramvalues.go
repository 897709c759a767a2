package params

import (
	"strconv"
	"strings"

	"stationdex/internal/format"
	"stationdex/query"
	"stationdex/server/core"
)

// Limits of the filter and facet parameters.
const (
	MaxBitrate      = 10000 // kbps, as the indexer keeps them
	MinRadiusKm     = 0.1
	MaxRadiusKm     = 20000
	DefaultRadiusKm = 50
	maxListItems    = 16 // items in a comma-separated list
)

// facetList accepts a non-empty subset of the facetable dimensions
// names, each once.
func facetList(value string) (query.DimSet, error) {
	var f query.DimSet
	items, err := splitList("facets", value)
	if err != nil {
		return f, err
	}
	for _, it := range items {
		d, ok := facetDim(it)
		if !ok {
			return 0, core.Errorf(core.CodeInvalidParameter, "facet %s is not one of %s", core.QuoteClip(it), strings.Join(FacetNames(), ", "))
		}
		if f.Has(d) {
			return 0, core.Errorf(core.CodeInvalidParameter, "facet %s is listed twice; list each facet once", it)
		}
		f = f.With(d)
	}
	return f, nil
}

// facetDim is the facetable dimension of a name.
func facetDim(name string) (query.Dim, bool) {
	for d := range query.NumDims {
		if d.Facetable() && d.Name() == name {
			return d, true
		}
	}
	return 0, false
}

// Refined is the search a facet entry links to: this one, from its first
// page, with the filter of d set to v.
func (p SearchParams) Refined(d query.Dim, v string) SearchParams {
	p.Offset = 0
	p.Filter[d] = []string{v}
	return p
}

// splitList splits a comma-separated value; an empty item or more than
// maxListItems is an error.
func splitList(name, value string) ([]string, error) {
	items := strings.Split(value, ",")
	if len(items) > maxListItems {
		return nil, core.Errorf(core.CodeInvalidParameter, "%s lists %d items; at most %d", name, len(items), maxListItems)
	}
	for _, it := range items {
		if it == "" {
			return nil, core.Errorf(core.CodeInvalidParameter, "%s has an empty item; separate values by single commas, such as %s", name, listExample(name))
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
			return nil, core.Errorf(core.CodeInvalidParameter, "codec %s is not one of %s%s", core.QuoteClip(it), strings.Join(format.Codecs, ", "), hint)
		}
		if want[c] {
			return nil, core.Errorf(core.CodeInvalidParameter, "codec %s is listed twice; list each codec once", c)
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

// position parses near=LAT,LON: two plain decimals (an optional minus,
// digits, an optional fraction), latitude -90..90, longitude -180..180.
func position(value string) (*Point, error) {
	bad := core.Errorf(core.CodeInvalidParameter, "near must be LAT,LON in decimal degrees, such as near=52.52,13.405 (latitude -90 to 90, longitude -180 to 180); got %s", core.QuoteClip(value))
	latText, lonText, ok := strings.Cut(value, ",")
	if !ok {
		return nil, bad
	}
	lat, ok1 := decimal(latText)
	lon, ok2 := decimal(lonText)
	if !ok1 || !ok2 || lat < -90 || lat > 90 || lon < -180 || lon > 180 {
		return nil, bad
	}
	return &Point{Lat: lat, Lon: lon}, nil
}

func radius(value string) (float64, error) {
	r, ok := decimal(value)
	if !ok || r < MinRadiusKm || r > MaxRadiusKm {
		return 0, core.Errorf(core.CodeInvalidParameter, "radius_km must be a decimal from 0.1 to 20000 (default 50); got %s", core.QuoteClip(value))
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

// formatDecimal writes a parsed decimal back in its shortest form, which
// decimal reads as the same number.
func formatDecimal(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// SortNames are the values of sort, the default first.
var SortNames = [...]string{"relevance", "name", "popular", SortDistance, "bitrate"}

// SortDistance is the sort that needs near.
const SortDistance = "distance"

// sortValue checks a sort: one of SortNames, kept as given but for
// relevance, the default, kept as "".
func sortValue(v string) (string, error) {
	for i, name := range SortNames {
		if v == name {
			if i == 0 {
				return "", nil
			}
			return v, nil
		}
	}
	return "", core.Errorf(core.CodeInvalidParameter, "sort must be one of %s; got %s", strings.Join(SortNames[:], ", "), core.QuoteClip(v))
}

package oracle

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strings"

	"stationdex/internal/fold"
	"stationdex/internal/format"
	"stationdex/internal/iso"
)

// greatCircleKm is the distance from a position in degrees to g, by the
// spherical law of cosines: another formula than the engine's, on the same
// sphere, so a wrong formula on either side shows.
func greatCircleKm(lat, lon float64, g format.Geo) float64 {
	const rad = math.Pi / 180
	lat2, lon2 := g.LatDeg(), g.LonDeg()
	c := math.Sin(lat*rad)*math.Sin(lat2*rad) + math.Cos(lat*rad)*math.Cos(lat2*rad)*math.Cos((lon2-lon)*rad)
	return format.EarthRadiusKm * math.Acos(max(-1, min(1, c)))
}

// Count is the number of stations q matches.
func (o *Oracle) Count(q Request) int { return len(o.Search(q)) }

// FacetCount is one facet value and its count.
type FacetCount struct {
	Value string
	Count int
}

// Facet names for Facets.
const (
	FacetCountry  = "country"
	FacetLanguage = "language"
	FacetGenre    = "genre"
	FacetLocation = "location"
	FacetCodec    = "codec"
)

// Facets counts, for every value of facet, the stations matching q with
// q's own filter of that dimension left out, and returns every value with
// a count, most first, ties by value. Genre values are genre keys (GenreKey),
// location values the facet keys of the labels; language values the ISO codes; country values
// alpha-2 codes; codec values the codec names; the values of a dimension
// read from a source flag (Request.Flags) "true" and "false".
func (o *Oracle) Facets(q Request, facet string) []FacetCount {
	return o.facets(q, facet, func(id format.UUID) format.UUID { return id })
}

// facets counts, for each value of facet, the distinct unit(id) of the
// stations matching q with that facet's filter left out: the stations
// themselves, or their groups.
func (o *Oracle) facets(q Request, facet string, unit func(format.UUID) format.UUID) []FacetCount {
	switch facet {
	case FacetCountry:
		q.Country = ""
	case FacetLanguage:
		q.Language = ""
	case FacetGenre:
		q.Genre = ""
	case FacetLocation:
		q.Location = ""
	case FacetCodec:
		q.Codecs = nil
	default:
		q.Flags = maps.Clone(q.Flags)
		delete(q.Flags, facet)
	}
	type met struct {
		value string
		unit  format.UUID
	}
	seen := map[met]bool{}
	counts := map[string]int{}
	for _, id := range o.Search(q) {
		s := o.byID(id)
		for _, v := range valuesOf(s, facet) {
			if k := (met{v, unit(id)}); !seen[k] {
				seen[k] = true
				counts[v]++
			}
		}
	}
	out := make([]FacetCount, 0, len(counts))
	for v, n := range counts {
		out = append(out, FacetCount{v, n})
	}
	slices.SortFunc(out, func(a, b FacetCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Value, b.Value))
	})
	return out
}

func valuesOf(s *oracleStation, facet string) []string {
	switch facet {
	case FacetCountry:
		if s.country == "" {
			return nil
		}
		return []string{s.country}
	case FacetLanguage:
		return uniq(s.codes)
	case FacetLocation:
		return nonEmpty(s.location)
	case FacetCodec:
		return nonEmpty(s.codec)
	case FacetGenre:
		return uniq(s.genres)
	}
	return nonEmpty(s.flag(facet))
}

func nonEmpty(v string) []string {
	if v == "" {
		return nil
	}
	return []string{v}
}

func uniq(l []string) []string {
	out := slices.Clone(l)
	slices.Sort(out)
	return slices.Compact(out)
}

func (o *Oracle) byID(id format.UUID) *oracleStation {
	return &o.stations[o.index[id]]
}

// LanguageName is the English name a language facet value is labelled with.
func LanguageName(code string) string { return iso.LanguageName(code) }

// Words is every distinct token of every searchable field, sorted: the
// dictionary suggestions may draw from.
func (o *Oracle) Words() []string {
	var out []string
	for i := range o.stations {
		out = append(out, o.stations[i].allTokens...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// EditDistance is the optimal-string-alignment distance between a and b
// in characters: insertions, deletions, substitutions and transpositions
// of two adjacent characters each count one.
func EditDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// Tokens is the query's words as the engine reads them.
func Tokens(q string) []string { return fold.Tokens(q) }

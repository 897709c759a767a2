// Package oracle answers station searches by a linear scan over cleaned
// records. It is written from the specification and the format document
// without any of the query engine's code (no bitmaps, no prefix buckets, no
// tiers as sets), so that tests of the engine and of the HTTP API can
// compare what they return with it. Only tests import it.
//
// File map:
//   - oracle.go: this comment; Oracle, its Request and Search: every
//     record scanned against the words and filters, in rank order
//   - facets.go: counts and facets of a search, the distance by another
//     formula than the engine's, and the dictionary's words and edit
//     distance for suggestions
//   - genres.go: genre keys and genre labels by the API guide's rule
//   - groups.go: groups of entries that are one stream or one station,
//     and the distinct search and its facets
//   - upstream.go: Upstream, the Radio Browser API's search over the
//     source records: its conditions, orders and pages
//   - sorts.go: the search's orders (name, popular, bitrate, distance)
//     and the source's votes and clicks they read
package oracle

import (
	"bytes"
	"cmp"
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"stationdex/indexer"
	"stationdex/internal/dim"
	"stationdex/internal/fold"
	"stationdex/internal/format"
	"stationdex/internal/iso"
)

// oracleStation is a record with its searchable text prepared.
type oracleStation struct {
	id              format.UUID
	nameKey, folded string
	nameTokens      []string
	allTokens       []string // name, country label, code and English name, location, languages, genres
	country         string
	languages       []string // facet keys of the labels
	codes           []string
	genres          []string // genre keys of the tags (GenreKey), none for a tag without one
	tags            []string // the tags as listed
	name            string
	stream          string // stream address as listed
	homepage        string // as listed
	location        string // facet key of the location
	https           string // "true", "false", or "" without a stream address
	flags           format.Flags
	codec           string
	bitrate         uint32
	geo             format.Geo
}

// Oracle holds the stations in presentation order.
type Oracle struct {
	stations []oracleStation // presentation order
	index    map[format.UUID]int
	grouping sync.Once
	group    map[format.UUID]format.UUID // see groupOf
}

// New prepares recs, the cleaned records of an index (indexer.ReadRecords).
func New(recs []format.Record) *Oracle {
	o := &Oracle{stations: make([]oracleStation, len(recs))}
	for i := range recs {
		o.stations[i] = prepare(&recs[i])
	}
	slices.SortFunc(o.stations, func(a, b oracleStation) int {
		return cmp.Or(strings.Compare(a.nameKey, b.nameKey), strings.Compare(a.folded, b.folded), bytes.Compare(a.id[:], b.id[:]))
	})
	o.index = make(map[format.UUID]int, len(o.stations))
	for i := range o.stations {
		o.index[o.stations[i].id] = i
	}
	return o
}

func prepare(r *format.Record) oracleStation {
	s := oracleStation{
		id: r.ID, nameKey: fold.Key(r.Name), folded: fold.String(r.Name),
		nameTokens: fold.Tokens(r.Name), country: r.CountryCode, codes: r.LanguageCodes,
		codec: r.Codec, bitrate: r.BitrateKbps, geo: r.Geo,
		name: r.Name, stream: r.StreamURL, homepage: r.OfficialURL,
	}
	fields := []string{r.Name, r.Country, r.CountryCode, iso.CountryName(r.CountryCode), r.Location}
	fields = append(append(fields, r.Languages...), r.Genres...)
	for _, f := range fields {
		s.allTokens = append(s.allTokens, fold.Tokens(f)...)
	}
	for _, l := range r.Languages {
		s.languages = append(s.languages, format.FacetKey(l))
	}
	for _, g := range r.Genres {
		if k := GenreKey(g); k != "" {
			s.genres = append(s.genres, k)
		}
	}
	s.tags = r.Genres
	s.flags = r.Flags
	s.location = format.FacetKey(r.Location)
	switch lower := strings.ToLower(r.StreamURL); {
	case strings.HasPrefix(lower, "https:"):
		s.https = "true"
	case strings.HasPrefix(lower, "http:"):
		s.https = "false"
	}
	return s
}

// Request is a search: the API's parameters other than paging.
type Request struct {
	Q, Country, Language, Genre string
	Location                    string // matched after folding, like Genre
	HTTPS                       string // "true" or "false"; "" for no filter
	// Flags filter on the dimensions read from a flag of the source
	// record (dim.Flags), by the dimension's name: "true" or "false".
	Flags                  map[string]string
	Codecs                 []string // canonical names; any of them
	BitrateMin, BitrateMax int      // 0: no bound
	Near                   *Near
}

// Near is a distance filter: a position in degrees and a radius in km.
type Near struct{ Lat, Lon, RadiusKm float64 }

// Search returns every matching id in rank order.
func (o *Oracle) Search(q Request) []format.UUID {
	words := fold.Tokens(q.Q)
	exact := strings.Join(words, " ")
	f := newFilter(q)
	var tiers [3][]format.UUID
	for i := range o.stations {
		s := &o.stations[i]
		if !f.passes(s) || !everyWordMatches(words, s.allTokens) {
			continue
		}
		switch {
		case len(words) == 0 || s.nameKey == exact:
			tiers[0] = append(tiers[0], s.id)
		case everyWordMatches(words, s.nameTokens):
			tiers[1] = append(tiers[1], s.id)
		default:
			tiers[2] = append(tiers[2], s.id)
		}
	}
	return slices.Concat(tiers[0], tiers[1], tiers[2])
}

func everyWordMatches(words, tokens []string) bool {
	for _, w := range words {
		if !anyHasPrefix(tokens, w) {
			return false
		}
	}
	return true
}

func anyHasPrefix(tokens []string, w string) bool {
	for _, t := range tokens {
		if strings.HasPrefix(t, w) {
			return true
		}
	}
	return false
}

// filter is a query's filters resolved once: country in upper case, facet
// keys, and the ISO code the language value names, if any.
type filter struct {
	country, language, code, genre string
	hasLanguage, hasCode, hasGenre bool
	location, https                string
	flags                          map[string]string
	hasLocation                    bool
	codecs                         []string
	bitrateMin, bitrateMax         int
	near                           *Near
}

func newFilter(q Request) filter {
	f := filter{country: strings.ToUpper(q.Country), hasLanguage: q.Language != "", hasGenre: q.Genre != "",
		codecs: q.Codecs, bitrateMin: q.BitrateMin, bitrateMax: q.BitrateMax, near: q.Near,
		hasLocation: q.Location != "", location: format.FacetKey(q.Location), https: q.HTTPS,
		flags: q.Flags}
	if f.hasGenre {
		f.genre = GenreKey(q.Genre)
	}
	if f.hasLanguage {
		f.language = format.FacetKey(q.Language)
		f.code, f.hasCode = iso.LanguageCode(q.Language)
	}
	return f
}

func (f filter) passes(s *oracleStation) bool {
	if f.country != "" && s.country != f.country {
		return false
	}
	if len(f.codecs) > 0 && !slices.Contains(f.codecs, s.codec) {
		return false
	}
	if f.bitrateMin > 0 && (s.bitrate == 0 || int(s.bitrate) < f.bitrateMin) ||
		f.bitrateMax > 0 && (s.bitrate == 0 || int(s.bitrate) > f.bitrateMax) {
		return false
	}
	if f.near != nil && (!s.geo.Known || greatCircleKm(f.near.Lat, f.near.Lon, s.geo) > f.near.RadiusKm) {
		return false
	}
	if f.hasGenre && (f.genre == "" || !slices.Contains(s.genres, f.genre)) {
		return false
	}
	if f.hasLocation && s.location != f.location || f.https != "" && s.https != f.https {
		return false
	}
	for name, want := range f.flags {
		if s.flag(name) != want {
			return false
		}
	}
	return !f.hasLanguage || slices.Contains(s.languages, f.language) || (f.hasCode && slices.Contains(s.codes, f.code))
}

// flag is "true" or "false": whether the station's source record sets
// the flag the dimension name is read from ("" when name is no such
// dimension).
func (s *oracleStation) flag(name string) string {
	d, ok := dim.ByName(name)
	if !ok || dim.Rows[d].Flag.Field == "" {
		return ""
	}
	return strconv.FormatBool(s.flags.Has(dim.Rows[d].Flag.Bit))
}

// ReadRecords reads the cleaned records of a dump file the way the indexer
// does, for building an oracle next to an index of the same file.
func ReadRecords(path string) ([]format.Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []format.Record
	_, err = indexer.ReadRecords(context.Background(), func(r *format.Record) error {
		recs = append(recs, *r)
		return nil
	}, indexer.Input{Name: path, R: f})
	return recs, err
}

// Package stationjson is the JSON shape of a station (the spec's Station)
// and the service's own URLs. It is pure: no HTTP, no index access. The
// JSON API (package server) and the data dumps written at index time
// (package indexer) both come from one encoding, AppendStored, made at
// index time with the base URL left as a mark and spliced in (Splice), so a
// station in /data/stations.ndjson is byte for byte the station of
// /api/stations/{id}.
//
// File map:
//   - stationjson.go: this comment; Station, the spec's shape of a
//     station, and New, which derives it from an index record
//   - encode.go: the encoder: AppendJSON byte for byte as encoding/json
//     writes a Station, and Splice, which puts a base URL in place of the
//     stored form's marks
//   - stored.go: the stored form, with the base URL as a mark
//     (AppendStored), written straight from a record
//   - urls.go: the service's own URLs: station pages, listening pages and
//     directory pages, with the path segments of facet labels cached
//   - dump.go: the data dumps: every station as a JSON array and as NDJSON,
//     gzip-compressed and hashed on goroutines of their own, and Rebase
//   - upstream.go: Upstream, a station as the upstream directory's
//     /json/stations sends it, for the Radio Browser API, and its stored
//     form
package stationjson

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"stationdex/internal/format"
)

// Station is the JSON form of a station, as in the spec. Required fields are
// never null and lists are never null (an empty list is []). Optional fields
// follow the spec's types: "string or null" fields are pointers, plain
// optional strings are omitted when empty.
type Station struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	PageURL       string   `json:"page_url"`
	ListenURL     string   `json:"listen_url"`
	Country       string   `json:"country"`
	CountryCode   string   `json:"country_code"`
	Location      string   `json:"location,omitempty"`
	Languages     []string `json:"languages"`
	Genres        []string `json:"genres"`
	BitrateKbps   *uint32  `json:"bitrate_kbps"` // null: unknown
	Codec         *string  `json:"codec"`        // null: unknown
	Geo           *Point   `json:"geo"`          // null: no position
	OfficialURL   *string  `json:"official_url"`
	CountryURL    string   `json:"country_url,omitempty"` // omitted: no country code
	LanguageCodes []string `json:"language_codes"`
	LanguageURLs  []string `json:"language_urls"`
	GenreURLs     []string `json:"genre_urls"`
	LocationURL   *string  `json:"location_url"`
	PageTitle     string   `json:"page_title"`
}

// New derives the JSON station from an index record; base is the public
// base URL without a trailing slash. Invalid UTF-8 in the record is left for
// encoding/json, which replaces it with U+FFFD.
func New(base string, r *format.Record) Station {
	return Station{
		ID:            r.ID.String(),
		Name:          r.Name,
		PageURL:       StationURL(base, r.ID),
		ListenURL:     ListenURL(base, r.ID),
		Country:       r.Country,
		CountryCode:   r.CountryCode,
		Location:      r.Location,
		Languages:     nonNil(r.Languages),
		Genres:        nonNil(r.Genres),
		BitrateKbps:   bitrate(r.BitrateKbps),
		Codec:         Nullable(r.Codec),
		Geo:           position(r.Geo),
		OfficialURL:   Nullable(r.OfficialURL),
		CountryURL:    optionalCountryURL(base, r.CountryCode),
		LanguageCodes: nonNil(r.LanguageCodes),
		LanguageURLs:  facetURLs(base, r.Languages, LanguageURL),
		GenreURLs:     facetURLs(base, r.Genres, GenreURL),
		LocationURL:   optionalLocationURL(base, r.Location),
		PageTitle:     PageTitle(r),
	}
}

// PageTitle is the title of a station's page: "{name} — {country} |
// stationdex", with "radio station" standing in for an unknown country, so
// that two stations of one name in two countries have distinct titles.
func PageTitle(r *format.Record) string {
	where := r.Country
	if where == "" {
		where = "radio station"
	}
	return r.Name + " — " + where + " | stationdex"
}

// Point is a position in degrees.
type Point struct {
	Lat float64 `json:"lat"`
	Lon float64 `json:"lon"`
}

func position(g format.Geo) *Point {
	if !g.Known {
		return nil
	}
	return &Point{Lat: g.LatDeg(), Lon: g.LonDeg()}
}

// AppendJSON appends p as encoding/json writes it.
func (p *Point) AppendJSON(dst []byte) []byte {
	dst = AppendFloat(append(dst, `{"lat":`...), p.Lat)
	dst = AppendFloat(append(dst, `,"lon":`...), p.Lon)
	return append(dst, '}')
}

// AppendFloat appends f as encoding/json writes a float64: the shortest
// decimal that reads back as f, in exponent form only for very small or
// very large magnitudes. Positions and radii are never NaN or infinite.
func AppendFloat(dst []byte, f float64) []byte {
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		b, _ := json.Marshal(f)
		return append(dst, b...)
	}
	return strconv.AppendFloat(dst, f, 'f', -1, 64)
}

func bitrate(kbps uint32) *uint32 {
	if kbps == 0 {
		return nil
	}
	v := kbps // as in Nullable
	return &v
}

// Nullable is nil for "", for the spec's "string or null" fields.
func Nullable(s string) *string {
	if s == "" {
		return nil
	}
	v := s // not &s: a returned parameter moves to the heap on entry, even for nil
	return &v
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

func optionalCountryURL(base, code string) string {
	if code == "" {
		return ""
	}
	return CountryURL(base, code)
}

func optionalLocationURL(base, place string) *string {
	if u, ok := LocationURL(base, place); ok {
		return &u
	}
	return nil
}

// facetURLs maps labels to their directory pages, skipping labels that fold
// to nothing (they have no page) and pages already listed, so the list may
// be shorter than labels.
func facetURLs(base string, labels []string, page func(base, label string) (string, bool)) []string {
	urls := make([]string, 0, len(labels))
	for _, l := range labels {
		// Two spellings of one genre ("hip hop", "hip-hop") share a page,
		// which is listed once.
		if u, ok := page(base, l); ok && !slices.Contains(urls, u) {
			urls = append(urls, u)
		}
	}
	return urls
}

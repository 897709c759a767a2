package stationjson

import (
	"net/url"
	"strings"

	"stationdex/indexer/format"
)

// The service's own URLs, in one place so the JSON API, the data dumps and
// the HTML pages always agree on them. base is the public base URL without a
// trailing slash. Every directory URL ends in '/', as the pages are
// directories.
//
// Facet values (language labels, genre tags, locations) are keyed by
// format.FacetKey, the same key the index files them under, so "Jazz" and
// "jazz" share one page, and path-escaped, so a tag with '/' or '?' stays one
// path segment.

// Directory kinds: the first path segment of a directory page.
const (
	KindCountries = "countries"
	KindLanguages = "languages"
	KindGenres    = "genres"
	KindLocations = "locations"
)

// StationURL is the canonical HTML page of a station.
func StationURL(base string, id format.UUID) string {
	return base + "/stations/" + id.String() + "/"
}

// ListenURL is the HTML listening page of a station (not a raw stream).
func ListenURL(base string, id format.UUID) string {
	return StationURL(base, id) + "listen/"
}

// CountryURL is the directory page of an ISO alpha-2 country code.
func CountryURL(base, code string) string {
	return base + "/" + KindCountries + "/" + url.PathEscape(strings.ToLower(code)) + "/"
}

// LanguageURL, GenreURL and LocationURL are the directory pages of a facet
// value; ok is false when the value folds to nothing and so has no page.
func LanguageURL(base, label string) (string, bool) { return FacetURL(base, KindLanguages, label) }
func GenreURL(base, tag string) (string, bool)      { return FacetURL(base, KindGenres, tag) }
func LocationURL(base, place string) (string, bool) { return FacetURL(base, KindLocations, place) }

// FacetURL is the directory page of value under kind (one of the Kind
// constants except KindCountries).
func FacetURL(base, kind, value string) (string, bool) {
	key := format.FacetKey(value)
	if !HasPage(key) {
		return "", false
	}
	return KeyURL(base, kind, key), true
}

// HasPage reports whether a facet key has a directory page. A key that
// folds to nothing has none, and neither have "." and "..": as a path
// segment they mean "this" and "parent" directory, even percent-encoded
// once decoded, so the server refuses such paths outright.
func HasPage(key string) bool {
	return key != "" && key != "." && key != ".."
}

// KeyURL is the directory page of a facet value already in key form (a
// key of the index's facet buckets for which HasPage holds).
func KeyURL(base, kind, key string) string {
	return base + "/" + kind + "/" + PathSegment(key) + "/"
}

// PathSegment escapes s as one path segment ('/' and '?' included, so a
// tag "rock/pop" stays one segment). Keys without a page ("." and "..")
// never get here.
func PathSegment(s string) string { return url.PathEscape(s) }

package server

import (
	"net/url"
	"strings"

	"stationdex/indexer/format"
)

// The service's own URLs, in one place so the JSON API and the HTML pages
// always agree on them. base is the public base URL without a trailing
// slash. Every directory URL ends in '/', as the pages are directories.
//
// Facet values (language labels, genre tags, locations) are keyed by
// format.FacetKey, the same key the index files them under, so "Jazz" and
// "jazz" share one page, and path-escaped, so a tag with '/' or '?' stays one
// path segment.

// stationURL is the canonical HTML page of a station.
func stationURL(base string, id format.UUID) string {
	return base + "/stations/" + id.String() + "/"
}

// listenURL is the HTML listening page of a station (not a raw stream).
func listenURL(base string, id format.UUID) string {
	return stationURL(base, id) + "listen/"
}

// countryURL is the directory page of an ISO alpha-2 country code.
func countryURL(base, code string) string {
	return base + "/countries/" + url.PathEscape(strings.ToLower(code)) + "/"
}

// languageURL, genreURL and locationURL are the directory pages of a facet
// value; ok is false when the value folds to nothing and so has no page.
func languageURL(base, label string) (string, bool) { return facetURL(base, "languages", label) }
func genreURL(base, tag string) (string, bool)      { return facetURL(base, "genres", tag) }
func locationURL(base, place string) (string, bool) { return facetURL(base, "locations", place) }

func facetURL(base, kind, value string) (string, bool) {
	key := format.FacetKey(value)
	if key == "" {
		return "", false
	}
	return base + "/" + kind + "/" + pathSegment(key) + "/", true
}

// pathSegment escapes s as one path segment. url.PathEscape leaves "." and
// ".." alone, which a client would resolve as "this" or "parent" directory.
func pathSegment(s string) string {
	switch s {
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	return url.PathEscape(s)
}

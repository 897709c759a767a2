package stationjson

import (
	"net/url"
	"strings"
	"sync"

	"stationdex/internal/format"
)

// The service's own URLs, in one place so the JSON API, the data dumps and
// the HTML pages always agree on them. base is the public base URL without a
// trailing slash. Every directory URL ends in '/', as the pages are
// directories.
//
// Facet values are keyed as the index files them: language labels and
// locations by format.FacetKey, so "Jazz" and "jazz" share one page, genre
// tags by format.GenreKey, so "Hip Hop" and "hip-hop" do; and
// path-escaped, so a tag with '/' or '?' stays one path segment.

// Directory kinds: the first path segment of a directory page.
const (
	KindCountries = "countries"
	KindLanguages = "languages"
	KindGenres    = "genres"
	KindLocations = "locations"
)

// StationURL is the canonical HTML page of a station.
func StationURL(base string, id format.UUID) string {
	return StationFileURL(base, id, "")
}

// ListenURL is the HTML listening page of a station (not a raw stream).
func ListenURL(base string, id format.UUID) string {
	return StationFileURL(base, id, "listen/")
}

// StationFileURL is the address name under a station's page (a
// playlist, the listening page), or the page itself for "". It is built
// in one allocation: a directory page links dozens of stations, and a
// station page several addresses under its own.
func StationFileURL(base string, id format.UUID, name string) string {
	const dir = "/stations/"
	var b strings.Builder
	b.Grow(len(base) + len(dir) + 36 + 1 + len(name))
	b.WriteString(base)
	b.WriteString(dir)
	var text [36]byte
	b.Write(id.Append(text[:0]))
	b.WriteByte('/')
	b.WriteString(name)
	return b.String()
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
	seg, ok := facetSegments[kind].get(value)
	if !ok {
		return "", false
	}
	return base + "/" + kind + "/" + seg + "/", true
}

// AppendFacetURL appends FacetURL(base, kind, value) to dst, when ok:
// a page linking several values writes their addresses into one buffer.
func AppendFacetURL(dst []byte, base, kind, value string) (_ []byte, ok bool) {
	seg, ok := facetSegments[kind].get(value)
	if !ok {
		return dst, false
	}
	dst = append(append(append(append(dst, base...), '/'), kind...), '/')
	return append(append(dst, seg...), '/'), true
}

// facetSegments caches, per kind, the path segment of facet labels. Every
// station of every response names its languages and genres, and folding a
// label that is not plain ASCII runs the x/text chain each time; the
// labels come from the index, so the same few thousand recur. A cache
// stops growing at maxCachedSegments entries (a few MB at most), after
// which labels are folded each time as before.
var facetSegments = map[string]*segmentCache{
	KindLanguages: newSegmentCache(format.FacetKey),
	KindGenres:    newSegmentCache(format.GenreKey),
	KindLocations: newSegmentCache(format.FacetKey),
}

func newSegmentCache(keyOf func(string) string) *segmentCache {
	return &segmentCache{keyOf: keyOf, m: make(map[string]segment)}
}

const maxCachedSegments = 1 << 16

type segment struct {
	seg string
	ok  bool
}

type segmentCache struct {
	keyOf func(label string) string // the key the index files a label under
	mu    sync.RWMutex
	m     map[string]segment
}

// get is the path segment of label's directory page; ok is false when it
// has no page.
func (c *segmentCache) get(label string) (string, bool) {
	c.mu.RLock()
	s, hit := c.m[label]
	c.mu.RUnlock()
	if hit {
		return s.seg, s.ok
	}
	key := c.keyOf(label)
	if s.ok = HasPage(key); s.ok {
		s.seg = PathSegment(key)
	}
	c.mu.Lock()
	if len(c.m) < maxCachedSegments {
		c.m[strings.Clone(label)] = s
	}
	c.mu.Unlock()
	return s.seg, s.ok
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

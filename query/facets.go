package query

import (
	"unicode/utf8"

	"stationdex/indexer/format"
)

// FacetSet says which facets a search counts.
type FacetSet struct{ Country, Language, Genre bool }

// Any reports whether a facet is asked for.
func (f FacetSet) Any() bool { return f.Country || f.Language || f.Genre }

// Facet limits: the values of each facet a search returns.
const (
	DefaultFacetLimit = 10
	MaxFacetLimit     = 50
)

// Facets are the value counts of one search, for the facets asked for
// (nil lists for the others).
type Facets struct {
	Country, Language, Genre []FacetCount
}

// FacetCount is one value of a facet: the value its filter takes (an
// alpha-2 code, an ISO 639 code, a folded genre tag), a label for people,
// and the number of matching stations that have it.
//
// A facet counts the stations matching the whole search. For a dimension
// the search itself filters on, that filter is left out of the count: the
// value counts as if it replaced the search's own value, which is what a
// link setting that filter returns. So the filtered value is still listed
// (with the search's total) and so are its alternatives.
type FacetCount struct {
	Value, Label string
	Count        int
}

// facetDims are the search facets: their dimension and bucket.
var facetDims = [...]struct {
	dim    dimension
	bucket []byte
}{
	{dimCountry, format.BucketCountries},
	{dimLanguage, format.BucketLangCodes},
	{dimGenre, format.BucketGenres},
}

// MaxFilterRunes is the longest language or genre filter value, in
// characters.
const MaxFilterRunes = 60

// Filterable reports whether a facet key can be given back as a filter
// value that selects exactly its stations.
func Filterable(key string) bool {
	return key != "" && utf8.RuneCountInString(key) <= MaxFilterRunes && format.FacetKey(key) == key
}

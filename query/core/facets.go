package core

// Facet limits: the values of each facet a search returns.
const (
	DefaultFacetLimit = 10
	MaxFacetLimit     = 50
)

// Facets are the value counts of one search, by dimension, for the
// facets asked for (nil lists for the others).
type Facets [NumDims][]FacetCount

// FacetCount is one value of a facet: the value its filter takes (an
// alpha-2 code, an ISO 639 code, a folded genre tag or location, a codec),
// a label for people, and the number of matching stations that have it.
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

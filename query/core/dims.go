package core

import (
	"stationdex/internal/dim"
	"stationdex/internal/format"
)

// The engine's dimensions are the rows of the one dimension table
// (package dim), which the indexer files by and the server's parameters,
// echoes and pages read: whatever filters, counts or lists by dimension
// reads the row, so a new dimension is a new row there.
type (
	// Dim is a dimension stations are filtered on, counted by (a search's
	// facets) or listed by (the directory).
	Dim = dim.Dim
	// DimSet is a set of dimensions, one bit each.
	DimSet = dim.Set
)

// The dimensions, in the order filters are applied and facets listed.
const (
	DimCountry  = dim.Country
	DimLanguage = dim.Language
	DimGenre    = dim.Genre
	DimLocation = dim.Location
	DimCodec    = dim.Codec
	DimHTTPS    = dim.HTTPS
	// NumDims is the number of dimensions.
	NumDims = dim.Count
)

// NoDim stands for "no dimension": the filter of a word, a bitrate range
// or a distance, which no facet leaves out.
const NoDim = NumDims

// Dims is the dimension table.
var Dims = &dim.Rows

// Filters are, per dimension, the values a station must have one of; a
// dimension without values does not filter. Countries are ISO alpha-2
// codes in any case; languages a source label or anything iso.LanguageCode
// resolves; locations a label, matched after folding; genres a tag,
// matched by format.GenreKey (any spelling of the genre); codecs
// format.Codecs in any case; https "true" (the stream address is HTTPS)
// or "false" (it is plain HTTP; a station without one has neither).
type Filters [NumDims][]string

// Filtered is the set of dimensions f filters on.
func (f *Filters) Filtered() DimSet {
	var ds DimSet
	for d := range NumDims {
		if len(f[d]) > 0 {
			ds = ds.With(d)
		}
	}
	return ds
}

// FacetName names key of d's facet bucket for people when the row can
// without reading a station; ok is false when the key must be spelled as
// a station spells it (Spelling).
func FacetName(d Dim, key string) (label string, ok bool) { return dim.FacetName(d, key) }

// Spelling is the label of r that folds to key, or key itself.
func Spelling(d Dim, r *format.Record, key string) string { return dim.Spelling(d, r, key) }

// MaxFilterRunes is the longest language, genre or location filter value,
// in characters (the indexer's facet memo needs the same bound).
const MaxFilterRunes = format.MaxFilterRunes

// Filterable reports whether a key of d's folded bucket can be given back
// as a filter value that selects exactly its stations.
func Filterable(d Dim, key string) bool { return dim.Filterable(d, key) }

// ListingKey is the key of d's directory bucket that a label of d is filed
// under: the folded label for a folded row, else the value as it is.
func ListingKey(d Dim, label string) string { return dim.ListingKey(d, label) }

// DimsOf is the set of ds.
func DimsOf(ds ...Dim) DimSet { return dim.Of(ds...) }

package core

import (
	"cmp"
	"fmt"
	"math/bits"

	"stationdex/internal/format"
	"stationdex/internal/iso"
)

// Dim is a dimension stations are filtered on, counted by (a search's
// facets) or listed by (the directory). Each is one row of dims: whatever
// filters, counts or lists by dimension reads the row, so a new dimension
// is a new row and the buckets the indexer files it under.
type Dim uint8

// The dimensions, in the order filters are applied and facets listed.
const (
	DimCountry Dim = iota
	DimLanguage
	DimGenre
	DimLocation
	DimCodec
	DimHTTPS
	// NumDims is the number of dimensions.
	NumDims
)

// noDim stands for "no dimension": the filter of a word, a bitrate range
// or a distance, which no facet leaves out.
const NoDim = NumDims

// dimRow is what the engine knows of one dimension.
type dimRow struct {
	name string
	// key appends the key of a filter value to dst and names the bucket
	// it is looked up in; buckets lists every bucket key may name, the
	// first being the one a facet counts.
	key     func(dst []byte, value string) (bucket, key []byte)
	Buckets [][]byte
	// directory is the bucket the directory lists (nil: no directory).
	Directory []byte
	// facet: searches may count the dimension (format.FacetMemoFacets
	// says which of them the facet memo holds).
	Facet bool
	// folded is the function a folded row keys its labels by
	// (format.FacetKey, for genres format.GenreKey; nil: keys are not
	// folded labels): a key it does not give back unchanged (Filterable)
	// cannot be given back as a filter value.
	Folded func(label string) string
	// labels is the bucket holding a label for each key (nil: a key is
	// named or spelled as below).
	Labels []byte
	// named names a key of the facet bucket for people (nil: use
	// spelled); spelled lists the labels of a record that a key of a
	// folded bucket folds from, so that a key is shown as a station
	// spells it.
	named   func(key string) string
	Spelled func(r *format.Record) []string
}

var Dims = [NumDims]dimRow{
	DimCountry: {
		name: "country", key: countryKey, Buckets: [][]byte{format.BucketCountries},
		Directory: format.BucketCountries, Facet: true, named: iso.CountryName,
	},
	DimLanguage: {
		name: "language", key: languageKey, Buckets: [][]byte{format.BucketLangCodes, format.BucketLangLabels},
		Directory: format.BucketLangLabels, Facet: true, named: iso.LanguageName, Folded: format.FacetKey,
		Spelled: func(r *format.Record) []string { return r.Languages },
	},
	DimGenre: {
		name: "genre", key: foldedKey(format.BucketGenres, format.GenreKey), Buckets: [][]byte{format.BucketGenres},
		Directory: format.BucketGenres, Facet: true, Folded: format.GenreKey,
		Labels:  format.BucketGenreLabels,
		Spelled: func(r *format.Record) []string { return r.Genres },
	},
	DimLocation: {
		name: "location", key: foldedKey(format.BucketLocations, format.FacetKey), Buckets: [][]byte{format.BucketLocations},
		Directory: format.BucketLocations, Facet: true, Folded: format.FacetKey,
		Spelled: func(r *format.Record) []string { return []string{r.Location} },
	},
	DimCodec: {
		name: "codec", key: codecKey, Buckets: [][]byte{format.BucketCodecs},
		Facet: true, named: func(key string) string { return key },
	},
	DimHTTPS: {
		name: "https", key: schemeKey, Buckets: [][]byte{format.BucketSchemes},
	},
}

// Name is the dimension's name in the API: its parameter and facet name.
func (d Dim) Name() string {
	if d >= NumDims {
		return fmt.Sprintf("Dim(%d)", int(d))
	}
	return Dims[d].name
}

// Facetable reports whether searches can count d.
func (d Dim) Facetable() bool { return d < NumDims && Dims[d].Facet }

// HasDirectory reports whether the directory lists d's values.
func (d Dim) HasDirectory() bool { return d < NumDims && Dims[d].Directory != nil }

// DimSet is a set of dimensions, one bit each.
type DimSet uint16

// Has reports whether d is in ds.
func (ds DimSet) Has(d Dim) bool { return ds&(1<<d) != 0 }

// With is ds and d.
func (ds DimSet) With(d Dim) DimSet { return ds | 1<<d }

// Any reports whether ds has a dimension.
func (ds DimSet) Any() bool { return ds != 0 }

// Len is the number of dimensions in ds.
func (ds DimSet) Len() int { return bits.OnesCount16(uint16(ds)) }

// Filters are, per dimension, the values a station must have one of; a
// dimension without values does not filter. Countries are ISO alpha-2
// codes in any case; languages a source label or anything iso.LanguageCode
// resolves; locations a label, matched after folding; genres a tag,
// matched by format.GenreKey (any spelling of the genre); codecs
// format.Codecs in any case; https "true" (the stream address is HTTPS)
// or "false" (it is plain HTTP; a station without one has neither).
type Filters [NumDims][]string

// filtered is the set of dimensions f filters on.
func (f *Filters) Filtered() DimSet {
	var ds DimSet
	for d := range NumDims {
		if len(f[d]) > 0 {
			ds = ds.With(d)
		}
	}
	return ds
}

// countryKey is the code in upper case, as countries are filed; only
// ASCII letters can match.
func countryKey(dst []byte, code string) (bucket, key []byte) {
	start := len(dst)
	dst = append(dst, code...)
	for i, c := range dst[start:] {
		if 'a' <= c && c <= 'z' {
			dst[start+i] = c - 'a' + 'A'
		}
	}
	return format.BucketCountries, dst
}

// languageKey accepts an exact source label or anything iso.LanguageCode
// resolves (codes of every ISO 639 part, English and native names). When
// v resolves to a code, its label's stations are already filed under that
// code (the indexer files every label under the code it resolves to), so
// the code's list alone is the union of both.
func languageKey(dst []byte, v string) (bucket, key []byte) {
	if code, ok := iso.LanguageCode(v); ok {
		return format.BucketLangCodes, append(dst, code...)
	}
	return format.BucketLangLabels, append(dst, format.FacetKey(v)...)
}

// foldedKey looks a value up under its key by keyOf in bucket.
func foldedKey(bucket []byte, keyOf func(string) string) func(dst []byte, v string) ([]byte, []byte) {
	return func(dst []byte, v string) ([]byte, []byte) {
		return bucket, append(dst, keyOf(v)...)
	}
}

// codecKey is the canonical codec name; anything else matches nothing.
func codecKey(dst []byte, v string) (bucket, key []byte) {
	c, _ := format.CodecOf(v)
	return format.BucketCodecs, append(dst, c...)
}

// schemeKey is the scheme a stream address must have: https for "true",
// http for "false"; anything else matches nothing.
func schemeKey(dst []byte, v string) (bucket, key []byte) {
	switch v {
	case "true":
		dst = append(dst, format.SchemeHTTPS...)
	case "false":
		dst = append(dst, format.SchemeHTTP...)
	}
	return format.BucketSchemes, dst
}

// facetName names key of d's facet bucket for people when the row can
// without reading a station; ok is false when the key must be spelled as
// a station spells it (spelling).
func FacetName(d Dim, key string) (label string, ok bool) {
	if Dims[d].named == nil {
		return "", false
	}
	return cmp.Or(Dims[d].named(key), key), true
}

// spelling is the label of r that folds to key, or key itself.
func Spelling(d Dim, r *format.Record, key string) string {
	for _, label := range Dims[d].Spelled(r) {
		if Dims[d].Folded(label) == key {
			return label
		}
	}
	return key
}

// MaxFilterRunes is the longest language, genre or location filter value,
// in characters (the indexer's facet memo needs the same bound).
const MaxFilterRunes = format.MaxFilterRunes

// Filterable reports whether a key of d's folded bucket can be given back
// as a filter value that selects exactly its stations.
func Filterable(d Dim, key string) bool { return format.Filterable(key, Dims[d].Folded) }

// ListingKey is the key of d's directory bucket that a label of d is filed
// under: the folded label for a folded row, else the value as it is.
func ListingKey(d Dim, label string) string {
	if d >= NumDims || Dims[d].Folded == nil {
		return label
	}
	return Dims[d].Folded(label)
}

// DimsOf is the set of ds.
func DimsOf(ds ...Dim) DimSet {
	var s DimSet
	for _, d := range ds {
		s = s.With(d)
	}
	return s
}

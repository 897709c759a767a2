// Package dim is the table of dimensions: what stations are filtered on,
// counted by (a search's facets) and listed by (the directory). Each
// dimension is one row, read alike by the indexer (the buckets it files a
// record under, and how it folds the keys), the engine (how a filter value
// becomes a key, which bucket a facet counts, how a key is named), and the
// server (the parameter, its check, its words in the guide, the well-known
// file and the OpenAPI document, the form's field, the envelope's echo, the
// directory's pages). A new dimension is a new row here.
//
// File map:
//   - dim.go: Dim, the rows and what each says
//   - keys.go: how a filter value becomes a bucket key, and how a key is
//     named for people
package dim

import (
	"fmt"
	"math/bits"
	"strconv"

	"stationdex/internal/format"
	"stationdex/internal/iso"
	"stationdex/internal/stationjson"
)

// Dim is a dimension: an index into Rows.
type Dim uint8

// The dimensions, in the order filters are applied, parameters written
// and facets listed.
const (
	Country Dim = iota
	Language
	Genre
	Location
	Codec
	HTTPS
	Working
	// Count is the number of dimensions.
	Count
)

// Row is what every part of the service knows of one dimension.
type Row struct {
	// Name is the dimension's parameter, facet and echo name.
	Name string

	// Filing: the buckets the indexer files a record under, each with the
	// record's values and how they are keyed. The first filing's bucket is
	// the one a facet counts.
	Filings []Filing
	// Key appends the key of a filter value to dst and names the bucket it
	// is looked up in (one of the filings' buckets).
	Key func(dst []byte, value string) (bucket, key []byte)
	// Folded is the function a folded row keys its labels by
	// (format.FacetKey; for genres format.GenreKey; nil: keys are not
	// folded labels): a key it does not give back unchanged cannot be given
	// back as a filter value (Filterable).
	Folded func(label string) string
	// Labels is the bucket holding a label for each key (nil: a key is
	// named or spelled as below).
	Labels []byte
	// Named names a key of the facet bucket for people (nil: use Spelled);
	// Spelled lists the labels of a record that a key of a folded bucket
	// folds from, so that a key is shown as a station spells it.
	Named   func(key string) string
	Spelled func(r *format.Record) []string

	// Facet: searches may count the dimension.
	Facet bool
	// Directory is the bucket the directory lists (nil: no directory),
	// and Dir its pages' words; Dir.One also heads the dimension's facet
	// on the search page.
	Directory []byte
	Dir       Directory

	// Param is the search parameter that filters on the dimension.
	Param Param
}

// Filing is one bucket a record is filed under: the values of the record
// it takes and how each becomes a key.
type Filing struct {
	Bucket []byte
	// Values appends the record's values to dst (a scratch slice, so that
	// filing a record allocates nothing per dimension).
	Values func(r *format.Record, dst []string) []string
	Fold   Fold
}

// Fold is how the indexer keys a filed value. The indexer memoises the
// folds, which are the costliest part of filing a record.
type Fold uint8

const (
	AsIs      Fold = iota // the value itself
	FacetFold             // format.FacetKey
	// GenreFold is format.GenreKey; the indexer also counts each spelling
	// of the genre in the row's Labels bucket, whose commonest spelling
	// names it.
	GenreFold
)

// Directory is the words of a dimension's directory pages.
type Directory struct {
	Kind  string // the first path segment, a stationjson.Kind constant
	Title string // "Countries"
	One   string // "country"
}

// Value is how a parameter's value is read and written.
type Value uint8

const (
	// Code: a two-letter code, any case.
	Code Value = iota
	// Text: one label, at most format.MaxFilterRunes characters.
	Text
	// List: comma-separated values among Param.Items, or the parameter
	// repeated.
	List
	// Boolean: true or false.
	Boolean
)

// Param describes the parameter of a dimension, wherever it is listed:
// the well-known file, the guide, the HTML form and the OpenAPI document.
type Param struct {
	Value   Value
	Pattern string   // Code: the pattern a value must match
	Items   []string // List: the values allowed
	Accepts string   // what a value may be, in words
	// EchoAlways: the search envelope echoes the parameter as null when it
	// is not given (the dimensions of schema 1.0); otherwise it is echoed
	// only when given, so that a search without it answers as before.
	EchoAlways bool
	Form       Form
}

// Form is the parameter's field of the HTML search form.
type Form struct {
	Label, Type, Placeholder string
	Size                     int
	Options                  []string // a select's options after "" (any)
	OptionText               []string // what each option shows (else its value)
}

// Rows is the table.
var Rows = [Count]Row{
	Country: {
		Name:    "country",
		Filings: []Filing{{format.BucketCountries, func(r *format.Record, dst []string) []string { return append(dst, r.CountryCode) }, AsIs}},
		Key:     countryKey, Named: iso.CountryName,
		Facet: true, Directory: format.BucketCountries, Dir: Directory{stationjson.KindCountries, "Countries", "country"},
		Param: Param{Value: Code, Pattern: "^[A-Za-z]{2}$", Accepts: "ISO 3166-1 alpha-2 code, any case", EchoAlways: true,
			Form: Form{Label: "Country code", Type: "text", Placeholder: "de", Size: 3}},
	},
	Language: {
		Name: "language",
		// A facet counts codes; a label no code resolves is found
		// under its folded label.
		Filings: []Filing{
			{format.BucketLangCodes, func(r *format.Record, dst []string) []string { return append(dst, r.LanguageCodes...) }, AsIs},
			{format.BucketLangLabels, func(r *format.Record, dst []string) []string { return append(dst, r.Languages...) }, FacetFold},
		},
		Key: languageKey, Named: iso.LanguageName, Folded: format.FacetKey,
		Spelled: func(r *format.Record) []string { return r.Languages },
		Facet:   true, Directory: format.BucketLangLabels, Dir: Directory{stationjson.KindLanguages, "Languages", "language"},
		Param: Param{Value: Text, Accepts: "source label, ISO 639-1/639-2/639-3 code or English name, any case", EchoAlways: true,
			Form: Form{Label: "Language", Type: "text", Placeholder: "German or de"}},
	},
	Genre: {
		Name:    "genre",
		Filings: []Filing{{format.BucketGenres, func(r *format.Record, dst []string) []string { return append(dst, r.Genres...) }, GenreFold}},
		Key:     foldedKey(format.BucketGenres, format.GenreKey), Folded: format.GenreKey,
		Labels:  format.BucketGenreLabels,
		Spelled: func(r *format.Record) []string { return r.Genres },
		Facet:   true, Directory: format.BucketGenres, Dir: Directory{stationjson.KindGenres, "Genres", "genre"},
		Param: Param{Value: Text, EchoAlways: true,
			Accepts: "a source tag in any of its spellings: case, accents, spaces, hyphens, apostrophes and a leading # do not count (hip hop, Hip-Hop and hiphop are one genre)",
			Form:    Form{Label: "Genre", Type: "text", Placeholder: "jazz"}},
	},
	Location: {
		Name:    "location",
		Filings: []Filing{{format.BucketLocations, func(r *format.Record, dst []string) []string { return append(dst, r.Location) }, FacetFold}},
		Key:     foldedKey(format.BucketLocations, format.FacetKey), Folded: format.FacetKey,
		Spelled: func(r *format.Record) []string { return []string{r.Location} },
		Facet:   true, Directory: format.BucketLocations, Dir: Directory{stationjson.KindLocations, "Locations", "location"},
		Param: Param{Value: Text, Accepts: "the station's place as the directory lists it (see /locations/), any case and accents",
			Form: Form{Label: "Location", Type: "text", Placeholder: "Berlin"}},
	},
	Codec: {
		Name:    "codec",
		Filings: []Filing{{format.BucketCodecs, func(r *format.Record, dst []string) []string { return append(dst, r.Codec) }, AsIs}},
		Key:     codecKey, Named: func(key string) string { return key },
		Facet: true,
		Param: Param{Value: List, Items: format.Codecs, EchoAlways: true,
			Accepts: "comma-separated codecs (or codec repeated), any case; a station with any of them matches; write AAC+ as AAC%2B",
			Form:    Form{Label: "Codec", Type: "select", Options: format.Codecs}},
	},
	HTTPS: {
		Name:    "https",
		Filings: []Filing{{format.BucketSchemes, func(r *format.Record, dst []string) []string { return append(dst, format.SchemeOf(r.StreamURL)) }, AsIs}},
		Key:     schemeKey,
		Param: Param{Value: Boolean,
			Accepts: "true: stations whose stream address is HTTPS; false: plain HTTP (stations without a stream match neither)",
			Form: Form{Label: "Stream address", Type: "select", Options: []string{"true", "false"},
				OptionText: []string{"HTTPS only", "plain HTTP only"}}},
	},
	Working: {
		Name:    "working",
		Filings: []Filing{{format.BucketChecks, func(r *format.Record, dst []string) []string { return append(dst, strconv.FormatBool(r.Working)) }, AsIs}},
		Key:     workingKey, Named: workingName,
		Facet: true, Dir: Directory{One: "last check"},
		Param: Param{Value: Boolean,
			Accepts: "true: stations whose stream passed the source directory's last check before the snapshot; false: those whose stream failed it (the node checks no stream itself)",
			Form: Form{Label: "Last check", Type: "select", Options: []string{"true", "false"},
				OptionText: []string{"working streams", "failing streams"}}},
	},
}

// workingKey is the key of the checks bucket for a filter value:
// "true" or "false"; anything else matches nothing.
func workingKey(dst []byte, v string) (bucket, key []byte) {
	if v == "true" || v == "false" {
		dst = append(dst, v...)
	}
	return format.BucketChecks, dst
}

// workingName names a key of the checks bucket for people.
func workingName(key string) string {
	switch key {
	case "true":
		return "working"
	case "false":
		return "failing"
	}
	return key
}

// Name is the dimension's name in the API: its parameter and facet name.
func (d Dim) Name() string {
	if d >= Count {
		return fmt.Sprintf("Dim(%d)", int(d))
	}
	return Rows[d].Name
}

// Facetable reports whether searches can count d.
func (d Dim) Facetable() bool { return d < Count && Rows[d].Facet }

// HasDirectory reports whether the directory lists d's values.
func (d Dim) HasDirectory() bool { return d < Count && Rows[d].Directory != nil }

// ByName is the dimension of a parameter or facet name.
func ByName(name string) (Dim, bool) {
	for d := range Count {
		if Rows[d].Name == name {
			return d, true
		}
	}
	return Count, false
}

// Set is a set of dimensions, one bit each.
type Set uint16

// Has reports whether s holds d.
func (s Set) Has(d Dim) bool { return s&(1<<d) != 0 }

// With is s and d.
func (s Set) With(d Dim) Set { return s | 1<<d }

// Any reports whether s holds a dimension.
func (s Set) Any() bool { return s != 0 }

// Len is the number of dimensions in s.
func (s Set) Len() int { return bits.OnesCount16(uint16(s)) }

// Of is the set of ds.
func Of(ds ...Dim) Set {
	var s Set
	for _, d := range ds {
		s = s.With(d)
	}
	return s
}

// Package dim is the table of dimensions: what stations are filtered on,
// counted by (a search's facets) and listed by (the directory). Each
// dimension is one row, read alike by the indexer (the buckets it files a
// record under, and how it folds the keys), the engine (how a filter value
// becomes a key, which bucket a facet counts, how a key is named), and the
// server (the parameter, its check, its words in the guide, the well-known
// file and the OpenAPI document, the form's field, the envelope's echo, the
// directory's pages). The rows also declare their buckets to package
// format, name the source record's field a flag dimension is read from
// (Flag), and say what the API's documents say of them (Doc, which
// cmd/gendocs writes into openapi.json and API.md). A new dimension is a
// new row here.
//
// File map:
//   - dim.go: Dim, the rows and what each says
//   - keys.go: how a filter value becomes a bucket key, and how a key is
//     named for people
package dim

// The rows' entries of server/files/openapi.json and server/API.md.
//go:generate go run stationdex/cmd/gendocs -root ../..

import (
	"bytes"
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

	// Flag: the dimension is a flag of the source record, kept in the
	// record's Flags (zero Field: it is not).
	Flag Flag
	// Doc is what the API's documents say of it.
	Doc Doc
}

// Doc is what the API's documents say of a dimension: cmd/gendocs writes
// it into server/files/openapi.json and server/API.md.
type Doc struct {
	Param   string // the search parameter's description in OpenAPI
	Example string // its example there, as JSON ("" for none)
	Table   string // what it takes, in API.md's table of parameters
	Facet   string // the facet's description in OpenAPI's answer (a facet's)
}

// Flag is a flag of the source record that a dimension files by: the
// indexer reads Field of every source record, a number, and sets the
// flag's Bit of format.Record.Flags when it is 1 (absent counts as 0).
// Its row files a record under "true" or "false" in its bucket
// (flagFiling, flagKey).
type Flag struct {
	Field string
	Bit   uint8
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
	Pattern string   // Code: the pattern a value must match; List: each item
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
		Doc: Doc{
			Param: "Two-letter ISO 3166-1 country code, any case.",
			Table: "a two-letter country code, any case (`de`, `US`)",
			Facet: "Countries: ISO 3166-1 alpha-2 code and English name.",
		},
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
		Doc: Doc{
			Param: "Exact source language label, an ISO 639 code (639-1, 639-2/B, 639-2/T or 639-3) or an English language name, any case.",
			Table: "a language as the source lists it, an ISO 639 code or an English or native name (`de`, `ger`, `German`, `deutsch`), up to 60 characters",
			Facet: "Languages: the ISO 639 code the language filter takes (639-1 where there is one, else 639-3) and the English name.",
		},
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
		Doc: Doc{
			Param: "Source topic tag in any of its spellings: case, accents, spaces, hyphens, apostrophes (every Unicode form) and a leading # do not count, so hip hop, Hip-Hop and hiphop select the same stations; a tag of punctuation only selects none. Facet values of genre are given in the form this filter takes.",
			Table: "a tag in any of its spellings (see [Genres](#genres)), up to 60 characters",
			Facet: "Genres: the tag as the genre filter takes it, and its usual spelling.",
		},
	},
	Location: {
		Name:    "location",
		Filings: []Filing{{format.BucketLocations, func(r *format.Record, dst []string) []string { return append(dst, r.Location) }, FacetFold}},
		Key:     foldedKey(format.BucketLocations, format.FacetKey), Folded: format.FacetKey,
		Spelled: func(r *format.Record) []string { return []string{r.Location} },
		Facet:   true, Directory: format.BucketLocations, Dir: Directory{stationjson.KindLocations, "Locations", "location"},
		Param: Param{Value: Text, Accepts: "the station's place as the directory lists it (see /locations/), any case and accents",
			Form: Form{Label: "Location", Type: "text", Placeholder: "Berlin"}},
		Doc: Doc{
			Param:   "The station's place as the directory lists it (the values of /locations/), matched after folding: any case, accents and width; facet values of location are given in the form this filter takes. A place no station has is not an error: the answer finds nothing.",
			Example: `"Berlin"`,
			Table:   "the station's place as the directory lists it (`/locations/`), any case and accents, up to 60 characters",
			Facet:   "Locations: the folded place the location filter takes, and the spelling a station of it uses.",
		},
	},
	Codec: {
		Name:    "codec",
		Filings: []Filing{{format.BucketCodecs, func(r *format.Record, dst []string) []string { return append(dst, r.Codec) }, AsIs}},
		Key:     codecKey, Named: func(key string) string { return key },
		Facet: true,
		Param: Param{Value: List, Items: format.Codecs, EchoAlways: true,
			Pattern: `^([Mm][Pp]3|[Aa][Aa][Cc]\+?|[Oo][Gg][Gg]|[Ff][Ll][Aa][Cc]|[Oo][Pp][Uu][Ss])$`,
			Accepts: "comma-separated codecs (or codec repeated), any case; a station with any of them matches; write AAC+ as AAC%2B",
			Form:    Form{Label: "Codec", Type: "select", Options: format.Codecs}},
		Doc: Doc{
			Param:   "Audio codecs, comma-separated (or the parameter repeated), each at most once, any case: MP3, AAC, AAC+, OGG, FLAC, OPUS. A station matches when its codec is any of them; a station of unknown codec matches none. Write AAC+ as AAC%2B in a URL, since a + there means a space. An unknown or repeated codec or an empty item is a 400.",
			Example: `["AAC", "AAC+"]`,
			Table:   "one or more of `MP3`, `AAC`, `AAC+`, `OGG`, `FLAC`, `OPUS`, comma-separated or the parameter repeated, each once, any case; a station with any of them matches",
			Facet:   "Codecs: the codec name the codec filter takes, as its own label.",
		},
	},
	HTTPS: {
		Name:    "https",
		Filings: []Filing{{format.BucketSchemes, func(r *format.Record, dst []string) []string { return append(dst, format.SchemeOf(r.StreamURL)) }, AsIs}},
		Key:     schemeKey,
		Param: Param{Value: Boolean,
			Accepts: "true: stations whose stream address is HTTPS; false: plain HTTP (stations without a stream match neither)",
			Form: Form{Label: "Stream address", Type: "select", Options: []string{"true", "false"},
				OptionText: []string{"HTTPS only", "plain HTTP only"}}},
		Doc: Doc{
			Param:   "true: only stations whose stream address is HTTPS (it plays on an HTTPS page); false: only those whose stream is plain HTTP. A station without a stream address matches neither. Anything but true or false is a 400.",
			Example: "true",
			Table:   "`true`: stations whose stream address is HTTPS (it plays on an HTTPS page); `false`: plain HTTP; a station without a stream address matches neither",
		},
	},
	Working: {
		Name: "working", Flag: Flag{Field: "lastcheckok", Bit: 0},
		Filings: flagFiling(format.BucketChecks, 0), Key: flagKey(format.BucketChecks),
		Named: flagNamed("working", "failing"),
		Facet: true, Dir: Directory{One: "last check"},
		Param: Param{Value: Boolean,
			Accepts: "true: stations whose stream passed the source directory's last check before the snapshot; false: those whose stream failed it (the node checks no stream itself)",
			Form: Form{Label: "Last check", Type: "select", Options: []string{"true", "false"},
				OptionText: []string{"working streams", "failing streams"}}},
		Doc: Doc{
			Param:   "true: only stations whose stream passed the source directory's last check before the snapshot; false: only those whose stream failed it. The node checks no stream itself: a station may have gone off the air, or come back, since. Anything but true or false is a 400.",
			Example: "true",
			Table:   "`true`: stations whose stream passed the source directory's last check before the snapshot; `false`: those whose stream failed it. This node checks no stream itself, so a station may have gone off the air, or come back, since the snapshot",
			Facet:   "Last check: true (the stream passed the source's last check) and false (it failed), labelled working and failing.",
		},
	},
}

// flagFiling files a record under "true" or "false" in bucket: whether
// the flag of bit is set.
func flagFiling(bucket []byte, bit uint8) []Filing {
	return []Filing{{bucket, func(r *format.Record, dst []string) []string {
		return append(dst, strconv.FormatBool(r.Flags.Has(bit)))
	}, AsIs}}
}

// flagKey keys a filter value of a flag's row in bucket: "true" or
// "false"; anything else matches nothing.
func flagKey(bucket []byte) func(dst []byte, v string) (bucket, key []byte) {
	return func(dst []byte, v string) ([]byte, []byte) {
		if v == "true" || v == "false" {
			dst = append(dst, v...)
		}
		return bucket, dst
	}
}

// flagNamed names the keys of a flag's bucket for people.
func flagNamed(set, unset string) func(key string) string {
	return func(key string) string {
		switch key {
		case "true":
			return set
		case "false":
			return unset
		}
		return key
	}
}

// Flags lists the rows read from a flag of the source record.
func Flags() []Dim {
	var ds []Dim
	for d := range Count {
		if Rows[d].Flag.Field != "" {
			ds = append(ds, d)
		}
	}
	return ds
}

func init() { format.DeclareDimensionBuckets(buckets()) }

// buckets are the buckets of the rows, in the table's order: a row's
// directory bucket, its filings' and its labels; a facet's and the
// directory's are counted by listed_groups.
func buckets() []format.DimensionBucket {
	var bs []format.DimensionBucket
	add := func(b format.DimensionBucket) {
		for i := range bs {
			if bytes.Equal(bs[i].Name, b.Name) {
				bs[i].Posting, bs[i].Counted = bs[i].Posting || b.Posting, bs[i].Counted || b.Counted
				return
			}
		}
		bs = append(bs, b)
	}
	for _, r := range Rows {
		if r.Directory != nil {
			add(format.DimensionBucket{Name: r.Directory, Posting: true, Counted: true})
		}
		for _, f := range r.Filings {
			add(format.DimensionBucket{Name: f.Bucket, Posting: true, Counted: r.Facet || bytes.Equal(f.Bucket, r.Directory)})
		}
		if r.Labels != nil {
			add(format.DimensionBucket{Name: r.Labels})
		}
	}
	return bs
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

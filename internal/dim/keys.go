package dim

import (
	"cmp"

	"stationdex/internal/format"
	"stationdex/internal/iso"
)

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

// FacetBucket is the bucket a facet of d counts: its first filing's.
func (d Dim) FacetBucket() []byte { return Rows[d].Filings[0].Bucket }

// Buckets lists every bucket a filter value of d may be looked up in.
func (d Dim) Buckets() [][]byte {
	bs := make([][]byte, len(Rows[d].Filings))
	for i, f := range Rows[d].Filings {
		bs[i] = f.Bucket
	}
	return bs
}

// FacetName names key of d's facet bucket for people when the row can
// without reading a station; ok is false when the key must be spelled as
// a station spells it (Spelling).
func FacetName(d Dim, key string) (label string, ok bool) {
	if Rows[d].Named == nil {
		return "", false
	}
	return cmp.Or(Rows[d].Named(key), key), true
}

// Spelling is the label of r that folds to key, or key itself.
func Spelling(d Dim, r *format.Record, key string) string {
	for _, label := range Rows[d].Spelled(r) {
		if Rows[d].Folded(label) == key {
			return label
		}
	}
	return key
}

// Filterable reports whether a key of d's folded bucket can be given back
// as a filter value that selects exactly its stations.
func Filterable(d Dim, key string) bool { return format.Filterable(key, Rows[d].Folded) }

// ListingKey is the key of d's directory bucket that a label of d is filed
// under: the folded label for a folded row, else the value as it is.
func ListingKey(d Dim, label string) string {
	if d >= Count || Rows[d].Folded == nil {
		return label
	}
	return Rows[d].Folded(label)
}

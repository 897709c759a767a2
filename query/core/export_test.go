package core

import "stationdex/internal/format"

// The tests here also run the file's checks (package check) on the files
// they build and damage, and a read of the Radio Browser API (package
// rbapi), but cannot import those: they import core. rooms_test.go, an
// external test file of this folder, sets these from them before the tests
// run.
var (
	// RBAPIPage reads the first page of the Radio Browser API's search
	// of the stations passing f (rbapi.Page).
	RBAPIPage func(ix *Index, f Filters) error
	// Check is check.Check, its report copied into CheckReport.
	Check func(path string) (CheckReport, error)
	// Variants is groups.Variants.
	Variants func(ix *Index, id format.UUID) ([]format.Record, int, error)
	// Count is facets.Count, the facet counts of the searches here.
	Count FacetCounter
	// Warm is query.Index.Warm: core's warm-ups and the rooms'.
	Warm func(ix *Index) error
	// PairedMax is &facets.PairedMax, which a test lowers to take the
	// other way of counting the facets of distinct searches.
	PairedMax *int
	// Suggest is spell.Suggest, the suggestions of the searches here.
	Suggest Suggester
	// MaxSuggestions and MaxEdits are spell's, the rules the suggestions
	// are held to.
	MaxSuggestions int
	MaxEdits       func(word string) uint8
	// CheckFacetMemo is check.FacetMemo.
	CheckFacetMemo func(ix *Index) error
)

// CheckReport is check.Report as the tests here read it.
type CheckReport struct {
	Path    string
	Version int
	Meta    format.Meta
	Buckets []BucketCount
	Bitmaps int
	Records int
	Files   int
}

// BucketCount is check.BucketCount.
type BucketCount struct {
	Name string
	Keys int
}

// search is Search in package query: Run with the facet counts and the
// suggestions.
func search(ix *Index, q Query) (Result, error) {
	res, _, err := ix.Run(q, nil, Count, Suggest)
	return res, err
}

// searchJSON is SearchJSON in package query.
func searchJSON(ix *Index, q Query, dst []byte) (Result, []byte, error) {
	return ix.Run(q, &dst, Count, Suggest)
}

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

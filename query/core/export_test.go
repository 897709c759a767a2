package core

import "stationdex/internal/format"

// The tests here also run the file's checks (package check) on the files
// they build and damage, but cannot import it: check imports core.
// checks_test.go, an external test file of this folder, sets Check and
// CheckFacetMemo from package check before the tests run.
var (
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

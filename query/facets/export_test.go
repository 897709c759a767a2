package facets

import "stationdex/query/core"

// CheckFacetMemo is check.FacetMemo, which the tests here cannot import
// (check imports facets): rooms_test.go, an external test file of this
// folder, sets it before the tests run.
var CheckFacetMemo func(ix *core.Index) error

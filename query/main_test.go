package query

import (
	"testing"

	"stationdex/query/internal/testindex"
)

// smallPath is the index of the small set (testindex.Small) that small
// built for the running test.
var smallPath string

// small builds the small set's index for the test t.
func small(t *testing.T) {
	t.Helper()
	smallPath = testindex.Build(t, testindex.NDJSON(testindex.Small))
}

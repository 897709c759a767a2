package spell

import (
	"os"
	"sync"
	"testing"

	"stationdex/internal/format"
	qoracle "stationdex/oracle"
	"stationdex/query/core"
	"stationdex/query/facets"
	"stationdex/query/internal/testindex"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if real.ix != nil {
		real.ix.Close()
	}
	testindex.Cleanup()
	os.Exit(code)
}

// real is the real snapshot's index, opened once per test binary, and
// its records.
var real struct {
	once   sync.Once
	ix     *core.Index
	recs   []format.Record
	oracle *qoracle.Oracle
	err    error
}

// realIndex is the real snapshot's index and its oracle; it skips (fails
// under CI=true) when the snapshot is absent.
func realIndex(tb testing.TB) (*core.Index, *qoracle.Oracle) {
	tb.Helper()
	path, recs, _ := testindex.Real(tb)
	real.once.Do(func() {
		real.recs, real.oracle = recs, qoracle.New(recs)
		real.ix, real.err = core.Open(path)
	})
	if real.err != nil {
		tb.Fatal(real.err)
	}
	return real.ix, real.oracle
}

// search is Search in package query: Run with the suggestions.
func search(ix *core.Index, q core.Query) (core.Result, error) {
	res, _, err := ix.Run(q, nil, facets.Count, Suggest)
	return res, err
}

func abs(n int) int {
	if n < 0 {
		return -(n + 1)
	}
	return n
}

package rbapi

import (
	"os"
	"sync"
	"testing"

	"stationdex/indexer"
	"stationdex/internal/format"
	"stationdex/query/core"
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

func buildIndex(tb testing.TB, text string) string { tb.Helper(); return testindex.Build(tb, text) }

func openIndex(tb testing.TB, path string) *core.Index {
	tb.Helper()
	ix, err := core.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	return ix
}

func readRecords(tb testing.TB, in indexer.Input) []format.Record {
	tb.Helper()
	return testindex.ReadRecords(tb, in)
}

// real is the real snapshot's index, opened once per test binary.
var real struct {
	once sync.Once
	ix   *core.Index
	err  error
}

// realPath is the real snapshot's index file (testindex.Real).
func realPath(tb testing.TB) string {
	tb.Helper()
	path, _, _ := testindex.Real(tb)
	return path
}

// realIndex is the real snapshot's index and its records; it skips (fails
// under CI=true) when the snapshot is absent.
func realIndex(tb testing.TB) (*core.Index, []format.Record) {
	tb.Helper()
	path, recs, _ := testindex.Real(tb)
	real.once.Do(func() { real.ix, real.err = core.Open(path) })
	if real.err != nil {
		tb.Fatal(real.err)
	}
	return real.ix, recs
}

package groups

import (
	"testing"

	"stationdex/query/core"
	"stationdex/query/internal/testindex"
)

type station = testindex.Station

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

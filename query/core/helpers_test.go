package core

import (
	"testing"

	"stationdex/indexer"
	"stationdex/internal/format"
	"stationdex/query/internal/testindex"
)

// station is one Radio Browser record for hand-built test sets.
type station = testindex.Station

func ndjson(stations []station) string { return testindex.NDJSON(stations) }

var testSnapshot = testindex.Snapshot

// buildIndex writes an index of the NDJSON text into a temporary file.
func buildIndex(tb testing.TB, text string) string { tb.Helper(); return testindex.Build(tb, text) }

func openIndex(tb testing.TB, path string) *Index {
	tb.Helper()
	ix, err := Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	return ix
}

// readRecords loads the cleaned records of the NDJSON text the way the
// indexer reads them, for the oracle.
func readRecords(tb testing.TB, in indexer.Input) []format.Record {
	tb.Helper()
	return testindex.ReadRecords(tb, in)
}

func ids(recs []format.Record) []format.UUID {
	out := make([]format.UUID, len(recs))
	for i := range recs {
		out[i] = recs[i].ID
	}
	return out
}

// filters is the Filters of a country, language and genre ("" for none)
// and any codecs: the shape most tests write.
func filters(country, language, genre string, codecs ...string) Filters {
	var f Filters
	for d, v := range map[Dim]string{DimCountry: country, DimLanguage: language, DimGenre: genre} {
		if v != "" {
			f[d] = []string{v}
		}
	}
	if len(codecs) > 0 {
		f[DimCodec] = codecs
	}
	return f
}

// threeFacets are the facets the memo holds.
var threeFacets = DimsOf(DimCountry, DimLanguage, DimGenre)

// one is the value of a single-valued filter, or "".
func one(f Filters, d Dim) string {
	if len(f[d]) == 0 {
		return ""
	}
	return f[d][0]
}

// dimOfFacet is the dimension of an oracle facet name.
func dimOfFacet(name string) Dim {
	for d := range NumDims {
		if d.Name() == name {
			return d
		}
	}
	panic("no dimension " + name)
}

package core

import (
	"os"
	"runtime"
	"testing"
	"time"
)

// BenchmarkScaled runs the discovery searches on an index named by
// STATIONDEX_BENCH_INDEX (a scaled set from bench/cmd/gendata), and
// reports what the first faceted search costs: the facet columns are
// built then.
func BenchmarkScaled(b *testing.B) {
	ix := openBenchIndex(b)
	all := threeFacets
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	if _, err := search(ix, Query{Q: "jazz", Facets: all, Limit: 20}); err != nil {
		b.Fatal(err)
	}
	first := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.Logf("%d stations: first faceted search (builds the columns) %v, heap +%.1f MB",
		ix.Meta().Stations, first, float64(after.HeapAlloc-before.HeapAlloc)/(1<<20))
	cases := []namedQuery{
		{"broadest_facets", Query{Facets: all}},
		{"radio", Query{Q: "radio"}},
		{"radio_facets", Query{Q: "radio", Facets: all}},
		{"jazz", Query{Q: "jazz"}},
		{"jazz_facets", Query{Q: "jazz", Facets: all}},
		{"country_de", Query{Filter: filters("DE", "", "")}},
		{"country_de_facets", Query{Filter: filters("DE", "", ""), Facets: all}},
		{"suggest_typo", Query{Q: "jazzz radoi", Suggest: true}},
		// Faceted searches whose match sets are too large for 16-bit
		// counters at 5M (a word's 100,000 to 500,000 stations): counted by
		// visiting their records, folded into 32-bit counts (countPart).
		{"mexico_facets", Query{Q: "mexico", Facets: all}},
		{"cjk_prefix_facets", Query{Q: "播", Facets: all}},
		{"mus_english_facets", Query{Q: "mus", Filter: filters("", "english", ""), Facets: all}},
		{"radio_english_facets", Query{Q: "radio", Filter: filters("", "english", ""), Facets: all}},
		// The 5M mix's costliest faceted searches after them: sets of
		// 10,000 to 150,000 records counted by records, a few slots of every
		// page of tables of tens of megabytes.
		{"radio_de_wissenschaft_facets", Query{Q: "radio", Filter: filters("DE", "", "wissenschaft"), Facets: all}},
		{"9_us_aaa_facets", Query{Q: "9", Filter: filters("us", "", "adult album alternative"), Facets: all}},
		{"pal_facets", Query{Q: "pal", Facets: all}},
		{"r", Query{Q: "r"}},
		{"r_distinct", Query{Q: "r", Distinct: true}},
		{"radio_distinct", Query{Q: "radio", Distinct: true}},
		{"radio_us_distinct", Query{Q: "radio", Filter: filters("US", "", ""), Distinct: true}},
		{"jazz_distinct", Query{Q: "jazz", Distinct: true}},
		{"country_de_distinct", Query{Filter: filters("DE", "", ""), Distinct: true}},
		{"country_de_pop_distinct", Query{Filter: filters("DE", "", "pop"), Distinct: true}},
		{"country_de_pop", Query{Filter: filters("DE", "", "pop")}},
		// the HTML search's default: distinct with facets
		{"radio_facets_distinct", Query{Q: "radio", Facets: all, Distinct: true}},
		{"jazz_facets_distinct", Query{Q: "jazz", Facets: all, Distinct: true}},
	}
	benchNamed(b, ix, cases)
}

// openBenchIndex opens the index named by STATIONDEX_BENCH_INDEX (a
// scaled set from bench/cmd/gendata) until the benchmark ends; without
// it the benchmark is skipped.
func openBenchIndex(b *testing.B) *Index {
	path := os.Getenv("STATIONDEX_BENCH_INDEX")
	if path == "" {
		b.Skip("STATIONDEX_BENCH_INDEX not set")
	}
	ix, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	return ix
}

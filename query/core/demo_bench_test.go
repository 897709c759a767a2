package core

import (
	"context"
	"sync"
	"testing"

	"stationdex/indexer"
)

// The micro-benchmarks on the embedded demo snapshot need no real data, so
// any checkout can compare a change with its base under benchstat (make
// bench-compare). They measure the fixed cost of a search, not its growth
// with data: that is BenchmarkSearch's, on the real snapshot.

var demoBenchIndex = sync.OnceValues(func() (*Index, error) {
	path, err := indexer.BuildDemo(context.Background(), sharedDir)
	if err != nil {
		return nil, err
	}
	return Open(path)
})

// demoBenchQueries cover every path through Search: word, prefix, several
// words, each filter, all stations, a page past the end, nothing found.
var demoBenchQueries = []struct {
	name string
	q    Query
}{
	{"word", Query{Q: "jazz", Limit: 20}},
	{"prefix", Query{Q: "ra", Limit: 20}},
	{"two_words", Query{Q: "radio demo", Limit: 20}},
	{"non_latin", Query{Q: "радио", Limit: 20}},
	{"genre", Query{Filter: filters("", "", "pop"), Limit: 20}},
	{"country_language", Query{Filter: filters("at", "german", ""), Limit: 20}},
	{"word_and_filters", Query{Q: "radio", Filter: filters("de", "", "pop"), Limit: 20}},
	{"all", Query{Limit: 50}},
	{"past_the_end", Query{Q: "radio", Limit: 20, Offset: 40}},
	{"zero_result", Query{Q: "zzzzqx", Limit: 20}},
}

func BenchmarkDemoSearch(b *testing.B) {
	ix, err := demoBenchIndex()
	if err != nil {
		b.Fatal(err)
	}
	for _, bq := range demoBenchQueries {
		b.Run(bq.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := search(ix, bq.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDemoStation(b *testing.B) {
	ix, err := demoBenchIndex()
	if err != nil {
		b.Fatal(err)
	}
	res, err := search(ix, Query{Q: "jazz", Limit: 1})
	if err != nil || len(res.Stations) != 1 {
		b.Fatalf("no station to read: %v", err)
	}
	id := res.Stations[0].ID
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ix.Station(id); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDemoFacetStations(b *testing.B) {
	ix, err := demoBenchIndex()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ix.ListedStations(DimGenre, "pop", 0, MaxLimit); err != nil {
			b.Fatal(err)
		}
	}
}

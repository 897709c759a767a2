package core

import (
	"syscall"
	"testing"
	"time"
)

// processCPU is the user and system CPU time of the process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchQueries are the query classes of the search benchmark.
var benchQueries = []struct {
	name string
	q    Query
}{
	{"name_word", Query{Q: "jazz", Limit: 20}},
	{"two_words", Query{Q: "classic rock", Limit: 20}},
	{"one_letter", Query{Q: "a", Limit: 20}},
	{"two_letter_prefix", Query{Q: "ra", Limit: 20}},
	{"three_letter_prefix", Query{Q: "cla", Limit: 20}},
	{"non_latin", Query{Q: "радио", Limit: 20}},
	{"genre_filter", Query{Filter: filters("", "", "pop"), Limit: 20}},
	{"country_language", Query{Filter: filters("de", "german", ""), Limit: 20}},
	{"word_and_filters", Query{Q: "radio", Filter: filters("us", "", "news"), Limit: 20}},
	{"all_stations", Query{Limit: 20}},
	{"deep_offset", Query{Q: "a", Limit: 50, Offset: 5000}},
	{"zero_result", Query{Q: "zzzzqx", Limit: 20}},
	{"unknown_filter", Query{Q: "radio", Filter: filters("", "", "no such genre"), Limit: 20}},
}

// BenchmarkSearch measures one Search per operation on the real snapshot,
// per query class.
func BenchmarkSearch(b *testing.B) {
	benchSearch(b, func(ix *Index, q Query) (Result, error) { return search(ix, q) })
}

// BenchmarkSearchJSON is BenchmarkSearch for SearchJSON, the JSON API's
// search, into a reused buffer: decode-ns/op is the copy of the page's
// stored JSON.
func BenchmarkSearchJSON(b *testing.B) {
	buf := make([]byte, 0, 64<<10)
	benchSearch(b, func(ix *Index, q Query) (Result, error) {
		res, out, err := searchJSON(ix, q, buf[:0])
		buf = out
		return res, err
	})
}

func benchSearch(b *testing.B, search func(*Index, Query) (Result, error)) {
	ix, _ := realIndex(b)
	for _, bq := range benchQueries {
		b.Run(bq.name, func(b *testing.B) {
			b.ReportAllocs()
			var bitmap, decode int64
			cpu := processCPU()
			for b.Loop() {
				res, err := search(ix, bq.q)
				if err != nil {
					b.Fatal(err)
				}
				bitmap += int64(res.Timing.Bitmap)
				decode += int64(res.Timing.Decode)
			}
			// Wall time is inflated on a shared machine; process CPU time
			// (GC included) is what a search costs.
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(bitmap)/float64(b.N), "bitmap-ns/op")
			b.ReportMetric(float64(decode)/float64(b.N), "decode-ns/op")
		})
	}
}

// namedQuery is one search of a benchmark.
type namedQuery struct {
	name string
	q    Query
}

// benchNamed runs each query as a sub-benchmark of one Search per
// operation, page of 20, reporting process CPU time per search.
func benchNamed(b *testing.B, ix *Index, cases []namedQuery) {
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			c.q.Limit = 20
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				if _, err := search(ix, c.q); err != nil {
					b.Fatal(err)
				}
			}
			// Wall time is inflated on a shared machine; process CPU time
			// (GC included) is what a search costs.
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkStation measures a read by id.
func BenchmarkStation(b *testing.B) {
	ix, _ := realIndex(b)
	id := real.recs[len(real.recs)/2].ID
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ix.Station(id); err != nil {
			b.Fatal(err)
		}
	}
}

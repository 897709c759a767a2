package core

import (
	"cmp"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"
	"unicode/utf8"

	"stationdex/internal/fold"
	"stationdex/internal/format"
)

// BenchmarkPageMix times the search page's default search (distinct, every
// facet the page lists, each result's other entries counted) over a mix
// drawn from the stations of the index named by STATIONDEX_BENCH_INDEX, as
// the suite's traffic draws its searches: a word of a random station's
// name, a prefix of one, two words, a word with the station's country,
// genre or language, a country with a genre, a filter alone. Each search
// is timed alone (the fastest of three windows of repeats, after a first
// run) and its allocation measured (the less of two runs: a collection
// between them empties the workspaces' pool, whose buffers a search then
// allocates again); the report is the median, p90, p99 and
// worst, and the costliest searches. STATIONDEX_PAGE_MIX sets the number
// of searches (500), STATIONDEX_PAGE_MIX_SHOW the number of costliest
// searches listed (12).
func BenchmarkPageMix(b *testing.B) {
	ix := openBenchIndex(b)
	n := 500
	if v, err := strconv.Atoi(os.Getenv("STATIONDEX_PAGE_MIX")); err == nil && v > 0 {
		n = v
	}
	if err := Warm(ix); err != nil {
		b.Fatal(err)
	}
	qs := pageMix(b, ix, n, 43)
	type timed struct {
		q       Query
		us      float64
		bytes   uint64
		total   int
		entries int
	}
	var times []timed
	var ms runtime.MemStats
	for b.Loop() {
		times = times[:0]
		for _, q := range qs {
			res, err := search(ix, q) // first run: lazy state, caches
			if err != nil {
				b.Fatal(err)
			}
			t := timed{q: q, bytes: math.MaxUint64, total: res.Total, entries: res.Entries}
			for range 2 { // the less of two: a collection may have emptied the workspace pool
				runtime.ReadMemStats(&ms)
				before := ms.TotalAlloc
				if _, err := search(ix, q); err != nil {
					b.Fatal(err)
				}
				runtime.ReadMemStats(&ms)
				t.bytes = min(t.bytes, ms.TotalAlloc-before)
			}
			t.us = math.Inf(1)
			for range 3 { // the fastest of three windows: the machine is shared
				reps, start := 0, time.Now()
				for reps == 0 || reps < 100 && time.Since(start) < time.Millisecond {
					if _, err := search(ix, q); err != nil {
						b.Fatal(err)
					}
					reps++
				}
				t.us = min(t.us, float64(time.Since(start).Nanoseconds())/1e3/float64(reps))
			}
			times = append(times, t)
		}
	}
	slices.SortFunc(times, func(a, b timed) int { return int(a.us*1000) - int(b.us*1000) })
	at := func(p float64) float64 { return times[min(len(times)-1, int(p*float64(len(times))))].us }
	var most uint64
	for _, t := range times {
		most = max(most, t.bytes)
	}
	b.ReportMetric(at(0.5), "median-us")
	b.ReportMetric(at(0.99), "p99-us")
	b.ReportMetric(times[len(times)-1].us, "max-us")
	b.ReportMetric(float64(most), "max-B/search")
	b.Logf("%d stations, %d page searches: median %.0f us, p90 %.0f, p99 %.0f, max %.0f; most allocated %d B",
		ix.Meta().Stations, len(times), at(0.5), at(0.9), at(0.99), times[len(times)-1].us, most)
	entries := make([]int, len(times))
	for i, t := range times {
		entries[i] = t.entries
	}
	slices.Sort(entries)
	b.Logf("matching entries: median %d, p75 %d, p90 %d, max %d", entries[len(entries)/2], entries[len(entries)*3/4], entries[len(entries)*9/10], entries[len(entries)-1])
	show := 12
	if v, err := strconv.Atoi(os.Getenv("STATIONDEX_PAGE_MIX_SHOW")); err == nil && v > 0 {
		show = v
	}
	for _, t := range times[max(0, len(times)-show):] {
		b.Logf("  %8.0f us %9d B  total %7d  %s", t.us, t.bytes, t.total, t.q.String())
	}
	slices.SortStableFunc(times, func(a, b timed) int { return cmp.Compare(b.bytes, a.bytes) })
	b.Logf("most allocated:")
	for _, t := range times[:min(len(times), 6)] {
		b.Logf("  %8.0f us %9d B  total %7d  %s", t.us, t.bytes, t.total, t.q.String())
	}
}

// pageQueryOf is the search page's query for a search: distinct, every
// facet, 8 values each, variants counted (server/pages' pageQuery).
func pageQueryOf(q Query) Query {
	for d := range NumDims {
		if d.Facetable() {
			q.Facets = q.Facets.With(d)
		}
	}
	q.FacetLimit, q.Distinct, q.CountVariants, q.Suggest = 8, true, true, true
	if q.Limit == 0 {
		q.Limit = 20 // the API's default page
	}
	return q
}

// pageMix draws n search-page searches from random stations of ix (see
// BenchmarkPageMix), deterministically for a seed.
func pageMix(tb testing.TB, ix *Index, n int, seed uint64) []Query {
	rng := rand.New(rand.NewPCG(seed, 0x9a6e))
	stations := ix.Meta().Stations
	var qs []Query
	err := ix.WithSearch(func(s *Search) error {
		var r format.Record
		// station draws stations until ok takes one, and returns its name
		// words of two runes or more
		station := func(ok func(r *format.Record, words []string) bool) []string {
			for {
				if err := DecodeRecord(s.Bucket(format.BucketStations), uint32(rng.IntN(stations)), &r); err != nil {
					tb.Fatal(err)
				}
				words := slices.DeleteFunc(fold.Tokens(r.Name), func(w string) bool { return utf8.RuneCountInString(w) < 2 })
				if ok(&r, words) {
					return words
				}
			}
		}
		pick := func(l []string) string { return l[rng.IntN(len(l))] }
		long := func(w string) bool { return utf8.RuneCountInString(w) >= 4 }
		draws := []struct {
			weight int
			draw   func() Query
		}{
			{24, func() Query { // a word
				return Query{Q: pick(station(func(_ *format.Record, w []string) bool { return len(w) > 0 }))}
			}},
			{14, func() Query { // a prefix of three to five runes
				w := station(func(_ *format.Record, w []string) bool { return slices.ContainsFunc(w, long) })
				word := []rune(pick(slices.DeleteFunc(w, func(x string) bool { return !long(x) })))
				return Query{Q: string(word[:3+rng.IntN(min(3, len(word)-2))])}
			}},
			{18, func() Query { // two words
				w := station(func(_ *format.Record, w []string) bool { return len(w) >= 2 })
				i := rng.IntN(len(w) - 1)
				return Query{Q: w[i] + " " + w[i+1]}
			}},
			{10, func() Query { // a word and a country
				w := station(func(r *format.Record, w []string) bool { return len(w) > 0 && r.CountryCode != "" })
				return Query{Q: pick(w), Filter: oneFilter(DimCountry, r.CountryCode)}
			}},
			{6, func() Query { // a word and a genre
				w := station(func(r *format.Record, w []string) bool { return len(w) > 0 && len(r.Genres) > 0 })
				return Query{Q: pick(w), Filter: oneFilter(DimGenre, pick(r.Genres))}
			}},
			{5, func() Query { // a word and a language
				w := station(func(r *format.Record, w []string) bool { return len(w) > 0 && len(r.LanguageCodes) > 0 })
				return Query{Q: pick(w), Filter: oneFilter(DimLanguage, pick(r.LanguageCodes))}
			}},
			{7, func() Query { // a country and a genre
				station(func(r *format.Record, _ []string) bool { return r.CountryCode != "" && len(r.Genres) > 0 })
				f := oneFilter(DimCountry, r.CountryCode)
				f[DimGenre] = []string{pick(r.Genres)}
				return Query{Filter: f}
			}},
			{8, func() Query { // a filter alone
				station(func(r *format.Record, _ []string) bool {
					return r.CountryCode != "" && len(r.Genres) > 0 && len(r.LanguageCodes) > 0
				})
				switch rng.IntN(3) {
				case 0:
					return Query{Filter: oneFilter(DimCountry, r.CountryCode)}
				case 1:
					return Query{Filter: oneFilter(DimGenre, pick(r.Genres))}
				}
				return Query{Filter: oneFilter(DimLanguage, pick(r.LanguageCodes))}
			}},
		}
		total := 0
		for _, d := range draws {
			total += d.weight
		}
		for len(qs) < n {
			x := rng.IntN(total)
			for _, d := range draws {
				if x -= d.weight; x < 0 {
					qs = append(qs, pageQueryOf(d.draw()))
					break
				}
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return qs
}

// BenchmarkPageMixSome runs the searches of BenchmarkPageMix's mix whose
// text matches the regular expression STATIONDEX_PAGE_MIX_SOME (all when
// unset), each once per iteration: a profile of the costliest searches.
func BenchmarkPageMixSome(b *testing.B) {
	ix := openBenchIndex(b)
	if err := Warm(ix); err != nil {
		b.Fatal(err)
	}
	re, err := regexp.Compile(os.Getenv("STATIONDEX_PAGE_MIX_SOME"))
	if err != nil {
		b.Fatal(err)
	}
	var qs []Query
	for _, q := range pageMix(b, ix, 500, 43) {
		if re.MatchString(q.String()) {
			qs = append(qs, q)
		}
	}
	if len(qs) == 0 {
		b.Fatal("no search of the mix matches")
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, q := range qs {
			if _, err := search(ix, q); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(qs)), "us/search")
}

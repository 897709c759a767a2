package core

import (
	"bufio"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// mixQueries reads bench/queries/mix.tsv (class, q, country, language,
// genre, limit, offset), committed with the repository.
func mixQueries(tb testing.TB) (classes []string, qs []Query) {
	tb.Helper()
	f, err := os.Open("../../bench/queries/mix.tsv")
	if err != nil {
		tb.Fatal("the query mix:", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) != 7 {
			tb.Fatalf("mix line %q", line)
		}
		limit, _ := strconv.Atoi(c[5])
		offset, _ := strconv.Atoi(c[6])
		classes = append(classes, c[0])
		qs = append(qs, Query{Q: c[1], Filter: filters(c[2], c[3], c[4]), Limit: limit, Offset: offset})
	}
	return classes, qs
}

// BenchmarkMixLatency runs every search of the committed mix, with all
// three facets (facets) or without (plain), and reports the median, p90
// and p99 of one search, per class and overall. STATIONDEX_BENCH_INDEX
// names a scaled index to use instead of the real snapshot.
func BenchmarkMixLatency(b *testing.B) {
	var ix *Index
	if path := os.Getenv("STATIONDEX_BENCH_INDEX"); path != "" {
		var err error
		if ix, err = Open(path); err != nil {
			b.Fatal(err)
		}
		defer ix.Close()
	} else {
		ix, _ = realIndex(b)
	}
	classes, qs := mixQueries(b)
	for _, mode := range []string{"plain", "facets"} {
		b.Run(mode, func(b *testing.B) {
			byClass := map[string][]time.Duration{}
			var alls []time.Duration
			best := make([]time.Duration, len(qs))
			for b.Loop() {
				for i, q := range qs {
					if mode == "facets" {
						q.Facets = threeFacets
					}
					start := time.Now()
					if _, err := search(ix, q); err != nil {
						b.Fatal(err)
					}
					d := time.Since(start)
					byClass[classes[i]] = append(byClass[classes[i]], d)
					alls = append(alls, d)
					if best[i] == 0 || d < best[i] {
						best[i] = d
					}
				}
			}
			pct := func(ds []time.Duration, p float64) time.Duration {
				slices.Sort(ds)
				return ds[min(len(ds)-1, int(float64(len(ds))*p))]
			}
			names := make([]string, 0, len(byClass))
			for c := range byClass {
				names = append(names, c)
			}
			slices.Sort(names)
			for _, c := range names {
				ds := byClass[c]
				b.Logf("%-14s median %8v p90 %8v p99 %8v", c, pct(ds, 0.5), pct(ds, 0.9), pct(ds, 0.99))
			}
			b.Logf("%-14s median %8v p90 %8v p99 %8v", "all", pct(alls, 0.5), pct(alls, 0.9), pct(alls, 0.99))
			slow := make([]int, len(qs))
			for i := range slow {
				slow[i] = i
			}
			slices.SortFunc(slow, func(i, j int) int { return int(best[j] - best[i]) })
			for _, i := range slow[:5] {
				b.Logf("slowest (best of runs) %v: %s %+v", best[i], classes[i], qs[i])
			}
			b.Logf("best-of-runs p99 %v", pct(slices.Clone(best), 0.99))
			b.ReportMetric(float64(pct(alls, 0.5)), "p50-ns")
			b.ReportMetric(float64(pct(alls, 0.99)), "p99-ns")
		})
	}
}

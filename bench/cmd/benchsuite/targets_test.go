package main

import (
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int{"200k": 200_000, "2m": 2_000_000, "1500": 1500} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "k", "big", "-5k", "0"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) accepted", bad)
		}
	}
}

// TestMoreTargets: the issue #10/#11/#24/#43 goals, each judged on its
// own figure: cold, crawl, hot, hot-with-gzip and search page cold
// throughput goals differ (0.75, 0.7, 1.0, 0.85, 0.5; the search page hot
// has the hot mix's), p99 within 3x on the search page cold and 2x on each
// other, the largest size is judged per
// class, allocations at every size and their growth, and a run without 5M
// says so.
func TestMoreTargets(t *testing.T) {
	var res Results
	res.Mixes = []HTTPMix{{Name: "cold", ThroughputX: 0.74, P99X: 2}, {Name: "crawl", ThroughputX: 0.7, P99X: 2.1},
		{Name: "hot", ThroughputX: 0.99, P99X: 1.2}, {Name: "hot, Accept-Encoding: gzip", ThroughputX: 0.86, P99X: 2.01},
		{Name: "search page cold", ThroughputX: 0.49, P99X: 3}, {Name: "search page hot", ThroughputX: 1, P99X: 2.5}}
	res.Sizes = []Size{
		{Label: "50k", Stations: 50_000, Engine: Stats{Summary: Summary{AllocsPerOp: 10}}},
		{Label: "1m", Stations: 1_000_000, Engine: Stats{Summary: Summary{AllocsPerOp: 12},
			Classes: map[string]Summary{"name_full": {MedianUs: 50, P99Us: 900}, "prefix1": {MedianUs: 150, P99Us: 400}}},
			Broadest: Summary{N: 7, MedianUs: 25_000}},
	}
	res.Facets = &FacetCosts{Label: "50k", Faceted: Summary{P99Us: 1500}, Suggest: Summary{MedianUs: 1200},
		Classes: map[string]FacetsClass{"genre": {RatioMedian: 2.5}, "combo": {RatioMedian: 3.5}}}
	got := map[string]bool{}
	for _, tg := range moreTargets(&res) {
		got[tg.Name] = tg.Held
	}
	want := map[string]bool{
		"HTTP cold mix throughput vs same-size ceiling":                                                                               false,
		"HTTP cold mix p99 vs same-size ceiling":                                                                                      true,
		"HTTP crawl mix throughput vs same-size ceiling":                                                                              true,
		"HTTP crawl mix p99 vs same-size ceiling":                                                                                     false,
		"HTTP hot mix throughput vs same-size ceiling":                                                                                false,
		"HTTP hot mix p99 vs same-size ceiling":                                                                                       true,
		"HTTP hot, Accept-Encoding: gzip mix throughput vs same-size ceiling":                                                         true,
		"HTTP hot, Accept-Encoding: gzip mix p99 vs same-size ceiling":                                                                false,
		"HTTP search page cold mix throughput vs same-size ceiling":                                                                   false,
		"HTTP search page cold mix p99 vs same-size ceiling":                                                                          true,
		"HTTP search page hot mix throughput vs same-size ceiling":                                                                    true,
		"HTTP search page hot mix p99 vs same-size ceiling":                                                                           false,
		"engine median of every class at 1m (1000000 stations); 5M not measured in this run (worst: prefix1)":                         false,
		"engine p99 of every class at 1m (1000000 stations); 5M not measured in this run (worst: name_full)":                          true,
		"allocations per search at 50k (mix mean)":                                                                                    true,
		"allocations per search at 1m (mix mean)":                                                                                     true,
		"allocations per search growth 50k -> 1m":                                                                                     false,
		"broadest all-facet search (no q, every station, three facets) at 1m (1000000 stations); 5M not measured in this run, median": false,
		"all three facets / no facets, median per query class at 50k (worst: combo)":                                                  false,
		"p99 of the mix with all three facets at 50k":                                                                                 true,
		"suggestions for zero-result typo searches at 50k, median (0 typos)":                                                          false,
	}
	for name, held := range want {
		h, ok := got[name]
		if !ok {
			t.Errorf("no target %q; have %v", name, keys(got))
			continue
		}
		if h != held {
			t.Errorf("%s: held %v, want %v", name, h, held)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d targets, want %d: %v", len(got), len(want), keys(got))
	}
}

func keys(m map[string]bool) string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	return strings.Join(k, "; ")
}

// TestDistinctTargets: distinct is judged on the ratio of medians and of
// p99s of the same searches, each against 1.5x, and its report section
// shows both verdicts and the worst searches.
func TestDistinctTargets(t *testing.T) {
	if distinctTargets(nil) != nil {
		t.Fatal("targets without a distinct stage")
	}
	d := &DistinctCosts{Label: "50k", Stations: 50_000, Plain: Summary{N: 10, MedianUs: 10, P99Us: 100},
		Distinct: Summary{N: 10, MedianUs: 15, P99Us: 151}, Fewer: 4,
		PerSearch: RatioSpread{Median: 1.2, Max: 3, Worst: []WorstSearch{{Path: "/api/stations?q=r", Class: "prefix1", Total: 9, PlainUs: 1, FacetedUs: 3, Ratio: 3}}}}
	ts := distinctTargets(d)
	if len(ts) != 2 || !ts[0].Held || ts[1].Held || !strings.Contains(ts[0].Name, "median") || !strings.Contains(ts[1].Name, "p99") {
		t.Errorf("targets %+v: want the median held (1.5x) and the p99 missed (1.51x)", ts)
	}
	var w strings.Builder
	distinctSection(&w, d)
	for _, want := range []string{"at 50k (50000 stations", "4 of them", "(1.50x **PASS**)", "(1.51x **MISS**)", "`/api/stations?q=r` | prefix1 | 9 |"} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("the distinct section lacks %q:\n%s", want, w.String())
		}
	}
}

// TestRBAPITargets: the Radio Browser API stage is judged on three figures,
// each against its own goal (the ceiling's 0.7x from the issue, /api's
// 0.7x and MariaDB's 100x from the suite), a comparison not run has no
// target, and the report section shows each verdict.
func TestRBAPITargets(t *testing.T) {
	if rbapiTargets(nil) != nil {
		t.Fatal("targets without an upstream stage")
	}
	u := &RBAPICosts{Label: "50k", Stations: 50_000, Pairs: 300,
		Mix:  HTTPMix{Name: "upstream", ThroughputX: 0.7, P99X: 1.2, Ceiling: Wrk{RPS: 1000}, Ours: Wrk{RPS: 700}},
		JSON: Wrk{RPS: 690}, API: Wrk{RPS: 1000}, PairsX: 0.69,
		Probe: map[string]RBAPIProbe{"url": {N: 10, MedianUs: 50, P99Us: 90, MaxUs: 100, MedianBytes: 200, Share: 0.25}},
		Maria: &RBAPIMaria{Searches: 96, PerKind: 12, Ours: Summary{MedianUs: 100}, Maria: Summary{MedianUs: 10_000}, RatioMedian: 100,
			Kinds: map[string]RBAPIKind{"search_name": {N: 12, OursMedianUs: 100, MariaMedianUs: 20_000}}, RowsAgree: "90/96"}}
	got := map[string]bool{}
	for _, tg := range rbapiTargets(u) {
		got[tg.Name] = tg.Held
	}
	want := map[string]bool{
		"HTTP upstream mix (/json/) throughput vs same-size ceiling":                                                           true,
		"HTTP /json/ searches vs the same 300 searches on /api, throughput (cache off)":                                        false,
		"upstream searches: node over HTTP faster than the upstream statement in mariadb (ratio of medians, same 96 searches)": true,
	}
	for name, held := range want {
		if h, ok := got[name]; !ok || h != held {
			t.Errorf("%s: held %v (present %v), want %v; have %v", name, h, ok, held, keys(got))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d targets, want %d: %v", len(got), len(want), keys(got))
	}
	var w strings.Builder
	rbapiSection(&w, u)
	for _, want := range []string{"at 50k (50000 stations; issue #27)", "| **0.70x** **PASS** |", "| **0.69x** **MISS** |",
		"| search_name | 12 | 100 | 20000 | 200x |", "**100x** **PASS**", "agree on 90/96", "up to 12 of each search kind", "| url | 10 | 50 | 90 | 100 | 200 | 25.0% |"} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("the upstream section lacks %q:\n%s", want, w.String())
		}
	}
	u.Maria, u.API = nil, Wrk{}
	if n := len(rbapiTargets(u)); n != 1 {
		t.Errorf("%d targets with only the ceiling comparison run, want 1", n)
	}
}

// TestSearchPageTargets: the search page's default search is judged on
// its median, p99 and the most one search allocated, each on its own.
func TestSearchPageTargets(t *testing.T) {
	sp := &SearchPageSearches{Label: "5m", Stations: 5_000_000, Times: Summary{MedianUs: 500, P99Us: 5001}, MostBytes: 1<<20 + 1}
	got := map[string]bool{}
	for _, tg := range searchPageTargets(sp) {
		got[tg.Name] = tg.Held
	}
	at := " at 5m (5000000 stations)"
	want := map[string]bool{
		"search page default search in process, median" + at:                true,
		"search page default search in process, p99" + at:                   false,
		"search page default search in process, most allocated by one" + at: false,
	}
	if len(got) != len(want) {
		t.Fatalf("targets %v, want %v", got, want)
	}
	for name, held := range want {
		if h, ok := got[name]; !ok || h != held {
			t.Errorf("%s: held %v (present %v), want %v", name, h, ok, held)
		}
	}
	if searchPageTargets(nil) != nil {
		t.Error("a run without the stage has targets for it")
	}
}

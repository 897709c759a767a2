package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"stationdex/bench/internal/mix"
)

// extraPaths are pages and files requested besides the API searches, one
// request in extraEvery, so that every part of the node is under load.
var extraPaths = []string{
	"/", "/search/?q=radio", "/search/?q=jazz&country=de", "/genres/", "/countries/", "/languages/",
	"/sitemap.xml", "/data/catalog.json", "/openapi.json", "/text/index.md", "/llms.txt",
	"/api/stations?limit=50", "/api/stations?limit=50&offset=100",
}

const extraEvery = 10

// progressEvery is how often the node's numbers are printed during the load.
const progressEvery = 30 * time.Second

// loadQueries reads the query mix.
func loadQueries(mixFile string) ([]mix.Query, error) {
	qs, err := mix.Load(mixFile)
	if err != nil {
		return nil, fmt.Errorf("query mix: %w", err)
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("query mix %s: no queries", mixFile)
	}
	return qs, nil
}

// mixPaths is the request targets of the "mix" traffic, in the order they
// are cycled through: the mix's searches, repeated every len(qs) requests,
// with pages and files between them.
func mixPaths(qs []mix.Query) []string {
	var paths []string
	for i, q := range qs {
		paths = append(paths, q.Path())
		if i%extraEvery == 0 {
			paths = append(paths, extraPaths[(i/extraEvery)%len(extraPaths)])
		}
	}
	return paths
}

// distinctSearches is qs without repeats (the mix repeats a third of its
// searches, which would be cache hits): the cold traffic's searches.
func distinctSearches(qs []mix.Query) []mix.Query {
	type search struct{ q, country, language, genre string }
	seen := map[search]bool{}
	var out []mix.Query
	for _, q := range qs {
		k := search{q.Q, q.Country, q.Language, q.Genre}
		if !seen[k] {
			seen[k] = true
			out = append(out, q)
		}
	}
	return out
}

// coldPath is request n of the "cold" traffic: a stream of distinct
// searches, so that (almost) every one misses the node's response cache
// and is stored in it, evicting the oldest. Query n mod len(qs) of the mix
// is asked with a limit and offset that change every round through the
// mix: 50 limits x 101 offsets, so the stream repeats only after about
// 5000 rounds (about 10 million requests with the mix's 1958 distinct
// searches).
func coldPath(qs []mix.Query, n int) string {
	q := qs[n%len(qs)]
	round := n / len(qs)
	q.Limit = 1 + round%50
	q.Offset = (round / 50 % 101) * 7
	return q.Path()
}

// load sends requests at a steady rate and counts the outcomes.
type load struct {
	base  string
	paths []string    // cycled through (mix traffic), or
	cold  []mix.Query // asked with distinct limits and offsets (cold traffic)
	// realistic: crawl pages and typo searches, cycled through, one
	// request in realisticEvery.
	realistic []string
	workers   int
	client    *http.Client
	next      atomic.Int64

	mu        sync.Mutex
	latencies []time.Duration
	statuses  map[int]int
	errors    map[string]int
}

func newLoad(addr string, paths []string, cold []mix.Query, realistic []string, workers int) *load {
	return &load{
		base: "http://" + addr, paths: paths, cold: cold, realistic: realistic, workers: workers,
		client:   &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: workers}},
		statuses: map[int]int{}, errors: map[string]int{},
	}
}

// run sends rate requests a second for d, from l.workers clients, and
// prints progress when n is given.
func (l *load) run(ctx context.Context, rate int, d time.Duration, n *node) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	tokens := make(chan struct{})
	var wg sync.WaitGroup
	for range l.workers {
		wg.Go(func() {
			for range tokens {
				l.one()
			}
		})
	}
	l.pace(ctx, rate, tokens, n)
	close(tokens)
	wg.Wait()
	if err := context.Cause(ctx); err != context.DeadlineExceeded {
		return fmt.Errorf("stopped early: %v", err)
	}
	return nil
}

// pace hands out one token every 1/rate seconds until ctx ends; a token
// no worker is free to take is dropped, so the rate stays steady instead
// of bursting after a stall.
func (l *load) pace(ctx context.Context, rate int, tokens chan<- struct{}, n *node) {
	tick := time.NewTicker(time.Second / time.Duration(max(rate, 1)))
	defer tick.Stop()
	progress := time.NewTicker(progressEvery)
	defer progress.Stop()
	start := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-progress.C:
			if n != nil {
				l.progress(n, time.Since(start))
			}
		case <-tick.C:
			select {
			case tokens <- struct{}{}:
			default:
			}
		}
	}
}

func (l *load) one() {
	start := time.Now()
	resp, err := l.client.Get(l.base + l.path(int(l.next.Add(1))))
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	l.record(resp, err, time.Since(start))
}

// path is request n: a crawl page or typo search one in realisticEvery,
// else the traffic's own.
func (l *load) path(n int) string {
	switch {
	case len(l.realistic) > 0 && n%realisticEvery == 0:
		return l.realistic[(n/realisticEvery)%len(l.realistic)]
	case l.cold != nil:
		return coldPath(l.cold, n)
	}
	return l.paths[n%len(l.paths)]
}

// record counts one outcome: an error, or a status and its latency.
func (l *load) record(resp *http.Response, err error, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.errors[err.Error()]++
		return
	}
	l.statuses[resp.StatusCode]++
	l.latencies = append(l.latencies, d)
}

func (l *load) progress(n *node, elapsed time.Duration) {
	text, err := fetch("http://" + n.admin + "/metrics")
	if err != nil {
		fmt.Printf("%8v  metrics: %v\n", elapsed.Round(time.Second), err)
		return
	}
	m := parseMetrics(text)
	l.mu.Lock()
	done := len(l.latencies)
	l.mu.Unlock()
	fmt.Printf("%8v  %d answered  heap %.1f MiB  rss %.1f MiB  goroutines %.0f  fds %.0f  cache %.1f/%.1f MiB (%.0f hits, %.0f misses, %.0f evictions)\n",
		elapsed.Round(time.Second), done, m["go_memstats_heap_alloc_bytes"]/(1<<20),
		m["process_resident_memory_bytes"]/(1<<20), m["go_goroutines"], m["process_open_fds"],
		m["stationdex_response_cache_bytes"]/(1<<20), m["stationdex_response_cache_max_bytes"]/(1<<20),
		m["stationdex_response_cache_hits_total"], m["stationdex_response_cache_misses_total"],
		m["stationdex_response_cache_evictions_total"])
}

func (l *load) closeIdle() { l.client.CloseIdleConnections() }

// report prints the outcome of every request sent; only 200s and shed
// 503s are acceptable under a steady load.
func (l *load) report() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	slices.Sort(l.latencies)
	pct := func(p int) time.Duration {
		if len(l.latencies) == 0 {
			return 0
		}
		return l.latencies[len(l.latencies)*p/100]
	}
	fmt.Printf("\nrequests: %d answered (statuses %v), %d failed; latency p50 %v, p99 %v\n",
		len(l.latencies), l.statuses, sum(l.errors), pct(50), pct(99))
	for e, k := range l.errors {
		fmt.Printf("  %d x %s\n", k, e)
	}
	ok := len(l.errors) == 0 && len(l.latencies) > 0
	for code, k := range l.statuses {
		if code != http.StatusOK && code != http.StatusServiceUnavailable {
			fmt.Printf("  %d answers with status %d\n", k, code)
			ok = false
		}
	}
	return ok
}

func sum(m map[string]int) int {
	n := 0
	for _, k := range m {
		n += k
	}
	return n
}

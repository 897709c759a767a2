// Command soak holds a stationdex node under steady load for minutes and
// fails when its resources grew: live heap, anonymous RSS, goroutines and
// open file descriptors are sampled after a warm-up and again after the
// load, and each must stay within a tolerance of where it was.
//
//	cd bench && go run ./soak [-bin ../bin/stationdex] [-index FILE -data DUMP] [-minutes 3] [-traffic cold|mix] [-cache-bytes N]
//
// The default traffic is cold: a stream of distinct searches, each a miss
// of the node's response cache that is stored and evicts an older one (the
// node runs with -cache-min-uses 1, so that every answer is stored: the
// worst case for memory). The node runs with a small cache (-cache-bytes,
// 2 MiB) that the warm-up
// fills, so the load runs against a full cache: heap and RSS must stay flat
// within its bound (growth by what the cache still had room for at the
// first sample is allowed), the cache itself must stay within its bound,
// and the load must have missed and evicted. -traffic mix replays the
// benchmark mix with pages and files, mostly cache hits. Either way, one
// request in three is what real traffic adds to searches that find
// stations (issue #24): a crawl of every page of the index (station,
// listening and directory pages, Markdown twins) and zero-result searches
// for misspelt words, made from the dump the index was built from.
//
// It starts `stationdex serve` itself on 127.0.0.1 (the demo, built into
// a temporary file, or -index), reads the node's Go and process metrics from its admin port
// (forcing a garbage collection first through /debug/pprof/heap?gc=1, so
// that the heap compared is the live one), reads anonymous RSS from
// /proc (file-backed pages of the memory-mapped index are cache, not
// growth), and stops the node with SIGTERM at the end. Every run is
// bounded by -duration; Ctrl-C stops it early, node included.
//
// File map:
//   - main.go: this comment; the flags and the procedure: warm-up,
//     samples at rest, load, comparison
//   - node.go: the `stationdex serve` process under test: start, log,
//     stop
//   - load.go: the steady load: the traffic's request targets, paced
//     workers and the count of outcomes
//   - realistic.go: the crawl and typo traffic added to either kind: the
//     index's pages and misspelt searches made from its dump
//   - sample.go: a sample of the node's resources (live heap, anonymous
//     RSS, goroutines, descriptors) and the report against the bounds
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// The kinds of traffic.
const (
	trafficCold = "cold"
	trafficMix  = "mix"
)

type config struct {
	bin, index, data, mix string
	traffic               string
	cacheBytes            int64
	duration, warmup      time.Duration
	rate, workers         int
	heapGrowth, rssGrowth float64 // allowed relative growth
	heapSlack, rssSlack   float64 // allowed absolute growth, bytes
	goroutineSlack        float64
	fdSlack               float64
}

func parseFlags() config {
	var c config
	flag.StringVar(&c.bin, "bin", "../bin/stationdex", "the stationdex binary (make build)")
	flag.StringVar(&c.index, "index", "", "index file to serve (default: the embedded demo)")
	flag.StringVar(&c.data, "data", "", "the dump -index was built from, for the typo searches (default: the demo's)")
	flag.StringVar(&c.mix, "mix", "queries/mix.tsv", "query mix of API searches; a few pages and files are added")
	flag.StringVar(&c.traffic, "traffic", trafficCold, "cold: distinct searches, each a response-cache miss; mix: the query mix with pages and files, repeated")
	flag.Int64Var(&c.cacheBytes, "cache-bytes", 2<<20, "the node's response cache bound (its -cache-bytes; 0 disables)")
	flag.DurationVar(&c.duration, "duration", 3*time.Minute, "how long the steady load lasts")
	minutes := flag.Float64("minutes", 0, "how long the steady load lasts, in minutes (make soak's SOAK_MINUTES); overrides -duration")
	flag.DurationVar(&c.warmup, "warmup", 20*time.Second, "load before the first sample, so caches and pools are warm")
	flag.IntVar(&c.rate, "rate", 300, "requests per second")
	flag.IntVar(&c.workers, "workers", 8, "concurrent clients")
	flag.Float64Var(&c.heapGrowth, "heap-growth", 0.25, "allowed growth of the live heap, relative")
	flag.Float64Var(&c.heapSlack, "heap-slack", 4<<20, "allowed growth of the live heap, bytes, on top")
	flag.Float64Var(&c.rssGrowth, "rss-growth", 0.25, "allowed growth of anonymous RSS, relative")
	flag.Float64Var(&c.rssSlack, "rss-slack", 16<<20, "allowed growth of anonymous RSS, bytes, on top")
	flag.Float64Var(&c.goroutineSlack, "goroutine-slack", 5, "allowed growth of the goroutine count")
	flag.Float64Var(&c.fdSlack, "fd-slack", 5, "allowed growth of open file descriptors")
	flag.Parse()
	if c.traffic != trafficCold && c.traffic != trafficMix {
		fmt.Fprintf(os.Stderr, "soak: -traffic %q: want cold or mix\n", c.traffic)
		os.Exit(2)
	}
	if *minutes > 0 {
		c.duration = time.Duration(*minutes * float64(time.Minute))
	}
	if err := checkIndexData(c.index, c.data); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	return c
}

func main() {
	c := parseFlags()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ok, err := soak(ctx, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	if !ok {
		fmt.Println("FAIL: resources grew beyond the tolerance, requests failed, or the cold load did not exercise the response cache")
		os.Exit(1)
	}
	fmt.Println("PASS: flat")
}

// soak runs the whole procedure and reports whether everything held.
func soak(ctx context.Context, c config) (bool, error) {
	qs, err := loadQueries(c.mix)
	if err != nil {
		return false, err
	}
	index := c.index
	if index == "" {
		var cleanup func()
		if index, cleanup, err = demoIndex(); err != nil {
			return false, err
		}
		defer cleanup()
	}
	realistic, err := realisticPaths(index, c.data)
	if err != nil {
		return false, fmt.Errorf("crawl and typos: %w", err)
	}
	n, err := startNode(c.bin, index, c.cacheBytes)
	if err != nil {
		return false, err
	}
	defer n.kill()
	fmt.Printf("soak: node pid %d on %s, index %s, response cache %d bytes; %s traffic with %d crawl pages and typo searches, %d req/s from %d clients, warm-up %v, load %v\n",
		n.pid(), n.addr, indexName(c.index), c.cacheBytes, c.traffic, len(realistic), c.rate, c.workers, c.warmup, c.duration)
	clients := newLoad(n.addr, mixPaths(qs), nil, realistic, c.workers)
	if c.traffic == trafficCold {
		clients = newLoad(n.addr, nil, distinctSearches(qs), realistic, c.workers)
	}
	if err := clients.run(ctx, c.rate, c.warmup, nil); err != nil {
		return false, err
	}
	before, err := atRest(n, clients)
	if err != nil {
		return false, err
	}
	if err := clients.run(ctx, c.rate, c.duration, n); err != nil {
		return false, err
	}
	after, err := atRest(n, clients)
	if err != nil {
		return false, err
	}
	held := report(c, before, after)
	requestsOK := clients.report()
	if err := n.stop(); err != nil {
		fmt.Println("node stop:", err)
		return false, nil
	}
	return held && requestsOK, nil
}

// atRest samples the node with no connection open, so that both samples
// count the same goroutines and descriptors: the node's own.
func atRest(n *node, l *load) (resources, error) {
	l.closeIdle()
	time.Sleep(2 * time.Second) // the node's connection goroutines end
	return n.sample()
}

func indexName(index string) string {
	if index == "" {
		return "embedded demo"
	}
	return index
}

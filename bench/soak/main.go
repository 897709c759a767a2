// Command soak holds a stationdex node under steady load for minutes and
// fails when its resources grew: live heap, anonymous RSS, goroutines and
// open file descriptors are sampled after a warm-up and again after the
// load, and each must stay within a tolerance of where it was.
//
//	cd bench && go run ./soak [-bin ../bin/stationdex] [-index FILE] [-minutes 3]
//
// It starts `stationdex serve` itself on 127.0.0.1 (the embedded demo, or
// -index), reads the node's Go and process metrics from its admin port
// (forcing a garbage collection first through /debug/pprof/heap?gc=1, so
// that the heap compared is the live one), reads anonymous RSS from
// /proc (file-backed pages of the memory-mapped index are cache, not
// growth), and stops the node with SIGTERM at the end. Every run is
// bounded by -duration; Ctrl-C stops it early, node included.
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

type config struct {
	bin, index, mix       string
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
	flag.StringVar(&c.mix, "mix", "queries/mix.tsv", "query mix of API searches; a few pages and files are added")
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
	if *minutes > 0 {
		c.duration = time.Duration(*minutes * float64(time.Minute))
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
		fmt.Println("FAIL: resources grew beyond the tolerance, or requests failed")
		os.Exit(1)
	}
	fmt.Println("PASS: flat")
}

// soak runs the whole procedure and reports whether everything held.
func soak(ctx context.Context, c config) (bool, error) {
	paths, err := loadPaths(c.mix)
	if err != nil {
		return false, err
	}
	n, err := startNode(c.bin, c.index)
	if err != nil {
		return false, err
	}
	defer n.kill()
	fmt.Printf("soak: node pid %d on %s, index %s; %d req/s from %d clients, warm-up %v, load %v\n",
		n.pid(), n.addr, indexName(c.index), c.rate, c.workers, c.warmup, c.duration)
	load := newLoad(n.addr, paths, c.workers)
	if err := load.run(ctx, c.rate, c.warmup, nil); err != nil {
		return false, err
	}
	before, err := atRest(n, load)
	if err != nil {
		return false, err
	}
	if err := load.run(ctx, c.rate, c.duration, n); err != nil {
		return false, err
	}
	after, err := atRest(n, load)
	if err != nil {
		return false, err
	}
	held := report(c, before, after)
	requestsOK := load.report()
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

package main

import (
	"bytes"
	"context"
	"fmt"

	"stationdex/bench/internal/engines"
	"stationdex/bench/internal/mix"
	"stationdex/bench/internal/raw"
	"stationdex/bench/internal/traffic"
	"stationdex/indexer"
	"stationdex/indexer/demo"
)

// The crawl and typo traffic of issue #24, added to either kind of
// traffic: one request in realisticEvery walks the node's pages (every
// station, listening and directory page and their Markdown twins, as a
// crawler does) or searches for a misspelt word, alternately.
const (
	realisticEvery = 3
	soakTypos      = 200
	soakSeed       = 20250227
)

// demoIndex builds the embedded demo into a temporary file, so that soak
// can read the pages and words the node serves; the node serves the same
// file.
func demoIndex() (string, func(), error) {
	return indexer.BuildDemoTemp(context.Background())
}

// realisticPaths lists the crawl of the index's pages and zero-result typo
// searches made from the stations of data (the dump the index was built
// from; "" for the demo's), each checked in process to find nothing, the
// two interleaved.
func realisticPaths(index, data string) ([]string, error) {
	e, err := engines.OpenStationdex(index)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	site, err := traffic.SiteOf(e.Ix)
	if err != nil {
		return nil, err
	}
	stations, err := readStations(data)
	if err != nil {
		return nil, err
	}
	zero := func(q mix.Query) bool {
		n, _, err := e.Search(q, false)
		return err == nil && n == 0
	}
	typos, err := traffic.Typos(traffic.NewSource(stations), soakSeed, soakTypos, zero)
	if err != nil {
		return nil, err
	}
	crawl := traffic.CrawlPaths(traffic.Crawl(site, soakSeed))
	return interleave(crawl, typoPaths(typos)), nil
}

func readStations(data string) ([]raw.Station, error) {
	if data != "" {
		return raw.ReadAll(data)
	}
	stations, _, err := raw.Read("demo", bytes.NewReader(demo.NDJSON))
	return stations, err
}

func typoPaths(ts []traffic.Typo) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Query.Path()
	}
	return out
}

// interleave alternates a and b while both last, then the rest of the
// longer.
func interleave(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	for i := 0; i < max(len(a), len(b)); i++ {
		if i < len(a) {
			out = append(out, a[i])
		}
		if i < len(b) {
			out = append(out, b[i])
		}
	}
	return out
}

// checkIndexData refuses an index without the dump it was built from: the
// typo searches are made from the dump's words.
func checkIndexData(index, data string) error {
	if index != "" && data == "" {
		return fmt.Errorf("-index %s needs -data, the dump it was built from (for the typo searches)", index)
	}
	return nil
}

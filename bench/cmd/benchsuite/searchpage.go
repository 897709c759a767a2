package main

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"stationdex/bench/internal/mix"
	"stationdex/bench/internal/traffic"
)

// The search page mixes (issue #43): the HTML search page (/search/) with
// its defaults (one result per group with its count of other entries,
// and the page's facets), asked the cold and the hot searches of the API
// mixes the way its form and pager ask them (traffic.SearchPagePath),
// each against a ceiling of its median page in the same run.

// noMatch is what the search page says when nothing matches.
const noMatch = "No station matches."

// searchPageCold loads the node with the cold searches' pages: probes,
// calibration and load as the cold mix split them, each page once (the
// searches that differ only in their limit are one page).
func (mb *mixBench) searchPageCold(ours *server, admin string, cold *coldSearches) error {
	probes, _ := traffic.SearchPages(cold.probes)
	calibration, _ := traffic.SearchPages(cold.calibration)
	load, _ := traffic.SearchPages(cold.load)
	sizes, err := mb.probePages("http://"+ours.addr, cold.probes)
	if err != nil {
		return err
	}
	m := &HTTPMix{Name: "search page cold", Distinct: len(load), Sequence: len(load), Checked: len(probes), Rounds: mb.rounds,
		BodyBytes: medianOf(sizes), Encodings: "identity (HTML)", ZeroShare: zeroShare(cold.load),
		What: fmt.Sprintf("the HTML search page (/search/) with its defaults (one result per group with its count of other entries, "+
			"and the page's facets) for %d distinct searches: the cold mix's, as the form and its pager ask for them (no limit, "+
			"offsets on a page boundary), a separate slice per round, each page requested once", len(load))}
	return mb.slicedLoad(m, ours, admin, calibration, load)
}

// searchPageHot loads the node with the hot sequence's pages, alternating
// rounds with a ceiling of the sequence's median page.
func (mb *mixBench) searchPageHot(ours *server, admin string, hot *traffic.Hot) error {
	pages, _ := traffic.SearchPages(hot.Queries)
	sizes, err := mb.probePages("http://"+ours.addr, hot.Queries)
	if err != nil {
		return err
	}
	weighted := make([]int, len(hot.Seq))
	for i, k := range hot.Seq {
		weighted[i] = sizes[k]
	}
	m := &HTTPMix{Name: "search page hot", Distinct: len(pages), Sequence: len(hot.Seq), Checked: len(pages),
		BodyBytes: medianOf(weighted), Encodings: "identity (HTML)", Rounds: mb.rounds, DurationSec: mb.load.dur.Seconds(),
		What: fmt.Sprintf("the HTML search page with its defaults for the hot mix's %d searches (%d pages: searches that differ "+
			"only in their limit are one page) under the same Zipf sequence of %d requests, cycled through", len(hot.Queries), len(pages), len(hot.Seq))}
	paths, err := mb.sv.dir.writeLines("paths-search-page-hot.txt", hot.SearchPagePaths())
	if err != nil {
		return err
	}
	if err := mb.alternate(m, ours, admin, paths); err != nil {
		return err
	}
	return mb.finish(m)
}

// probePages asks for the search page of every query once and returns
// each query's body size (a page asked again for another query of the
// same page is asked again). Every page must answer 200 with HTML, and say
// that nothing matches exactly when the engine, in process, finds nothing.
func (mb *mixBench) probePages(base string, qs []mix.Query) ([]int, error) {
	// A redirect is an answer of its own, not the page: wrk does not
	// follow it (nor count it as an error), so neither does the probe.
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	sizes := make([]int, len(qs))
	for i, q := range qs {
		total, _, err := mb.b.e.Search(q, false)
		if err != nil {
			return nil, err
		}
		path := traffic.SearchPagePath(q)
		resp, body, err := get(client, base+path, nil)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			return nil, fmt.Errorf("GET %s: status %d, Content-Type %q; want 200 and HTML", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if none := strings.Contains(string(body), noMatch); none != (total == 0) {
			return nil, fmt.Errorf("GET %s: the page says %q: %v, the engine finds %d stations", path, noMatch, none, total)
		}
		sizes[i] = len(body)
	}
	return sizes, nil
}

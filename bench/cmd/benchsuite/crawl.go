package main

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"stationdex/bench/internal/traffic"
)

// crawl is the crawl mix as probed: the pages of the base set, split into
// a calibration slice and the load, and the probe's figures.
type crawl struct {
	calibration, load []string
	bodyBytes         int    // median response size over every page
	kinds             string // pages per kind
	checked           int
	site              int // pages of the whole site, when more than checked
}

// maxCrawlPages bounds the crawl mix: the first pages of the shuffled
// crawl, so that a set of millions of stations (about five pages each)
// is probed in minutes, not hours. The real snapshot's 239,310 pages are
// all of them.
const maxCrawlPages = 400_000

// crawlPages lists every page of the base set (traffic.Crawl) and asks a
// node of its own for each once, wanting 200 from all of them: the node
// loaded later has never seen a page of the crawl, as a crawler's first
// visit finds it.
func (mb *mixBench) crawlPages() (*crawl, error) {
	site, err := traffic.SiteOf(mb.b.e.Ix)
	if err != nil {
		return nil, err
	}
	pages := traffic.Crawl(site, trafficSeed)
	all := len(pages)
	pages = pages[:min(all, maxCrawlPages)]
	probeNode, _, err := mb.sv.ours(mb.b.idx)
	if err != nil {
		return nil, err
	}
	defer probeNode.stop()
	sizes, err := probeCrawl("http://"+probeNode.addr, pages)
	if err != nil {
		return nil, err
	}
	calib := min(len(pages)/10, mb.coldPerRound/4)
	c := &crawl{calibration: traffic.CrawlPaths(pages[:calib]), load: traffic.CrawlPaths(pages[calib:]),
		bodyBytes: medianOf(sizes[calib:]), kinds: pageKinds(pages), checked: len(pages)}
	if all > len(pages) {
		c.site = all
	}
	mb.lg.logf("  crawl: %d pages answered 200 (%s); median %d bytes", len(pages), c.kinds, c.bodyBytes)
	return c, nil
}

// crawl loads ours and a ceiling of the crawl's median page size with
// the crawl's pages, each once, a separate slice per round, and profiles
// the node in the last round.
func (mb *mixBench) crawl(ours *server, admin string, c *crawl) error {
	sample := ""
	if c.site > 0 {
		sample = fmt.Sprintf("; the first %d of the site's %d pages in the shuffled order", c.checked, c.site)
	}
	m := &HTTPMix{Name: "crawl", Distinct: len(c.load), Sequence: len(c.load), Checked: c.checked, Rounds: mb.rounds,
		BodyBytes: c.bodyBytes, Encodings: "identity (HTML and Markdown)",
		What: fmt.Sprintf("%d distinct pages of the base set, as a crawler walks the site: every station page, listening page, "+
			"their Markdown twins, and every directory page (countries, languages, genres, locations: the indexes in both orders "+
			"and every page of every list, HTML and Markdown), shuffled, a separate slice per round, each page requested once "+
			"(%s in all, every one answered 200 on another node before the load%s)", len(c.load), c.kinds, sample)}
	return mb.slicedLoad(m, ours, admin, c.calibration, c.load)
}

// crawlWorkers ask for the crawl's pages in parallel: a few, so that the
// probe of a quarter of a million pages takes seconds, not minutes.
const crawlWorkers = 4

// probeCrawl asks for every page once and returns the body sizes; any page
// not answering 200, or a Markdown twin not answering Markdown, fails it.
func probeCrawl(base string, pages []traffic.Page) ([]int, error) {
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: crawlWorkers, DisableCompression: true}}
	sizes := make([]int, len(pages))
	errs := make([]error, len(pages))
	var wg sync.WaitGroup
	for w := range crawlWorkers {
		wg.Go(func() {
			for i := w; i < len(pages); i += crawlWorkers {
				sizes[i], errs[i] = probePage(client, base, pages[i])
			}
		})
	}
	wg.Wait()
	var failed []string
	for _, err := range errs {
		if err != nil {
			failed = append(failed, err.Error())
		}
	}
	if len(failed) > 0 {
		return nil, fmt.Errorf("%d of %d crawl pages failed: %s", len(failed), len(pages), strings.Join(failed[:min(5, len(failed))], "; "))
	}
	return sizes, nil
}

func probePage(client *http.Client, base string, p traffic.Page) (int, error) {
	resp, body, err := get(client, base+p.Path, nil)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != 200 {
		return 0, fmt.Errorf("GET %s: status %d", p.Path, resp.StatusCode)
	}
	ct := resp.Header.Get("Content-Type")
	if p.Markdown() != strings.Contains(ct, "markdown") {
		return 0, fmt.Errorf("GET %s (%s): Content-Type %s", p.Path, p.Kind, ct)
	}
	return len(body), nil
}

// pageKinds counts the pages of each kind, in the order of PageKinds.
func pageKinds(pages []traffic.Page) string {
	n := map[string]int{}
	for _, p := range pages {
		n[p.Kind]++
	}
	parts := make([]string, 0, len(traffic.PageKinds))
	for _, k := range traffic.PageKinds {
		parts = append(parts, fmt.Sprintf("%s %d", k, n[k]))
	}
	return strings.Join(parts, ", ")
}

package server

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"stationdex/indexer"
	"stationdex/indexer/realdata"
	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/query"
	"stationdex/server/core"
	"stationdex/server/files"
)

// The real data: the same checks as on the demo, on the 50,664 stations
// of the full snapshot, or on the sample where it is absent (realdata).

var realIndexOnce = sync.OnceValues(func() (*query.Index, error) {
	f, err := os.Open(realdata.Path())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dir, err := os.MkdirTemp("", "stationdex-pages-real-")
	if err != nil {
		return nil, err
	}
	testDirs.Lock()
	testDirs.list = append(testDirs.list, dir)
	testDirs.Unlock()
	path := filepath.Join(dir, "real.db")
	if _, err := indexer.Build(context.Background(), path, indexer.Options{Sections: format.SectionRBAPI}, indexer.Input{Name: realdata.FileName, R: f}); err != nil {
		return nil, err
	}
	return query.Open(path)
})

func realIx(t testing.TB) *query.Index {
	t.Helper()
	realdata.Need(t)
	if testing.Short() {
		t.Skip("-short: the real snapshot takes seconds to index")
	}
	if pagesRace {
		// These tests share no state between requests beyond what the
		// demo tests cover under -race; the non-race run crawls it all.
		t.Skip("race detector: the real-snapshot crawl runs in the non-race test run")
	}
	ix, err := realIndexOnce()
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestRealSitemapsResolve: every URL of every sitemap answers 200, every
// URL field of a sample of stations answers 200, and sampled pages pass the
// page checks.
func TestRealSitemapsResolve(t *testing.T) {
	ix := realIx(t)
	s := serverAt(t, ix, testBase)
	urls := sitemapURLs(t, s, testBase)
	stations := ix.Meta().Stations
	if len(urls) < stations {
		t.Fatalf("%d sitemap URLs for %d stations", len(urls), stations)
	}
	rng := rand.New(rand.NewPCG(20250227, 6))
	for _, u := range urls {
		target := local(t, testBase, u)
		rec := serve(s, "GET", target)
		if rec.Code != 200 {
			t.Fatalf("%s: status %d", u, rec.Code)
		}
		if rng.IntN(200) == 0 {
			var ext map[string]bool
			if id, ok := strings.CutPrefix(target, "/stations/"); ok {
				ext = externalOf(t, ix, strings.TrimSuffix(id, "/"))
			}
			checkHTMLPage(t, rec, testBase, ext)
		}
	}
	checkEveryStationURLListed(t, s, urls)
	ids := allStationIDs(t, ix)
	for range 300 {
		id := ids[rng.IntN(len(ids))]
		st := stationOf(t, s, id)
		ext := externalOf(t, ix, id)
		for _, u := range stationURLs(&st) {
			target := local(t, testBase, u)
			rec := fetchOK(t, s, target)
			if strings.HasPrefix(target, "/stations/") {
				checkHTMLPage(t, rec, testBase, ext)
				checkMarkdownPage(t, fetchOK(t, s, target+core.MarkdownIndex), testBase, ext)
			}
		}
	}
}

// TestRealPagesAndFiles: every resource beside the pages (OpenAPI,
// capabilities, dumps and catalog, sitemap, llms.txt) on the real snapshot,
// parsed.
func TestRealPagesAndFiles(t *testing.T) {
	ix := realIx(t)
	s := serverAt(t, ix, testBase)
	for _, target := range []string{"/", "/search/?q=radio+comercial", "/search/?country=de&genre=jazz&offset=20", "/guide/",
		"/countries/", "/languages/?page=2", "/genres/?page=3", "/locations/", "/countries/de/?page=3"} {
		checkHTMLPage(t, fetchOK(t, s, target), testBase, nil)
		checkMarkdownPage(t, fetchOK(t, s, target, "Accept", "text/markdown"), testBase, nil)
	}
	checkMarkdownPage(t, fetchOK(t, s, "/text/index.md"), testBase, nil)
	fetchOK(t, s, "/llms.txt")
	fetchOK(t, s, "/.well-known/radio-directory.json")
	fetchOK(t, s, "/openapi.json")
	checkDumps(t, ix, testBase)
}

// checkEveryStationURLListed: every URL field of every station (read from
// the NDJSON dump) is a page the sitemaps list, and every one of those
// answered 200 above; the listening page is the station page's listen/.
func checkEveryStationURLListed(t *testing.T, s *Server, sitemap []string) {
	listed := make(map[string]bool, len(sitemap))
	for _, u := range sitemap {
		listed[u] = true
	}
	dump := fetchOK(t, s, "/data/stations.ndjson", "Accept-Encoding", "gzip")
	err := files.EachDumpedStation(bytes.NewReader(dump.Body.Bytes()), func(st *stationjson.Station) error {
		if st.ListenURL != st.PageURL+"listen/" {
			t.Errorf("%s: listen_url %q", st.ID, st.ListenURL)
		}
		for _, u := range stationURLs(st) {
			if u != st.ListenURL && !listed[u] {
				t.Errorf("%s: %s is in no sitemap", st.ID, u)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

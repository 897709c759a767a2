package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"stationdex/indexer"
	"stationdex/indexer/demo"
	"stationdex/query"
)

// awkwardTags are values the real directory holds that a link must
// survive: a tag longer than the genre filter takes, punctuation only,
// quotes, slashes, percent signs, spaces and non-Latin scripts.
var awkwardTags = []string{
	strings.Repeat("keyword stuffed ", 5), // 80 characters: over the filter's 60
	"#", "##browserfriendly", `"bob"`, "rock/pop", "100%", "a b", "música", "流行", "ポップ", "поп",
}

// awkwardIndex is the demo snapshot plus stations carrying awkwardTags as
// genres, languages and locations.
func awkwardIndex(t *testing.T) *query.Index {
	t.Helper()
	var base map[string]any
	first, _, _ := bytes.Cut(demo.NDJSON, []byte("\n"))
	if err := json.Unmarshal(first, &base); err != nil {
		t.Fatal(err)
	}
	var lines bytes.Buffer
	lines.Write(demo.NDJSON)
	for i, tag := range awkwardTags {
		base["stationuuid"] = fmt.Sprintf("00000000-0000-4000-8000-%012d", 900+i)
		base["name"] = "Awkward " + tag
		base["tags"] = tag
		base["language"] = tag
		base["state"] = tag
		line, err := json.Marshal(base)
		if err != nil {
			t.Fatal(err)
		}
		lines.Write(append(line, '\n'))
	}
	return indexOf(t, demo.Source, lines.Bytes())
}

// indexOf builds an index of ndjson records under source, at the demo's
// snapshot time, and opens it for one test.
func indexOf(t *testing.T, source string, ndjson []byte) *query.Index {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	opts := indexer.Options{SnapshotAt: demo.SnapshotAt, Source: source}
	if _, err := indexer.Build(context.Background(), path, opts, indexer.Input{Name: "test", R: bytes.NewReader(ndjson)}); err != nil {
		t.Fatal(err)
	}
	ix, err := query.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	return ix
}

// maxSortedTargets is how many searches in another order than relevance
// the crawl checks.
const maxSortedTargets = 300

// TestEveryLinkAnswers crawls the site from the home page through every
// link, form action and resource the pages print under the base URL, HTML
// pages and Markdown twins alike: each must answer 2xx or 3xx.
func TestEveryLinkAnswers(t *testing.T) {
	t.Parallel() // one of the long tests, run beside each other (server_test.go)
	s := serverAt(t, awkwardIndex(t), testBase)
	seen := map[string]bool{"/": true}
	queue := []string{"/"}
	sorted := 0
	for len(queue) > 0 {
		target := queue[0]
		queue = queue[1:]
		rec := serve(s, http.MethodGet, target)
		if rec.Code >= 400 {
			t.Errorf("%s: status %d", target, rec.Code)
			continue
		}
		if !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") || strings.Contains(target, "sort=") {
			// A search in another order links what the same search by
			// relevance does, in that order: followed, the orders would
			// multiply the crawl of every search by five.
			continue
		}
		for _, u := range parseHTMLPage(t, rec.Body.Bytes()).urls {
			next, ok := strings.CutPrefix(u, testBase)
			if next == "" {
				next = "/"
			}
			if !ok || seen[next] {
				continue
			}
			if strings.Contains(next, "sort=") {
				// Each search links itself in four more orders: a sample
				// of them is checked, or the crawl would be five times as
				// long.
				if sorted >= maxSortedTargets {
					continue
				}
				sorted++
			}
			seen[next] = true
			queue = append(queue, next)
		}
	}
	for i := range awkwardTags {
		st := stationOf(t, s, fmt.Sprintf("00000000-0000-4000-8000-%012d", 900+i))
		for _, u := range stationURLs(&st) {
			if !seen[local(t, testBase, u)] {
				t.Errorf("the crawl never reached %s", u)
			}
		}
	}
	t.Logf("%d targets answer", len(seen))
}

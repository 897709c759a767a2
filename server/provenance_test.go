package server

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"stationdex/indexer"
	"stationdex/indexer/demo"
	"stationdex/query"
)

// TestDemoSaysItIsTheDemo: the demo's pages, llms.txt and data catalogue
// call its stations fictional and credit no one else for them; the same
// stations indexed as Radio Browser data credit its contributors.
func TestDemoSaysItIsTheDemo(t *testing.T) {
	real := realSourceIndex(t)
	for _, target := range []string{"/", "/index.md", "/llms.txt", "/data/catalog.json", "/no/such/page/"} {
		demoBody := serve(newDemoServer(t, nil), http.MethodGet, target).Body.String()
		for _, never := range []string{"radio-browser.info", "fixed snapshot of stationdex demo"} {
			if strings.Contains(demoBody, never) {
				t.Errorf("demo %s says %q", target, never)
			}
		}
		if !strings.Contains(demoBody, "fictional") {
			t.Errorf("demo %s does not say its stations are fictional", target)
		}
		realBody := serve(serverAt(t, real, testBase), http.MethodGet, target).Body.String()
		if !strings.Contains(realBody, "contributors of radio-browser.info") || strings.Contains(realBody, "fictional") {
			t.Errorf("real-data %s lacks the credit to radio-browser.info's contributors", target)
		}
	}
}

// realSourceIndex is the demo's records indexed under the default
// (Radio Browser) source name.
func realSourceIndex(t *testing.T) *query.Index {
	t.Helper()
	path := filepath.Join(t.TempDir(), "real.db")
	opts := indexer.Options{SnapshotAt: demo.SnapshotAt, Source: indexer.DefaultSource}
	if _, err := indexer.Build(context.Background(), path, opts, indexer.Input{Name: "real", R: bytes.NewReader(demo.NDJSON)}); err != nil {
		t.Fatal(err)
	}
	ix, err := query.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	return ix
}

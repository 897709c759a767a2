package server

import (
	"net/http"
	"strings"
	"testing"

	"stationdex/indexer"
	"stationdex/indexer/demo"
)

// TestDemoSaysItIsTheDemo: the demo's pages, llms.txt and data catalogue
// call its stations fictional and credit no one else for them; the same
// stations indexed as Radio Browser data credit its contributors.
func TestDemoSaysItIsTheDemo(t *testing.T) {
	real := indexOf(t, indexer.DefaultSource, demo.NDJSON)
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

package server

import (
	"cmp"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"stationdex/server/core"
	"stationdex/server/rbapi"
)

// TestOpenAPIUpstreamPaths holds the /json/ paths of openapi.json to the
// routing table (upEndpointOf) and the parameter rows: every documented
// path is tagged radio-browser-compatible and routes to an endpoint
// taking exactly the parameters documented, in row order, each spelt as
// its row; a documented 403 is the read-only refusal; and every path the
// table serves (each list and exact by-column path) is documented.
func TestOpenAPIUpstreamPaths(t *testing.T) {
	raw, err := os.ReadFile("files/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Tags       []string
			Parameters []struct {
				Ref  string `json:"$ref"`
				Name string
				In   string
			}
			Responses map[string]any
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	documented := 0
	for path, item := range doc.Paths {
		if !strings.HasPrefix(path, core.PathRBAPI) {
			continue
		}
		documented++
		for method, op := range item {
			if !slices.Equal(op.Tags, []string{"radio-browser-compatible"}) {
				t.Errorf("%s %s: tags %v", method, path, op.Tags)
			}
			var names []string
			for _, p := range op.Parameters {
				if name, ok := strings.CutPrefix(p.Ref, "#/components/parameters/up."); ok {
					names = append(names, name)
				}
			}
			ep, _, err := rbapi.UpEndpointOf(strings.Split(strings.TrimPrefix(concretePath(path), core.PathRBAPI), "/"))
			_, refused := op.Responses["403"]
			switch {
			case refused && !errors.Is(err, rbapi.ErrReadOnly):
				t.Errorf("%s: documented 403, routed to %v", path, err)
			case !refused && err != nil:
				t.Errorf("%s: documented, routed to %v", path, err)
			case !refused && cmp.Or(strings.Join(names, ", "), "none") != ep.Takes.Names():
				t.Errorf("%s %s: documents %v, takes %s", method, path, names, ep.Takes.Names())
			}
		}
	}
	for _, path := range servedUpPaths() {
		if _, ok := doc.Paths[path]; !ok {
			t.Errorf("%s is served and not documented", path)
		}
	}
	if documented < 20 {
		t.Fatalf("only %d /json/ paths documented", documented)
	}
}

// concretePath fills a documented path's templates with values that route.
func concretePath(path string) string {
	return strings.NewReplacer("{uuid}", "cbbf6759-8124-405d-a884-3bd8732946bd", "{term}", "x",
		"{filter}", "x", "{country}", "x", "{count}", "5").Replace(path)
}

// servedUpPaths lists the templated paths the routing table serves with
// a 200: the fixed ones, each list with and without {filter}, each
// by-column path and each fixed-order path with and without {count}.
func servedUpPaths() []string {
	paths := []string{"/json/stations", "/json/stations/search", "/json/stations/byuuid", "/json/stations/byuuid/{uuid}",
		"/json/stations/byurl", "/json/url/{uuid}", "/json/stats", "/json/servers", "/json/states/{country}/{filter}"}
	for _, l := range []string{"countries", "countrycodes", "codecs", "languages", "tags", "states"} {
		if rbapi.UpListOf(l) != nil {
			paths = append(paths, core.PathRBAPI+l, core.PathRBAPI+l+"/{filter}")
		}
	}
	for by := range rbapi.UpColumns {
		paths = append(paths, core.PathRBAPI+"stations/"+by+"/{term}")
	}
	for top := range rbapi.UpTops {
		paths = append(paths, core.PathRBAPI+"stations/"+top, core.PathRBAPI+"stations/"+top+"/{count}")
	}
	return paths
}

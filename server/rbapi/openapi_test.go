package rbapi

import (
	"cmp"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"stationdex/server/core"
)

// TestOpenAPIRBAPIPaths holds the /json/ paths of openapi.json to the
// Radio Browser API's table (Endpoints) and the parameter rows:
// every documented path is tagged radio-browser-compatible and is a row
// taking exactly the parameters documented, in row order, each spelt as
// its row; a documented 403 is the read-only refusal; and every path the
// table serves (each list and exact by-column path) is documented.
func TestOpenAPIRBAPIPaths(t *testing.T) {
	raw, err := os.ReadFile("../files/openapi.json")
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
	endpoints := Endpoints()
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
			i := slices.IndexFunc(endpoints, func(e Endpoint) bool { return sameShape(path, e.Pattern) })
			_, refused := op.Responses["403"]
			_, notServed := op.Responses["501"]
			notServed = notServed && op.Responses["200"] == nil
			switch {
			case i < 0:
				t.Errorf("%s: documented, and no row of the table", path)
			case refused && !errors.Is(endpoints[i].Refusal, ErrReadOnly):
				t.Errorf("%s: documented 403, the row %s refuses with %v", path, endpoints[i].Pattern, endpoints[i].Refusal)
			case notServed:
				var e *core.Error
				if !errors.As(endpoints[i].Refusal, &e) || e.Code != core.CodeNotImplemented {
					t.Errorf("%s: documented as not served, the row %s answers %v", path, endpoints[i].Pattern, endpoints[i].Refusal)
				}
			case !refused && endpoints[i].Refusal != nil:
				t.Errorf("%s: documented, the row %s refuses with %v", path, endpoints[i].Pattern, endpoints[i].Refusal)
			case !refused && cmp.Or(strings.Join(names, ", "), "none") != endpoints[i].Takes.Names():
				t.Errorf("%s %s: documents %v, takes %s", method, path, names, endpoints[i].Takes.Names())
			}
		}
	}
	served := 0
	for _, e := range endpoints {
		if path := documentedPath(e.Pattern); doc.Paths[path] == nil && !strings.HasSuffix(path, "/{path}") && !errors.Is(e.Refusal, ErrReadOnly) {
			t.Errorf("%s is answered and not documented (as %s)", e.Pattern, path)
		}
		if e.Refusal == nil {
			served++
			for _, method := range []string{"get", "head", "post"} {
				if doc.Paths[documentedPath(e.Pattern)][method].Responses == nil {
					t.Errorf("%s: no %s operation documented", e.Pattern, method)
				}
			}
		}
	}
	if documented < 20 || served < 20 {
		t.Fatalf("only %d /json/ paths documented, %d served", documented, served)
	}
}

// sameShape reports whether the documented path (templates in braces)
// is the row's pattern (":name" one segment, "*name" the rest of the
// path, one segment or more).
func sameShape(documented, pattern string) bool {
	d, p := strings.Split(documented, "/"), strings.Split(pattern, "/")
	for i, part := range p {
		if strings.HasPrefix(part, "*") {
			return len(d) > i
		}
		if i >= len(d) {
			return false
		}
		if param := strings.HasPrefix(part, ":"); param != strings.HasPrefix(d[i], "{") || !param && part != d[i] {
			return false
		}
	}
	return len(d) == len(p)
}

// documentedPath is a row's pattern as openapi.json writes a path.
func documentedPath(pattern string) string {
	parts := strings.Split(pattern, "/")
	for i, part := range parts {
		if strings.HasPrefix(part, ":") || strings.HasPrefix(part, "*") {
			parts[i] = "{" + part[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}

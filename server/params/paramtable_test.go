package params

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"stationdex/server/core"
)

// openAPIParam is what the test compares of one parameter of the search
// operation in openapi.json.
type openAPIParam struct {
	Name   string `json:"name"`
	Schema struct {
		Type      string   `json:"type"`
		MaxLength int      `json:"maxLength"`
		Pattern   string   `json:"pattern"`
		Minimum   *float64 `json:"minimum"`
		Maximum   *float64 `json:"maximum"`
		Default   *float64 `json:"default"`
		Items     struct {
			Enum []string `json:"enum"`
		} `json:"items"`
	} `json:"schema"`
}

// TestOpenAPIParametersAreTheRows holds the committed OpenAPI document
// equal to the parameter table: the same parameters in the same order,
// each with the type, bounds, default, pattern and choices of its row.
func TestOpenAPIParametersAreTheRows(t *testing.T) {
	raw, err := os.ReadFile("../files/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []openAPIParam `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	params := doc.Paths[core.PathStations]["get"].Parameters
	if len(params) != len(SearchParamTable) {
		t.Fatalf("openapi.json lists %d parameters, the table %d", len(params), len(SearchParamTable))
	}
	for i, p := range params {
		row := &SearchParamTable[i]
		if p.Name != row.Name {
			t.Fatalf("parameter %d: openapi.json %s, table %s", i, p.Name, row.Name)
		}
		sameParam(t, p, row)
	}
}

func sameParam(t *testing.T, p openAPIParam, row *param) {
	t.Helper()
	spec, s := row.Spec, p.Schema
	same := func(a *float64, b float64, set bool) bool {
		return set == (a != nil) && (a == nil || math.Abs(*a-b) < 1e-9)
	}
	switch {
	case s.Type != spec.Type:
		t.Errorf("%s: type %s, table %s", p.Name, s.Type, spec.Type)
	case s.MaxLength != spec.MaxLength || s.Pattern != spec.Pattern:
		t.Errorf("%s: maxLength %d pattern %q, table %d %q", p.Name, s.MaxLength, s.Pattern, spec.MaxLength, spec.Pattern)
	case !same(s.Maximum, spec.Maximum, spec.Maximum != 0):
		t.Errorf("%s: maximum %v, table %v", p.Name, s.Maximum, spec.Maximum)
	case spec.Minimum != nil && !same(s.Minimum, *spec.Minimum, true), spec.Minimum == nil && s.Minimum != nil:
		t.Errorf("%s: minimum %v, table %v", p.Name, s.Minimum, spec.Minimum)
	case spec.Default != nil && !same(s.Default, *spec.Default, true), spec.Default == nil && s.Default != nil && row.Group != GroupPaging:
		t.Errorf("%s: default %v, table %v", p.Name, s.Default, spec.Default)
	case len(s.Items.Enum) > 0 && !slices.Equal(s.Items.Enum, spec.Items):
		t.Errorf("%s: choices %q, table %q", p.Name, s.Items.Enum, spec.Items)
	}
}

// TestAPIDocListsEveryParameter: the parameter table of API.md has a
// line for every row, in the table's order, and none for anything else.
func TestAPIDocListsEveryParameter(t *testing.T) {
	doc, err := os.ReadFile("../API.md")
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cell := strings.Split(line, "|")[1]
		for _, name := range strings.Split(cell, ",") {
			listed = append(listed, strings.Trim(strings.TrimSpace(name), "`"))
		}
	}
	var want []string
	for i := range SearchParamTable {
		want = append(want, SearchParamTable[i].Name)
	}
	if len(listed) < len(want) || !slices.Equal(listed[:len(want)], want) {
		t.Errorf("API.md lists %q, the table has %q", listed, want)
	}
}

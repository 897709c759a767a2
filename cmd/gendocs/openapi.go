package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"stationdex/internal/dim"
	"stationdex/internal/format"
)

// The search operation and the answer whose entries the rows write.
const (
	searchPath     = "/api/stations"
	searchResponse = "SearchResponse"
	facetEntry     = "#/components/schemas/FacetEntry"
)

// openAPI writes the rows' entries into the OpenAPI document: each
// dimension's search parameter, the facets parameter's choices, the echo
// of each dimension echoed only when given, each facet of the answer, and
// the lists of facets and of parameters in the example error messages.
func openAPI(doc *value) error {
	params := doc.path("paths", searchPath, "get", "parameters")
	answer := doc.path("components", "schemas", searchResponse, "properties")
	facetsOut := answer.path("facets", "properties")
	facetsIn, limit := param(params, "facets"), param(params, "facet_limit")
	if params == nil || answer == nil || facetsOut == nil || facetsIn == nil || limit == nil {
		return fmt.Errorf("openapi.json: no search operation with facets and facet_limit, or no %s with facets", searchResponse)
	}
	prev := "q"
	for d := range dim.Count {
		setParam(params, dimParam(&dim.Rows[d]), prev)
		prev = dim.Rows[d].Name
	}
	names := facetNames()
	facetsIn.set("description", str("Facets to count, comma-separated (or the parameter repeated), each at most once: "+
		strings.Join(names, ", ")+". The response then carries facets: for each one asked for, the values with the most "+
		"matching stations and a URL of the search narrowed to each."), "")
	schema := facetsIn.get("schema")
	schema.set("maxItems", num(strconv.Itoa(len(names))), "")
	enum := arr()
	for _, n := range names {
		enum.items = append(enum.items, str(n))
	}
	schema.get("items").set("enum", enum, "")
	echoAfter, facetAfter := "radius_km", ""
	for d := range dim.Count {
		r := &dim.Rows[d]
		if !r.Param.EchoAlways {
			answer.set(r.Name, obj("type", str(echoType(r)), "description", str("Echo of the "+r.Name+" filter; present only when given.")), echoAfter)
			echoAfter = r.Name
		}
		if r.Facet {
			most := limit.path("schema", "maximum")
			if r.Flag.Field != "" {
				most = num("2") // true and false
			}
			facetsOut.set(r.Name, obj("description", str(r.Doc.Facet), "type", str("array"), "maxItems", most,
				"items", obj("$ref", str(facetEntry))), facetAfter)
			facetAfter = r.Name
		}
	}
	all := paramNames(params)
	doc.walkStrings(func(s string) string {
		s = facetList.ReplaceAllLiteralString(s, "is not one of "+strings.Join(names, ", "))
		return paramList.ReplaceAllLiteralString(s, "the allowed parameters are "+strings.Join(all, ", "))
	})
	return nil
}

// The lists the example error messages give.
var (
	facetList = regexp.MustCompile(`is not one of [a-z_]+(, [a-z_]+)*`)
	paramList = regexp.MustCompile(`the allowed parameters are [a-z_]+(, [a-z_]+)*`)
)

// dimParam is a dimension's search parameter.
func dimParam(r *dim.Row) *value {
	p := obj("name", str(r.Name), "in", str("query"), "description", str(r.Doc.Param))
	var schema *value
	switch r.Param.Value {
	case dim.Code:
		schema = obj("type", str("string"), "pattern", str(r.Param.Pattern))
	case dim.Text:
		schema = obj("type", str("string"), "minLength", num("1"), "maxLength", num(strconv.Itoa(format.MaxFilterRunes)))
	case dim.List:
		p.set("style", str("form"), "")
		p.set("explode", num("false"), "")
		schema = obj("type", str("array"), "minItems", num("1"), "maxItems", num(strconv.Itoa(len(r.Param.Items))),
			"items", obj("type", str("string"), "pattern", str(r.Param.Pattern)), "uniqueItems", num("true"))
	case dim.Boolean:
		schema = obj("type", str("boolean"))
	}
	p.set("schema", schema, "")
	if r.Doc.Example != "" {
		ex, err := parse([]byte(r.Doc.Example))
		if err != nil {
			panic(fmt.Sprintf("dim %s: example: %v", r.Name, err)) // a row's constant
		}
		p.set("example", ex, "")
	}
	return p
}

// echoType is the JSON type of a dimension's echo.
func echoType(r *dim.Row) string {
	if r.Param.Value == dim.Boolean {
		return "boolean"
	}
	return "string"
}

// facetNames are the dimensions a search can count, in the table's order.
func facetNames() []string {
	var names []string
	for d := range dim.Count {
		if d.Facetable() {
			names = append(names, d.Name())
		}
	}
	return names
}

// param is the parameter named name of a list of parameters.
func param(params *value, name string) *value {
	if params == nil {
		return nil
	}
	for _, p := range params.items {
		if p.get("name").text() == name {
			return p
		}
	}
	return nil
}

// setParam puts p in the list in the place of the parameter of its name,
// else after the one named after.
func setParam(params, p *value, after string) {
	name := p.get("name").text()
	at := len(params.items)
	for i, q := range params.items {
		switch q.get("name").text() {
		case name:
			params.items[i] = p
			return
		case after:
			at = i + 1
		}
	}
	params.items = append(params.items[:at], append([]*value{p}, params.items[at:]...)...)
}

// paramNames are the names of a list of parameters, in order.
func paramNames(params *value) []string {
	var names []string
	for _, p := range params.items {
		names = append(names, p.get("name").text())
	}
	return names
}

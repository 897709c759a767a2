package server

import (
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"stationdex/internal/dim"
	"stationdex/server/core"
	"stationdex/server/files"
	"stationdex/server/params"
)

// The capabilities document may promise nothing the parser refuses and
// hide no limit it enforces: each parameter it lists is tried at its
// bounds and just past them, each list item alone, and each Requires
// rule both ways, against the real handler.

// capPartner is a valid value of each parameter another one requires.
var capPartner = map[string]string{"near": "38.7223,-9.1393", "facets": "country"}

// capSamples are values of the parameters with a pattern: those in range
// (accepted when they match), those out of range (refused although they
// match), and shapes that a pattern must refuse or let through exactly
// as the parser does.
var capSamples = map[string]struct{ inRange, outOfRange []string }{
	"country":  {inRange: []string{"de", "US", "pT"}},
	"location": {inRange: []string{"berlin", "Zürich", strings.Repeat("a", 60)}},
	"near": {inRange: []string{"-33.8688,151.2093", "0,0", "90,-180", "-90,180", "-0.5,007"},
		outOfRange: []string{"91,0", "0,181", "-90.5,0", "0.0000000000000000001,0"}},
}

// booleanSamples are the values of every boolean parameter (a dimension
// whose row takes true or false): those two, and what looks like them.
var booleanSamples = struct{ inRange, outOfRange []string }{
	inRange: []string{"true", "false"}, outOfRange: []string{"TRUE", "1", "yes", "", "true,false"}}

// samplesOf is the samples of parameter name: its own, or a boolean's.
func samplesOf(name string) struct{ inRange, outOfRange []string } {
	if d, ok := dim.ByName(name); ok && dim.Rows[d].Param.Value == dim.Boolean {
		return booleanSamples
	}
	return capSamples[name]
}

var capShapes = []string{"+1.5,-2", "d", "deu", "é1", "38.7", "38.7;-9.1", "a,b", "1,2,3", "1.,2", ".5,1", "1e2,3", " 1,2", "1, 2", "0x1,2", "NaN,1", "Inf,0", "1,"}

func fetchCapabilities(t *testing.T, s *Server) files.Capabilities {
	t.Helper()
	var c files.Capabilities
	if err := json.Unmarshal(fetchOK(t, s, core.PathCapabilities).Body.Bytes(), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestWellKnownParametersAsParsed(t *testing.T) {
	s := newDemoServer(t, nil)
	c := fetchCapabilities(t, s)
	byName := map[string]params.CapLimit{}
	for _, group := range []map[string]params.CapLimit{c.Filters, c.Paging, c.Facets.Parameters} {
		for name, l := range group {
			byName[name] = l
		}
	}
	wanted := []string{"q", "bitrate_min", "bitrate_max", "near", "radius_km", "facets", "facet_limit", "limit", "offset"}
	for _, row := range dim.Rows {
		wanted = append(wanted, row.Name)
	}
	for _, want := range wanted {
		if _, ok := byName[want]; !ok {
			t.Errorf("capabilities do not list %s", want)
		}
	}
	for name, l := range byName {
		t.Run(name, func(t *testing.T) {
			for _, v := range capAccepted(name, l) {
				capExpect(t, s, name, v, l.Requires, http.StatusOK)
			}
			for _, v := range capRefused(name, l) {
				capExpect(t, s, name, v, l.Requires, http.StatusBadRequest)
			}
			if l.Pattern != "" {
				re := regexp.MustCompile(l.Pattern)
				for _, v := range capShapes {
					if !re.MatchString(v) {
						capExpect(t, s, name, v, l.Requires, http.StatusBadRequest)
					}
				}
			}
			if l.Requires != "" {
				if rec := serve(s, http.MethodGet, core.PathStations+"?"+name+"="+url.QueryEscape(capAccepted(name, l)[0])); rec.Code != http.StatusBadRequest || errorCode(t, rec) != core.CodeInvalidParameter {
					t.Errorf("%s without %s: status %d, want 400 invalid_parameter", name, l.Requires, rec.Code)
				}
			}
		})
	}
}

// capAccepted is values the rule allows: the bounds, the default, each
// list item in lower case, every list item at once, the samples in range.
func capAccepted(name string, l params.CapLimit) []string {
	var vs []string
	if l.Minimum != nil {
		vs = append(vs, capNum(*l.Minimum), capNum(l.Maximum))
	}
	if l.Default != nil {
		vs = append(vs, capNum(*l.Default))
	}
	for _, it := range l.Items {
		vs = append(vs, strings.ToLower(it))
	}
	if len(l.Items) > 0 {
		vs = append(vs, strings.Join(l.Items, ","))
	}
	vs = append(vs, samplesOf(name).inRange...)
	if len(vs) == 0 {
		vs = append(vs, "de") // the free-text filters
	}
	return vs
}

// capRefused is values just past the rule: below and above the bounds, a
// list with an unknown, empty or repeated item (lists take each item
// once), samples out of range, one character too many.
func capRefused(name string, l params.CapLimit) []string {
	var vs []string
	if l.Minimum != nil {
		step := 1.0
		if l.Type == "number" {
			step = 0.01
		}
		vs = append(vs, capNum(*l.Minimum-step), capNum(l.Maximum+step))
	}
	if len(l.Items) > 0 {
		vs = append(vs, l.Items[0]+",nosuch", l.Items[0]+",", ","+l.Items[0], "", l.Items[0]+","+strings.ToLower(l.Items[0]))
	}
	vs = append(vs, samplesOf(name).outOfRange...)
	if l.MaxLength > 0 {
		vs = append(vs, strings.Repeat("a", l.MaxLength+1))
	}
	return vs
}

// capNum writes a bound as a client would: rounded to 6 decimals, so
// 0.1-0.01 is 0.09, not 0.09000000000000001.
func capNum(f float64) string { return strconv.FormatFloat(math.Round(f*1e6)/1e6, 'f', -1, 64) }

func capExpect(t *testing.T, s *Server, name, value, requires string, status int) {
	t.Helper()
	target := core.PathStations + "?" + name + "=" + url.QueryEscape(value)
	if requires != "" {
		target += "&" + requires + "=" + url.QueryEscape(capPartner[requires])
	}
	rec := serve(s, http.MethodGet, target)
	if rec.Code != status {
		t.Errorf("%s: status %d, want %d: %.200s", target, rec.Code, status, rec.Body)
		return
	}
	if status == http.StatusBadRequest && errorCode(t, rec) != core.CodeInvalidParameter {
		t.Errorf("%s: not invalid_parameter", target)
	}
}

// TestWellKnownPatternsMatch: the document's patterns are valid regular
// expressions and the same as the OpenAPI document's.
func TestWellKnownPatternsMatch(t *testing.T) {
	s := newDemoServer(t, nil)
	c := fetchCapabilities(t, s)
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name   string
				Schema struct{ Pattern string }
			}
		}
	}
	if err := json.Unmarshal(files.OpenAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
	openapi := map[string]string{}
	for _, p := range doc.Paths["/api/stations"]["get"].Parameters {
		openapi[p.Name] = p.Schema.Pattern
	}
	for name, l := range c.Filters {
		if l.Pattern == "" {
			continue
		}
		if _, err := regexp.Compile(l.Pattern); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if openapi[name] != l.Pattern {
			t.Errorf("%s: pattern %q here, %q in openapi.json", name, l.Pattern, openapi[name])
		}
	}
}

// TestWellKnownFacetsAndSuggestions: each listed dimension is a facet the
// search answers with, and the suggestion limit is the one applied.
func TestWellKnownFacetsAndSuggestions(t *testing.T) {
	s := newDemoServer(t, nil)
	c := fetchCapabilities(t, s)
	for _, d := range c.Facets.Dimensions {
		var env struct{ Facets map[string]json.RawMessage }
		if err := json.Unmarshal(fetchOK(t, s, core.PathStations+"?facets="+d).Body.Bytes(), &env); err != nil {
			t.Fatal(err)
		}
		if keys := mapKeys(env.Facets); !slices.Equal(keys, []string{d}) {
			t.Errorf("facets=%s answers facets %v", d, keys)
		}
	}
	if !slices.Equal(c.Facets.Dimensions, c.Facets.Parameters["facets"].Items) {
		t.Errorf("dimensions %v, facets takes %v", c.Facets.Dimensions, c.Facets.Parameters["facets"].Items)
	}
	if c.Suggestions.MaxItems != 5 || c.Suggestions.When == "" {
		t.Errorf("suggestions %+v", c.Suggestions)
	}
}

func mapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

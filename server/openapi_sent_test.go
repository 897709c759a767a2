package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"stationdex/server/core"
	"stationdex/server/files"
)

// The response validation (openapi_test.go) proves that nothing is sent
// that the document does not describe. These tests prove the converse:
// every property the document describes is sent by some response, and
// every example in it is what the server answers.

// openAPISchemaProperties is the property names of a component schema.
func openAPISchemaProperties(t *testing.T, name string) []string {
	t.Helper()
	var doc struct {
		Components struct {
			Schemas map[string]struct{ Properties map[string]json.RawMessage }
		}
	}
	if err := json.Unmarshal(files.OpenAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
	props := mapKeys(doc.Components.Schemas[name].Properties)
	if len(props) == 0 {
		t.Fatalf("no schema %s", name)
	}
	return props
}

// sentKeys adds the top-level keys of a JSON object to keys.
func sentKeys(t *testing.T, keys map[string]bool, body []byte) {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		t.Fatalf("%v: %.200s", err, body)
	}
	for k := range obj {
		keys[k] = true
	}
}

func TestOpenAPIPropertiesSent(t *testing.T) {
	s := newDemoServer(t, nil)
	envelope := map[string]bool{}
	for _, target := range []string{
		core.PathStations + "?q=radio&codec=mp3&bitrate_min=64&bitrate_max=320&near=38.7223,-9.1393&radius_km=20000&facets=country,language,genre&facet_limit=3&sort=distance",
		core.PathStations + "?q=jazx",
		core.PathStations + "?location=lisboa&https=true&working=true&facets=location,codec,working",
		core.PathStations + "?q=radio&distinct=true&facets=codec",
	} {
		sentKeys(t, envelope, fetchOK(t, s, target).Body.Bytes())
	}
	if want, got := openAPISchemaProperties(t, "SearchResponse"), mapKeys(envelope); !slices.Equal(want, got) {
		t.Errorf("SearchResponse documents %v; searches send %v", want, got)
	}
	station := map[string]bool{}
	dump := fetchOK(t, s, core.PathDumpNDJSON).Body.Bytes()
	for line := range bytes.SplitSeq(bytes.TrimSpace(dump), []byte("\n")) {
		sentKeys(t, station, line)
	}
	var sorted struct{ Results []json.RawMessage } // distance_km: only by distance
	if err := json.Unmarshal(fetchOK(t, s, core.PathStations+"?near=38.7223,-9.1393&radius_km=20000&sort=distance").Body.Bytes(), &sorted); err != nil {
		t.Fatal(err)
	}
	for _, st := range sorted.Results {
		sentKeys(t, station, st)
	}
	if want, got := openAPISchemaProperties(t, "Station"), mapKeys(station); !slices.Equal(want, got) {
		t.Errorf("Station documents %v; the stations send %v", want, got)
	}
}

// TestOpenAPIExamplesAreLive: each example error of searchStations is
// the answer to the request its summary names, word for word.
func TestOpenAPIExamplesAreLive(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]struct {
					Examples map[string]struct {
						Summary string
						Value   json.RawMessage
					}
				}
			}
		}
	}
	if err := json.Unmarshal(files.OpenAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
	examples := doc.Paths["/api/stations"]["get"].Responses["400"].Content["application/json"].Examples
	if len(examples) < 6 {
		t.Fatalf("%d examples of a 400", len(examples))
	}
	s := newDemoServer(t, nil)
	for name, ex := range examples {
		target, ok := strings.CutPrefix(ex.Summary, "GET ")
		if !ok {
			t.Errorf("%s: summary %q does not name a request", name, ex.Summary)
			continue
		}
		rec := serve(s, http.MethodGet, target)
		var got, want any
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(ex.Value, &want); err != nil {
			t.Fatal(err)
		}
		if rec.Code != http.StatusBadRequest || !jsonEqual(got, want) {
			t.Errorf("%s: %s answers %d %s; the example says %s", name, target, rec.Code, rec.Body, ex.Value)
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// TestOpenAPIRequiredIsAlwaysSent: a schema's required list is exactly
// the properties every answer sends, so that a generated client may rely
// on each of them and on nothing else: the search envelope over searches
// of every kind, and the station over every station they return.
func TestOpenAPIRequiredIsAlwaysSent(t *testing.T) {
	s := newDemoServer(t, nil)
	var envelopes, stations []map[string]json.RawMessage
	for _, query := range []string{"", "?q=radio&facets=country,working", "?q=jazx", "?q=zzzz",
		"?location=lisboa&https=true&working=true", "?q=radio&distinct=true", "?near=38.7223,-9.1393&radius_km=20000&sort=distance",
		"?codec=mp3&bitrate_min=64&limit=50"} {
		var env map[string]json.RawMessage
		if err := json.Unmarshal(fetchOK(t, s, core.PathStations+query).Body.Bytes(), &env); err != nil {
			t.Fatal(err)
		}
		envelopes = append(envelopes, env)
		var results []map[string]json.RawMessage
		if err := json.Unmarshal(env["results"], &results); err != nil {
			t.Fatal(err)
		}
		stations = append(stations, results...)
	}
	if len(stations) < 40 {
		t.Fatalf("only %d stations returned", len(stations))
	}
	for schema, objects := range map[string][]map[string]json.RawMessage{"SearchResponse": envelopes, "Station": stations} {
		if want, got := alwaysSent(objects), openAPISchemaRequired(t, schema); !slices.Equal(want, got) {
			t.Errorf("%s requires %v; every answer sends %v", schema, got, want)
		}
	}
}

// alwaysSent is the sorted keys every one of objects has.
func alwaysSent(objects []map[string]json.RawMessage) []string {
	var keys []string
	for k := range objects[0] {
		if !slices.ContainsFunc(objects, func(o map[string]json.RawMessage) bool { _, ok := o[k]; return !ok }) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// openAPISchemaRequired is the sorted required list of a component schema.
func openAPISchemaRequired(t *testing.T, name string) []string {
	t.Helper()
	var doc struct {
		Components struct {
			Schemas map[string]struct{ Required []string }
		}
	}
	if err := json.Unmarshal(files.OpenAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
	required := slices.Clone(doc.Components.Schemas[name].Required)
	slices.Sort(required)
	return required
}

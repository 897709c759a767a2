package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"stationdex/server/files"
)

// The JSON bodies of API responses are validated against schemas compiled
// once per test binary. kin-openapi validates an OpenAPI 3.1 body by
// compiling its schema into a JSON Schema 2020-12 validator for every
// response it checks; over the tens of thousands of responses the server
// tests make, that compilation was most of their time. Here the document
// is one JSON Schema resource and each response schema a fragment of it
// (its $refs to #/components/schemas resolve within the document), compiled
// on first use. kin-openapi still checks the status and the headers; a
// body in another media type (the Radio Browser API's XML, CSV, M3U, PLS)
// is left to it whole.

// validateExchange checks one response against the route's operation.
func validateExchange(req *http.Request, route *routers.Route, params map[string]string, status int, header http.Header, body []byte) error {
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                opts,
	}
	if req.Method == http.MethodHead {
		in.Body = io.NopCloser(strings.NewReader(""))
	}
	loc, isJSON := bodySchemaLocation(route, status, header.Get("Content-Type"))
	if req.Method == http.MethodHead || !isJSON {
		return openapi3filter.ValidateResponse(context.Background(), in)
	}
	opts.ExcludeResponseBody = true
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return err
	}
	if loc == "" {
		return nil // documented without a schema
	}
	schema, err := compiledBodySchema(loc)
	if err != nil {
		return err
	}
	value, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("response body is not JSON: %v", err)
	}
	if err := schema.Validate(value); err != nil {
		return fmt.Errorf("response body doesn't match schema %s: %v", loc, err)
	}
	return nil
}

// bodySchemaLocation is the JSON pointer, within the document, of the
// schema of a JSON response of route with status and content type ct, as
// kin-openapi would choose it; isJSON is false for a body of another
// media type, and loc empty where the document gives no schema.
func bodySchemaLocation(route *routers.Route, status int, ct string) (loc string, isJSON bool) {
	media, _, err := mime.ParseMediaType(ct)
	if err != nil || (media != "application/json" && !strings.HasSuffix(media, "+json")) {
		return "", false
	}
	responses := route.Operation.Responses
	ref := responses.Status(status)
	if ref == nil {
		ref = responses.Default()
	}
	statusKey := ""
	for key, r := range responses.Map() {
		if r == ref {
			statusKey = key
		}
	}
	if ref == nil || ref.Value == nil || statusKey == "" {
		return "", false // undocumented: kin-openapi reports it
	}
	content := ref.Value.Content
	matched := content.Get(ct)
	for key, mt := range content {
		if mt == matched && mt != nil && mt.Schema != nil {
			response := "#/paths/" + pointerToken(route.Path) + "/" + strings.ToLower(route.Method) +
				"/responses/" + pointerToken(statusKey)
			if ref.Ref != "" {
				response = ref.Ref // a response of #/components/responses
			}
			return response + "/content/" + pointerToken(key) + "/schema", true
		}
	}
	if matched == nil {
		return "", false // an undocumented media type: kin-openapi reports it
	}
	return "", true
}

// pointerToken escapes one reference token of a JSON pointer (RFC 6901).
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// openAPISchemaURL names the document as a schema resource.
const openAPISchemaURL = "https://stationdex.test/openapi.json"

var bodySchemas = struct {
	sync.Mutex
	compiler *jsonschema.Compiler
	byLoc    map[string]*jsonschema.Schema
}{byLoc: map[string]*jsonschema.Schema{}}

// compiledBodySchema compiles the schema at loc once.
func compiledBodySchema(loc string) (*jsonschema.Schema, error) {
	bodySchemas.Lock()
	defer bodySchemas.Unlock()
	if s := bodySchemas.byLoc[loc]; s != nil {
		return s, nil
	}
	if bodySchemas.compiler == nil {
		c, err := openAPISchemaCompiler()
		if err != nil {
			return nil, err
		}
		bodySchemas.compiler = c
	}
	s, err := bodySchemas.compiler.Compile(openAPISchemaURL + loc)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", loc, err)
	}
	bodySchemas.byLoc[loc] = s
	return s, nil
}

// openAPISchemaCompiler holds the document as a JSON Schema 2020-12
// resource. Formats are asserted as kin-openapi asserts them: those it
// has a validator for (date-time among them), and no others (uri, uuid).
func openAPISchemaCompiler() (*jsonschema.Compiler, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(files.OpenAPIFor(testBase)))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	for _, name := range []string{"date-time", "date", "byte", "uri", "uuid", "email", "ipv4", "ipv6"} {
		check := openapi3.SchemaStringFormats[name]
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: func(v any) error {
			if s, ok := v.(string); ok && check != nil {
				return check.Validate(s)
			}
			return nil
		}})
	}
	c.AssertFormat()
	if err := c.AddResource(openAPISchemaURL, doc); err != nil {
		return nil, err
	}
	return c, nil
}

// TestOpenAPIBodySchemasReject: the compiled body schemas accept the
// server's own answers and reject each of them changed in one place: a
// wrong type deep in a station, a required field left out, a snapshot
// time that is not a date-time, a field the document does not have.
func TestOpenAPIBodySchemasReject(t *testing.T) {
	router, err := openAPIRouter()
	if err != nil {
		t.Fatal(err)
	}
	s := newDemoServer(t, nil)
	for _, tc := range []struct {
		target string
		edits  []func(v any)
	}{
		{"/api/stations?q=radio&limit=3", []func(v any){
			func(v any) { m := v.(map[string]any); m["results"].([]any)[0].(map[string]any)["id"] = 5 },
			func(v any) { m := v.(map[string]any); delete(m, "total") },
			func(v any) { m := v.(map[string]any); m["snapshot_at"] = "yesterday" },
			func(v any) { m := v.(map[string]any); m["surprise"] = true },
		}},
		{"/api/stations?limit=0", []func(v any){
			func(v any) { m := v.(map[string]any); m["error"] = "no_such_code" },
			func(v any) { m := v.(map[string]any); delete(m, "message") },
		}},
		// a response of #/components/responses, an array
		{"/json/stations/search?limit=2", []func(v any){
			func(v any) { v.([]any)[0].(map[string]any)["bitrate"] = "fast" },
			func(v any) { delete(v.([]any)[1].(map[string]any), "stationuuid") },
		}},
	} {
		rec := serve(s, http.MethodGet, tc.target)
		req, _ := http.NewRequest(http.MethodGet, testBase+tc.target, nil)
		route, params, err := router.FindRoute(req)
		if err != nil {
			t.Fatal(err)
		}
		if err := validateExchange(req, route, params, rec.Code, rec.Header(), rec.Body.Bytes()); err != nil {
			t.Fatalf("%s: the server's own answer fails: %v", tc.target, err)
		}
		for i, edit := range tc.edits {
			var v any
			if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
				t.Fatal(err)
			}
			edit(v)
			body, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if validateExchange(req, route, params, rec.Code, rec.Header(), body) == nil {
				t.Errorf("%s: edit %d passed validation: %s", tc.target, i, body)
			}
		}
	}
}

package server

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"stationdex/server/core"
	"stationdex/server/files"
)

// The OpenAPI document must be true: every API response the server tests
// produce through serve() is validated against it (checkAPIResponse is
// called there), and TestMain fails the run if any does not conform.
//
// The validator is kin-openapi, which validates OpenAPI 3.1 documents with
// JSON Schema 2020-12. (pb33f/libopenapi-validator v0.13.8 would force
// golang.org/x/text from v0.31.0 to v0.37.0, changing the folding and ISO
// tables the index is built with; kin-openapi needs no upgrade.)

// testBasePath is the path of testBase, which the handler never sees.
var testBasePath = func() string {
	u, err := url.Parse(testBase)
	if err != nil {
		panic(err)
	}
	return u.Path
}()

var openAPIRouter = sync.OnceValues(func() (routers.Router, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(files.OpenAPIFor(testBase))
	if err != nil {
		return nil, fmt.Errorf("load openapi.json: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("openapi.json is not a valid document: %w", err)
	}
	return legacy.NewRouter(doc)
})

// openAPIReport collects what checkAPIResponse saw, for TestMain.
var openAPIReport struct {
	sync.Mutex
	checked  int
	failures []string
}

// checkAPIResponse validates one recorded response of the JSON API
// against the OpenAPI document. Requests outside the documented paths
// (pages, files, unknown /api/ paths), preflights and redirects are not
// API operations and are skipped; a 405 is checked against the GET
// operation of its path, which documents it.
func checkAPIResponse(req *http.Request, rec *httptest.ResponseRecorder) {
	checkAPIExchange(req.Method, req.URL.RequestURI(), rec.Code, rec.Header(), rec.Body.Bytes())
}

// isDocumentedPath: the JSON API and the Radio Browser API under /json/.
func isDocumentedPath(p string) bool {
	return core.IsAPIPath(p) || strings.HasPrefix(p, core.PathRBAPI)
}

// checkAPIExchange validates one exchange: method and request target as
// sent, the response as received.
func checkAPIExchange(method, target string, status int, header http.Header, body []byte) {
	// A whole compressed body is checked decoded; a range of one (206, the
	// data dumps) cannot be decoded and is left to the validator as sent.
	if coding := header.Get("Content-Encoding"); coding != "" && method != http.MethodHead && status == http.StatusOK {
		decoded, err := decodeBody(coding, body)
		if err != nil {
			reportOpenAPI(fmt.Sprintf("%s %s -> %d: %s body: %v", method, target, status, coding, err))
			return
		}
		body = decoded
	}
	req, err := http.NewRequest(method, testBase+target, nil)
	if err != nil || !isDocumentedPath(strings.TrimPrefix(req.URL.Path, testBasePath)) || method == http.MethodOptions || status/100 == 3 {
		return // not a request the router could take as an API operation
	}
	router, err := openAPIRouter()
	if err != nil {
		reportOpenAPI(err.Error())
		return
	}
	// The router matches the document's server URL, the tests' base
	// URL, and knows GET only: other methods are checked against the GET
	// operation, which documents their 405.
	routed := req.Clone(context.Background())
	routed.Method = http.MethodGet
	route, params, err := router.FindRoute(routed)
	if err != nil {
		return // not an operation of the document (e.g. /api/nosuch)
	}
	if err := validateExchange(req, route, params, status, header, body); err != nil {
		reportOpenAPI(fmt.Sprintf("%s %s -> %d: %v", method, target, status, err))
		return
	}
	openAPIReport.Lock()
	openAPIReport.checked++
	openAPIReport.Unlock()
}

func reportOpenAPI(failure string) {
	openAPIReport.Lock()
	defer openAPIReport.Unlock()
	openAPIReport.failures = append(openAPIReport.failures, failure)
}

func TestMain(m *testing.M) {
	code := m.Run()
	openAPIReport.Lock()
	if n := len(openAPIReport.failures); n > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d API responses do not conform to openapi.json:\n", n)
		for _, f := range openAPIReport.failures[:min(n, 50)] {
			fmt.Fprintln(os.Stderr, "  "+f)
		}
		code = 1
	} else if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "openapi.json: %d API responses validated\n", openAPIReport.checked)
	}
	openAPIReport.Unlock()
	removeTestDirs()
	os.Exit(code)
}

// TestOpenAPIDocument: the served document is the committed one with this
// server's URL, valid OpenAPI 3.1, with both operations, every parameter
// constrained, an empty security requirement and the error codes of the
// server.
func TestOpenAPIDocument(t *testing.T) {
	s := newDemoServer(t, nil)
	rec := serve(s, http.MethodGet, "/openapi.json")
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("status %d, type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	if _, err := openAPIRouter(); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI  string                    `json:"openapi"`
		Info     struct{ Version string }  `json:"info"`
		Servers  []struct{ URL string }    `json:"servers"`
		Security []any                     `json:"security"`
		Paths    map[string]map[string]any `json:"paths"`
		Comps    struct {
			Schemas map[string]struct {
				Properties map[string]struct{ Enum []string } `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" || doc.Info.Version != "1.0.0" || len(doc.Servers) != 1 || doc.Servers[0].URL != testBase || doc.Security == nil || len(doc.Security) != 0 {
		t.Errorf("openapi %q version %q servers %v security %v", doc.OpenAPI, doc.Info.Version, doc.Servers, doc.Security)
	}
	if strings.Contains(rec.Body.String(), files.OpenAPIBase) {
		t.Errorf("the default base URL is left in the served document")
	}
	ops := map[string]string{}
	for path, item := range doc.Paths {
		for method, op := range item {
			id, _ := op.(map[string]any)["operationId"].(string)
			ops[id] = method + " " + path
		}
	}
	if ops["searchStations"] != "get /api/stations" || ops["getStation"] != "get /api/stations/{id}" {
		t.Errorf("operations %v", ops)
	}
	codes := serverErrorCodes(t)
	if got := doc.Comps.Schemas["Error"].Properties["error"].Enum; strings.Join(got, " ") != strings.Join(codes, " ") {
		t.Errorf("error codes %v, errors.go defines %v", got, codes)
	}
}

// serverErrorCodes reads every Code constant from errors.go, in source
// order, so a code added there cannot be missing from the document.
func serverErrorCodes(t *testing.T) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "core/errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || vs.Type == nil || fmt.Sprint(vs.Type) != "Code" {
			return true
		}
		for _, v := range vs.Values {
			if lit, ok := v.(*ast.BasicLit); ok {
				c, _ := strconv.Unquote(lit.Value)
				codes = append(codes, c)
			}
		}
		return true
	})
	if len(codes) < 5 {
		t.Fatalf("found only %v in errors.go", codes)
	}
	return codes
}

// TestOpenAPIRejectsWrongResponses: the validation is not vacuous.
func TestOpenAPIRejectsWrongResponses(t *testing.T) {
	router, err := openAPIRouter()
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{
		`{"error":"no_such_code","message":"x"}`,
		`{"error":"invalid_parameter"}`,
		`{"error":"invalid_parameter","message":"x","extra":1}`,
	} {
		req, _ := http.NewRequest(http.MethodGet, testBase+"/api/stations?limit=0", nil)
		route, params, err := router.FindRoute(req)
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
		err = validateExchange(req, route, params, 400, h, []byte(body))
		if err == nil {
			t.Errorf("%s passed validation", body)
		}
	}
}

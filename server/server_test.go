package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/julienschmidt/httprouter"

	"stationdex/indexer"
	"stationdex/query"
	"stationdex/server/api"
	"stationdex/server/core"
)

// testBase is the public base URL of test servers; it has a path so that
// tests see links keep it.
const testBase = "https://radio.example/dex"

// demoIndex opens the demo index once for the whole test binary: building it
// is the slow part of most tests.
var demoIndex = sync.OnceValues(func() (*query.Index, error) {
	dir, err := os.MkdirTemp("", "stationdex-server-test-")
	if err != nil {
		return nil, err
	}
	removeAtExit(dir)
	path, err := indexer.BuildDemo(context.Background(), dir)
	if err != nil {
		return nil, err
	}
	return query.Open(path)
})

// fixedSource serves one index, or none when ix is nil.
type fixedSource struct{ ix *query.Index }

func (s fixedSource) Acquire() (*query.Index, func()) { return s.ix, func() {} }

// newDemoServer is a Server over the demo index.
func newDemoServer(t testing.TB, obs core.Observer) *Server {
	t.Helper()
	ix, err := demoIndex()
	if err != nil {
		t.Fatalf("demo index: %v", err)
	}
	s := New(testConfig(obs), fixedSource{ix})
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// newEmptyServer is a Server with no index loaded: every read is a 503, but
// everything decided before the index is needed still works.
func newEmptyServer(t testing.TB) *Server {
	s := New(testConfig(nil), fixedSource{})
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func testConfig(obs core.Observer) Config {
	base, err := url.Parse(testBase + "/")
	if err != nil {
		panic(err)
	}
	return Config{BaseURL: base, Observer: obs}
}

// The package's long tests (the crawl, the real snapshot's oracles, the
// clients of the Radio Browser API, the pages written as the template
// writes them) call t.Parallel: they run after the short ones, two at a
// time on two cores, each on fixtures of its own or shared read-only
// through a sync.Once (realIndexOnce, realOracle). Without it the package,
// the last to finish in make test, ran them one after the other on one
// core. A test that changes package state (a variable, the environment)
// must not be among them.

// serve runs one request through s and returns the recorded response.
func serve(s *Server, method, target string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	checkAPIResponse(req, rec) // openapi_test.go: every API response must conform to openapi.json
	return rec
}

// errorCode decodes an error body, failing the test unless it is one.
func errorCode(t *testing.T, rec *httptest.ResponseRecorder) core.Code {
	t.Helper()
	var body struct {
		Error   *core.Code `json:"error"`
		Message *string    `json:"message"`
	}
	dec := json.NewDecoder(rec.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || body.Error == nil || body.Message == nil || *body.Message == "" {
		t.Fatalf("not an error body (%v): %q", err, rec.Body.String())
	}
	return *body.Error
}

// decodeSearch decodes a search envelope.
func decodeSearch(t *testing.T, body io.Reader) api.SearchEnvelope {
	t.Helper()
	var env api.SearchEnvelope
	if err := json.NewDecoder(body).Decode(&env); err != nil {
		t.Fatalf("decode search envelope: %v", err)
	}
	return env
}

func TestNoIndexIs503(t *testing.T) {
	s := newEmptyServer(t)
	for _, target := range []string{"/api/stations", "/api/stations?q=jazz", "/api/stations/cbbf6759-8124-405d-a884-3bd8732946bd"} {
		rec := serve(s, http.MethodGet, target)
		if rec.Code != http.StatusServiceUnavailable {
			t.Errorf("%s: status %d, want 503", target, rec.Code)
			continue
		}
		if got := errorCode(t, rec); got != core.CodeUnavailable {
			t.Errorf("%s: code %q", target, got)
		}
		if rec.Header().Get("Retry-After") == "" || rec.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("%s: headers %v", target, rec.Header())
		}
	}
}

// TestBadRequestBeforeIndex: a request that is wrong is wrong whether or not
// an index is loaded, so it gets its 400 rather than a 503.
func TestBadRequestBeforeIndex(t *testing.T) {
	rec := serve(newEmptyServer(t), http.MethodGet, "/api/stations?limit=0")
	if rec.Code != http.StatusBadRequest || errorCode(t, rec) != core.CodeInvalidParameter {
		t.Fatalf("status %d body %s", rec.Code, rec.Body)
	}
}

func TestMethodNotAllowed(t *testing.T) {
	s := newEmptyServer(t)
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, "PROPFIND"} {
		for _, target := range []string{"/api/stations", "/api/stations/cbbf6759-8124-405d-a884-3bd8732946bd"} {
			rec := serve(s, method, target)
			if rec.Code != http.StatusMethodNotAllowed {
				t.Errorf("%s %s: status %d", method, target, rec.Code)
				continue
			}
			if got := rec.Header().Get("Allow"); got != "GET, HEAD, OPTIONS" {
				t.Errorf("%s %s: Allow %q", method, target, got)
			}
			if got := errorCode(t, rec); got != core.CodeMethodNotAllowed {
				t.Errorf("%s %s: code %q", method, target, got)
			}
		}
	}
}

func TestAPINotFoundIsJSON(t *testing.T) {
	s := newEmptyServer(t)
	for _, target := range []string{"/api/", "/api/nope", "/api/stations/a/b"} {
		rec := serve(s, http.MethodGet, target)
		if rec.Code != http.StatusNotFound {
			t.Errorf("%s: status %d", target, rec.Code)
			continue
		}
		if got := errorCode(t, rec); got != core.CodeNotFound {
			t.Errorf("%s: code %q", target, got)
		}
	}
	demo := newDemoServer(t, nil)
	if rec := serve(demo, http.MethodGet, "/nope"); rec.Code != http.StatusNotFound || rec.Header().Get("Content-Type") != core.HTMLType {
		t.Errorf("non-API 404: status %d type %q, want the HTML page", rec.Code, rec.Header().Get("Content-Type"))
	}
}

// recordingObserver keeps what the server reported.
type recordingObserver struct {
	mu       sync.Mutex
	requests []string
	searches int
}

func (o *recordingObserver) Request(route, method string, status int, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.requests = append(o.requests, fmt.Sprintf("%s %s %d", method, route, status))
}

func (o *recordingObserver) Search(bitmap, decode time.Duration, results int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.searches++
}

// TestObserverLabels: requests are labelled by route template, never by raw
// path, so metric cardinality stays bounded.
func TestObserverLabels(t *testing.T) {
	obs := &recordingObserver{}
	s := newDemoServer(t, obs)
	serve(s, http.MethodGet, "/api/stations?q=jazz")
	serve(s, http.MethodGet, "/api/stations/cbbf6759-8124-405d-a884-3bd8732946bd")
	serve(s, http.MethodHead, "/api/stations/00000000-0000-0000-0000-000000000000")
	serve(s, http.MethodOptions, "/api/stations")
	serve(s, http.MethodPost, "/api/stations")
	serve(s, http.MethodGet, "/api/whatever/123")
	want := []string{
		"GET /api/stations 200",
		"GET /api/stations/:id 200",
		"HEAD /api/stations/:id 404",
		"OPTIONS /api/stations 204",
		"POST unmatched 405",
		"GET unmatched 404",
	}
	if fmt.Sprint(obs.requests) != fmt.Sprint(want) {
		t.Errorf("requests\n got %q\nwant %q", obs.requests, want)
	}
	if obs.searches != 1 {
		t.Errorf("searches = %d, want 1", obs.searches)
	}
}

func TestPanicIsJSON500(t *testing.T) {
	obs := &recordingObserver{}
	s := newEmptyServer(t)
	s.Observer = obs
	h := s.Instrument("/boom", func(http.ResponseWriter, *http.Request, httprouter.Params) { panic("boom") })
	rec := httptest.NewRecorder()
	s.Log = slog.New(slog.DiscardHandler)
	h(rec, httptest.NewRequest(http.MethodGet, "/boom", nil), nil)
	if rec.Code != http.StatusInternalServerError || errorCode(t, rec) != core.CodeInternal {
		t.Fatalf("status %d body %s", rec.Code, rec.Body)
	}
	if strings.Contains(rec.Body.String(), "boom") {
		t.Errorf("panic value leaked to the client: %s", rec.Body)
	}
	if len(obs.requests) != 1 || obs.requests[0] != "GET /boom 500" {
		t.Errorf("observed %q", obs.requests)
	}
}

func TestCacheControl(t *testing.T) {
	for _, tc := range []struct {
		maxAge time.Duration
		want   string
	}{
		{0, "public, max-age=300"},
		{time.Minute, "public, max-age=60"},
		{-1, "no-cache"},
	} {
		if got := core.CacheControl(tc.maxAge); got != tc.want {
			t.Errorf("cacheControl(%v) = %q, want %q", tc.maxAge, got, tc.want)
		}
	}
}

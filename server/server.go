// Package server speaks HTTP for stationdex: the read-only JSON API of the
// station directory (described by openapi.json, served at /openapi.json),
// the HTML pages and their Markdown twins, and the data and description
// files around them, all through one httprouter router. Running the
// listeners, the in-flight limit, the admin endpoints and snapshot swaps is
// package server/node's; this package hands it a handler and the answer to
// a shed request (Shed).
//
// Every response is derived from one query.Index obtained from a
// query.Source for the duration of the request, so an index swapped in while
// a request runs never mixes two snapshots in one response.
//
// Every route is registered through Server.route, which takes the route
// template ("/api/stations/:id") that also labels the request for the
// Observer, so metrics are labelled by template, never by raw path. API
// routes use Server.handle on top of it for CORS, JSON errors and OPTIONS.
//
// File map:
//   - server.go: wiring, routing, instrumentation (the status is read
//     through wire.Recorder, the one status-recording wrapper), panic
//     recovery
//   - handle.go: the one handler shape (resolver: a canonical key and a
//     builder), answer (cache lookup, build into a pooled buffer, store);
//     apiResource looks the request target up in the cache first
//   - respond.go: the one writer (send): headers, ETag per coding, 304,
//     HEAD, Content-Length, an answer sent in one writev (package
//     server/wire); coding.go: gzip/zstd negotiation and encoders;
//     cache.go: the byte-bounded response cache, with the request
//     targets each entry answered; etag_match.go: If-None-Match
//   - api.go, api_json.go: the two operations, their envelopes, encoders
//     and ETags; api_facets.go: the envelope's facets, suggestions and
//     filter echoes
//   - paramtable.go: the search parameters, one row each (parser, limits,
//     canonical form, words, form field); params.go: parsing a query
//     string and writing a canonical one; paramvalues.go: the value
//     parsers of lists, positions and radii; paths.go: the fixed public
//     paths; limits.go: request limits; errors.go: error codes and their
//     statuses; cors.go; shed.go
//   - pages.go, page.go, page_home.go, page_search.go, page_refine.go
//     (did-you-mean, narrowing by facet, nearby stations), page_station.go,
//     page_directory.go: the HTML pages; html.go (the layout, written by
//     hand), html_parts.go (form, blocks, pager) and html_escape.go
//     (html/template's escaping, byte for byte) write them as HTML,
//     markdown.go as Markdown; static/; playlist.go: a
//     station's M3U and PLS files; provenance.go: where the stations come
//     from, as every page, llms.txt and the catalogue say it
//   - pages_resources.go, openapi.go, wellknown.go, dump.go, catalog.go,
//     sitemap.go, llms.go: the description and data files (the dumps keep
//     their own stored-gzip path with Range); static.go: the style sheet
//     and icons
package server

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/julienschmidt/httprouter"

	"stationdex/internal/stationjson"
	"stationdex/query"
	"stationdex/server/wire"
)

// Observer is told about every request and every search, so that package
// metrics can count them without the server importing it. Calls are made on
// the request goroutine after the response is written: implementations must
// be safe for concurrent use and fast. A nil Observer in Config is a no-op.
type Observer interface {
	// Request reports one finished request. route is the registered route
	// template ("/api/stations/:id"), or RouteUnmatched for requests that
	// matched no route or no method of one; status is the status sent.
	Request(route, method string, status int, d time.Duration)
	// Search reports one search the engine ran: time spent on bitmaps and
	// on decoding the page's records, and the number of stations that
	// matched (the total, not the page length: a page past the end is not
	// a search that found nothing).
	Search(bitmap, decode time.Duration, matches int)
}

// RouteUnmatched is the Observer route label of requests that matched no
// route (404) or no method of a route (405). One label keeps the metric's
// cardinality bounded whatever paths clients try.
const RouteUnmatched = "unmatched"

// Config configures a Server.
type Config struct {
	// BaseURL is the public address of the service. Every URL in a
	// response is absolute under it. Routes are served at the root of the
	// handler, so a BaseURL with a path assumes a proxy that strips it.
	BaseURL *url.URL
	// Observer receives request and search measurements; nil: none.
	Observer Observer
	// CacheMaxAge is the max-age of Cache-Control on successful API
	// responses. Zero means DefaultCacheMaxAge; negative means "no-cache"
	// (clients revalidate every time, still cheaply with ETags).
	CacheMaxAge time.Duration
	// Logger receives server-side failures; nil: slog.Default().
	Logger *slog.Logger
	// CacheBytes bounds the response cache, in bytes: encoded and
	// compressed bodies kept for the requests that repeat them. Zero means
	// DefaultCacheBytes; negative disables the cache.
	CacheBytes int64
	// CacheMinUses is the request for a body on which it is stored: 2
	// (the default, for zero) skips one-off requests, 1 stores every 200.
	CacheMinUses int
}

// DefaultCacheMaxAge is the max-age used when Config.CacheMaxAge is zero. The
// data changes only with a new snapshot, so minutes of caching are safe.
const DefaultCacheMaxAge = 300 * time.Second

// retryAfterSeconds is the Retry-After of a 503: an index load takes seconds.
const retryAfterSeconds = "5"

// Server serves the API from the index of its Source.
type Server struct {
	src          query.Source
	base         string // BaseURL without a trailing slash
	baseJSON     string // base as escaped in a JSON string, spliced into stored stations
	obs          Observer
	cacheControl []string // the header value, shared by every response (see entityFields)
	log          *slog.Logger
	handler      http.Handler
	cache        *responseCache
	openapi      *entity      // the OpenAPI document under base, built once
	rebased      rebasedDumps // dumps rewritten for base, when the index's differ
}

// New returns a Server over src. cfg.BaseURL is required; a nil src is
// served like a Source that has no index yet.
func New(cfg Config, src query.Source) *Server {
	if cfg.BaseURL == nil {
		panic("server.New: Config.BaseURL is required") // a wiring bug, not bad data
	}
	s := &Server{
		src:          src,
		base:         baseURL(cfg.BaseURL),
		obs:          cfg.Observer,
		cacheControl: []string{cacheControl(cfg.CacheMaxAge)},
		log:          cfg.Logger,
		cache:        newResponseCache(cacheBytes(cfg.CacheBytes), cacheMinUses(cfg.CacheMinUses)),
	}
	s.baseJSON = stationjson.EscapeBase(s.base)
	s.openapi = openAPIEntity(s.base)
	if s.obs == nil {
		s.obs = nopObserver{}
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.handler = s.guard(s.routes()) // limits.go: refusals decided before routing
	return s
}

func cacheMinUses(n int) int {
	if n == 0 {
		return DefaultCacheMinUses
	}
	return min(max(n, 1), 2)
}

func cacheBytes(n int64) int64 {
	if n == 0 {
		return DefaultCacheBytes
	}
	return n
}

// CacheStats reports the response cache's counters and size, for metrics.
func (s *Server) CacheStats() CacheStats { return s.cache.stats() }

// PurgeCache empties the response cache. Call it after swapping in a new
// snapshot, to free the old one's answers at once: without it they are
// dropped by the first request on the new snapshot, and never served
// either way.
func (s *Server) PurgeCache() { s.cache.purge() }

// Close deletes the files the server wrote for itself: the data dumps
// rewritten for its base URL. Call it once the handler serves no more
// requests.
func (s *Server) Close() error { return s.rebased.close() }

// baseURL is u as the prefix of the service's URLs: no query, no fragment,
// no trailing slash.
func baseURL(u *url.URL) string {
	b := *u
	b.RawQuery, b.ForceQuery, b.Fragment, b.RawFragment = "", false, "", ""
	return strings.TrimRight(b.String(), "/")
}

// Handler returns the http.Handler serving every route of s.
func (s *Server) Handler() http.Handler { return s.handler }

func cacheControl(maxAge time.Duration) string {
	switch {
	case maxAge == 0:
		maxAge = DefaultCacheMaxAge
	case maxAge < 0:
		return "no-cache"
	}
	return "public, max-age=" + strconv.Itoa(int(maxAge/time.Second))
}

// routes builds the router: each route group (the API, the pages, the
// description and data files) has its own method adding its routes.
func (s *Server) routes() *httprouter.Router {
	r := httprouter.New()
	r.HandleMethodNotAllowed = true
	r.MethodNotAllowed = s.unmatched(s.methodNotAllowed)
	r.NotFound = s.unmatched(s.notFound)
	s.apiRoutes(r)
	s.upstreamRoutes(r)
	s.pageRoutes(r)
	return r
}

// route is the one place routes are registered: it registers h for each of
// methods under the route template route, instrumented with route as the
// Observer label. The label must be the template ("/api/stations/:id"),
// never something built from the request, so metric cardinality stays
// bounded. Route groups without the API's JSON conventions (HTML pages)
// call it directly with their own handlers.
func (s *Server) route(r *httprouter.Router, route string, h httprouter.Handle, methods ...string) {
	run := s.instrument(route, h)
	for _, m := range methods {
		r.Handle(m, route, run)
	}
}

// handle registers an API route: the resource h resolves, for GET and HEAD,
// with CORS headers and JSON errors, and the CORS preflight for OPTIONS.
func (s *Server) handle(r *httprouter.Router, route string, h resolver) {
	answer := s.apiResource(h, s.writeError)
	api := func(w http.ResponseWriter, req *http.Request, ps httprouter.Params) {
		setCORS(w.Header(), req)
		answer(w, req, ps)
	}
	s.route(r, route, api, http.MethodGet, http.MethodHead)
	s.route(r, route, preflight, http.MethodOptions)
}

// instrument times h and reports it to the Observer under route. A panic in
// h (a bug, or the engine tripping over a damaged index) is logged with its
// stack and answered with a JSON 500 when nothing was written yet, instead of
// the dropped connection net/http would give.
func (s *Server) instrument(route string, h httprouter.Handle) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		start := time.Now()
		sw := statusWriters.Get().(*wire.Recorder)
		sw.Reset(w)
		defer func() {
			if v := recover(); v != nil {
				s.recoverPanic(sw, r, route, v)
			}
			s.obs.Request(route, r.Method, sw.Status(), time.Since(start))
			sw.Reset(nil) // the connection's writer must not outlive the request
			statusWriters.Put(sw)
		}()
		h(sw, r, ps)
	}
}

// statusWriters are pooled: one per request was a tenth of the
// allocations of an answer from the response cache. No handler keeps the
// writer past its return.
var statusWriters = sync.Pool{New: func() any { return new(wire.Recorder) }}

func (s *Server) recoverPanic(w *wire.Recorder, r *http.Request, route string, v any) {
	if v == http.ErrAbortHandler {
		panic(v) // net/http's way to abort a response on purpose
	}
	s.log.Error("panic serving request", "route", route, "method", r.Method, "panic", v, "stack", string(debug.Stack()))
	if !w.Written() {
		s.writeError(w, r, fmt.Errorf("panic: %v", v))
	}
}

// unmatched adapts a router fallback handler, instrumented as RouteUnmatched.
func (s *Server) unmatched(h httprouter.Handle) http.Handler {
	run := s.instrument(RouteUnmatched, h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { run(w, r, nil) })
}

// notFound answers paths no route matches in the form the client reads,
// as a missing station is answered: the JSON error under /api/, where
// clients expect JSON, and the not-found page elsewhere (its Markdown twin
// for a path ending in index.md or a client preferring Markdown).
func (s *Server) notFound(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if !isAPIPath(r.URL.Path) {
		md := strings.HasSuffix(r.URL.Path, "/"+markdownIndex) || wantsMarkdown(r)
		s.servePage(w, r, noPage, nil, md)
		return
	}
	setCORS(w.Header(), r)
	s.writeError(w, r, errorf(CodeNotFound, "no such API endpoint; the API has /api/stations and /api/stations/{id}"))
}

// errNoPage is the not-found page's message for a path that names no page.
var errNoPage = &Error{CodeNotFound, "there is no page at this address"}

// noPage builds the page of a path no route matches: always not found.
func noPage(*http.Request, *query.Index, []string) (*page, error) { return nil, errNoPage }

// methodNotAllowed answers a known path with a method it does not take. The
// router has already set Allow.
func (s *Server) methodNotAllowed(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if isAPIPath(r.URL.Path) {
		setCORS(w.Header(), r)
	}
	allow := w.Header().Get("Allow")
	s.writeError(w, r, errorf(CodeMethodNotAllowed, "method %s is not allowed here; use one of: %s", quoteClip(r.Method), allow))
}

func isAPIPath(p string) bool { return p == "/api" || strings.HasPrefix(p, "/api/") }

type nopObserver struct{}

func (nopObserver) Request(string, string, int, time.Duration) {}
func (nopObserver) Search(time.Duration, time.Duration, int)   {}

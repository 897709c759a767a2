package core

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/julienschmidt/httprouter"

	"stationdex/internal/format"
	"stationdex/query"
	"stationdex/server/wire"
)

// Acquire returns the index to serve from and its release function, or a
// nil index (nothing to release) when none is loaded.
func (s *Server) Acquire() (Index, func()) {
	if s.Src == nil {
		return nil, nil
	}
	ix, release := s.Src.Acquire()
	if release == nil {
		release = func() {}
	}
	if ix == nil {
		release()
		return nil, nil
	}
	return ix, release
}

func SchemaVersion(m format.Meta) string {
	if m.SchemaVersion == "" {
		return format.SchemaVersion
	}
	return m.SchemaVersion
}

func SnapshotAt(m format.Meta) string {
	// Every search envelope carries it, and a snapshot's time never
	// changes: formatted once per snapshot time, not per response.
	if f := lastSnapshotAt.Load(); f != nil && f.t.Equal(m.SnapshotAt) {
		return f.s
	}
	f := &formattedTime{t: m.SnapshotAt, s: m.SnapshotAt.UTC().Format(time.RFC3339)}
	lastSnapshotAt.Store(f)
	return f.s
}

// lastSnapshotAt is the last snapshot time snapshotAt formatted. Equal
// instants format alike (in UTC), so one value serves every server in the
// process, and two snapshots at once only format again.
var lastSnapshotAt atomic.Pointer[formattedTime]

type formattedTime struct {
	t time.Time
	s string
}

// A Route is one row of a room's route table: a pattern of the router
// ("/api/stations/:id"), the methods it answers and its handler. The
// pattern labels the requests it serves for the Observer.
type Route struct {
	Pattern string
	Methods []string
	Handle  httprouter.Handle
}

// GetHead are the methods of a resource that is only read.
var GetHead = []string{http.MethodGet, http.MethodHead}

// Get is a route answering GET and HEAD.
func Get(pattern string, h httprouter.Handle) Route { return Route{pattern, GetHead, h} }

// Routes registers every row of a route table on r.
func (s *Server) Routes(r *httprouter.Router, table []Route) {
	for _, rt := range table {
		s.Route(r, rt.Pattern, rt.Handle, rt.Methods...)
	}
}

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

// DefaultCacheMaxAge is the max-age used when Config.CacheMaxAge is zero. The
// data changes only with a new snapshot, so minutes of caching are safe.
const DefaultCacheMaxAge = 300 * time.Second

// RetryAfterSeconds is the Retry-After of a 503: an index load takes seconds.
const RetryAfterSeconds = "5"

// Server serves the API from the index of its Source.
type Server struct {
	Src          query.Source
	Base         string // BaseURL without a trailing slash
	BaseJSON     string // base as escaped in a JSON string, spliced into stored stations
	Observer     Observer
	CacheControl []string // the header value, shared by every response (see entityFields)
	Log          *slog.Logger
	Cache        *responseCache
}

// BaseURL is u as the prefix of the service's URLs: no query, no fragment,
// no trailing slash.
func BaseURL(u *url.URL) string {
	b := *u
	b.RawQuery, b.ForceQuery, b.Fragment, b.RawFragment = "", false, "", ""
	return strings.TrimRight(b.String(), "/")
}

func CacheControl(maxAge time.Duration) string {
	switch {
	case maxAge == 0:
		maxAge = DefaultCacheMaxAge
	case maxAge < 0:
		return "no-cache"
	}
	return "public, max-age=" + strconv.Itoa(int(maxAge/time.Second))
}

// Route is the one place routes are registered: it registers h for each of
// methods under the route template route, instrumented with route as the
// Observer label. The label must be the template ("/api/stations/:id"),
// never something built from the request, so metric cardinality stays
// bounded. Route groups without the API's JSON conventions (HTML pages)
// call it directly with their own handlers.
func (s *Server) Route(r *httprouter.Router, route string, h httprouter.Handle, methods ...string) {
	run := s.Instrument(route, h)
	for _, m := range methods {
		r.Handle(m, route, run)
	}
}

// APIRoute is an API route: the resource h resolves, for GET and HEAD,
// with CORS headers and JSON errors. Its preflight is PreflightRoute.
func (s *Server) APIRoute(pattern string, h resolver) Route {
	answer := s.apiResource(h, s.WriteError)
	return Route{pattern, GetHead, func(w http.ResponseWriter, req *http.Request, ps httprouter.Params) {
		SetCORS(w.Header(), req)
		answer(w, req, ps)
	}}
}

// PreflightRoute answers the CORS preflight (OPTIONS) of an API route.
func PreflightRoute(pattern string) Route {
	return Route{pattern, []string{http.MethodOptions}, Preflight}
}

// Instrument times h and reports it to the Observer under route. A panic in
// h (a bug, or the engine tripping over a damaged index) is logged with its
// stack and answered with a JSON 500 when nothing was written yet, instead of
// the dropped connection net/http would give.
func (s *Server) Instrument(route string, h httprouter.Handle) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		start := time.Now()
		sw := statusWriters.Get().(*wire.Recorder)
		sw.Reset(w)
		defer func() {
			if v := recover(); v != nil {
				s.recoverPanic(sw, r, route, v)
			}
			s.Observer.Request(route, r.Method, sw.Status(), time.Since(start))
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
	s.Log.Error("panic serving request", "route", route, "method", r.Method, "panic", v, "stack", string(debug.Stack()))
	if !w.Written() {
		s.WriteError(w, r, fmt.Errorf("panic: %v", v))
	}
}

// Unmatched adapts a router fallback handler, instrumented as RouteUnmatched.
func (s *Server) Unmatched(h httprouter.Handle) http.Handler {
	run := s.Instrument(RouteUnmatched, h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { run(w, r, nil) })
}

// MethodNotAllowed answers a known path with a method it does not take. The
// router has already set Allow.
func (s *Server) MethodNotAllowed(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if IsAPIPath(r.URL.Path) {
		SetCORS(w.Header(), r)
	}
	allow := w.Header().Get("Allow")
	s.WriteError(w, r, Errorf(CodeMethodNotAllowed, "method %s is not allowed here; use one of: %s", QuoteClip(r.Method), allow))
}

func IsAPIPath(p string) bool { return p == "/api" || strings.HasPrefix(p, "/api/") }

type NopObserver struct{}

func (NopObserver) Request(string, string, int, time.Duration) {}
func (NopObserver) Search(time.Duration, time.Duration, int)   {}

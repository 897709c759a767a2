// Package server speaks HTTP for stationdex: the read-only JSON API of the
// station directory (described by files/openapi.json, served at
// /openapi.json), the Radio Browser API under /json/, the HTML pages and
// their Markdown twins, and the data and description files around them, all
// through one httprouter router. Running the listeners, the in-flight
// limit, the admin endpoints and snapshot swaps is package server/node's;
// this package hands it a handler and the answer to a shed request (Shed).
//
// The server is laid out by audience: each room registers its routes on
// the one router from a table of its own, and every room stands on
// server/core (the one handler shape, respond, cache, coding, errors,
// limits, the path shapes httprouter cannot hold):
//
//   - server/api: the station API (/api/stations, /api/stations/:id)
//   - server/rbapi: the Radio Browser API (/json/...)
//   - server/pages: the HTML pages and their Markdown twins
//   - server/files: OpenAPI, the well-known files, sitemaps, robots.txt,
//     llms.txt, the dumps, the catalogue and the static files
//   - server/params: the search parameters the API and the pages parse
//
// Every response is derived from one query.Index obtained from a
// query.Source for the duration of the request, so an index swapped in while
// a request runs never mixes two snapshots in one response.
//
// File map:
//   - server.go: Config, New and the Server callers hold
//   - routes.go: the route tables of every room on the one router, and
//     the table of path shapes beside it
package server

import (
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"stationdex/internal/stationjson"
	"stationdex/query"
	"stationdex/server/api"
	"stationdex/server/core"
	"stationdex/server/files"
	"stationdex/server/pages"
	"stationdex/server/rbapi"
)

// Config configures a Server.
type Config struct {
	// BaseURL is the public address of the service. Every URL in a
	// response is absolute under it. Routes are served at the root of the
	// handler, so a BaseURL with a path assumes a proxy that strips it.
	BaseURL *url.URL
	// Observer receives request and search measurements; nil: none.
	Observer core.Observer
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

// Server serves every route of the node: the core it shares with the
// rooms (the API, the Radio Browser API, the pages and the files), each
// room's handlers, and the router they registered on.
type Server struct {
	*core.Server
	api     *api.Server
	rbapi   *rbapi.Server
	pages   *pages.Server
	files   *files.Server
	handler http.Handler
}

// What callers of the server name in its core, under the names they
// always had.
type (
	// Observer is told about every request and every search (see
	// core.Observer).
	Observer = core.Observer
	// CacheStats are the response cache's counters and size.
	CacheStats = core.CacheStats
)

const (
	// RouteUnmatched labels requests that matched no route.
	RouteUnmatched = core.RouteUnmatched
	// DefaultCacheMaxAge is the max-age used when Config.CacheMaxAge is zero.
	DefaultCacheMaxAge = core.DefaultCacheMaxAge
	// DefaultCacheBytes bounds the response cache when Config.CacheBytes is zero.
	DefaultCacheBytes = core.DefaultCacheBytes
	// DefaultCacheMinUses is the request on which a body is stored when
	// Config.CacheMinUses is zero.
	DefaultCacheMinUses = core.DefaultCacheMinUses
)

// Shed is the answer to a request refused for load (see core.Shed).
func Shed() http.Handler { return core.Shed() }

// New returns a Server over src. cfg.BaseURL is required; a nil src is
// served like a Source that has no index yet.
func New(cfg Config, src query.Source) *Server {
	if cfg.BaseURL == nil {
		panic("server.New: Config.BaseURL is required") // a wiring bug, not bad data
	}
	c := &core.Server{
		Src:          src,
		Base:         core.BaseURL(cfg.BaseURL),
		Observer:     cfg.Observer,
		CacheControl: []string{core.CacheControl(cfg.CacheMaxAge)},
		Log:          cfg.Logger,
		Cache:        core.NewResponseCache(cacheBytes(cfg.CacheBytes), cacheMinUses(cfg.CacheMinUses)),
	}
	c.BaseJSON = stationjson.EscapeBase(c.Base)
	if c.Observer == nil {
		c.Observer = core.NopObserver{}
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	s := &Server{Server: c, api: &api.Server{Server: c}, pages: &pages.Server{Server: c}, rbapi: &rbapi.Server{Server: c}}
	s.files = files.New(c, s.pages)
	s.handler = s.Guard(s.routes()) // core/limits.go: refusals decided before routing
	return s
}

func cacheMinUses(n int) int {
	if n == 0 {
		return core.DefaultCacheMinUses
	}
	return min(max(n, 1), 2)
}

func cacheBytes(n int64) int64 {
	if n == 0 {
		return core.DefaultCacheBytes
	}
	return n
}

// CacheStats reports the response cache's counters and size, for metrics.
func (s *Server) CacheStats() core.CacheStats { return s.Cache.Stats() }

// PurgeCache empties the response cache. Call it after swapping in a new
// snapshot, to free the old one's answers at once: without it they are
// dropped by the first request on the new snapshot, and never served
// either way.
func (s *Server) PurgeCache() { s.Cache.Purge() }

// Close deletes the files the server wrote for itself: the data dumps
// rewritten for its base URL. Call it once the handler serves no more
// requests.
func (s *Server) Close() error { return s.files.Close() }

// Handler returns the http.Handler serving every route of s.
func (s *Server) Handler() http.Handler { return s.handler }

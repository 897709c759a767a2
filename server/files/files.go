// Package files is the data and description files beside the pages: the
// OpenAPI document, the capabilities document (/.well-known/), the
// sitemaps, robots.txt, llms.txt, the data dumps (with their own
// stored-gzip path and Range), the catalogue, the icons and the style
// sheet.
//
// File map:
//   - files.go: the files' Server and its routes
//   - openapi.go: the OpenAPI document under the base URL
//   - wellknown.go: the capabilities document
//   - sitemap.go: the sitemap index and its children
//   - llms.go: llms.txt
//   - dump.go: the data dumps, rewritten once for the base URL when the
//     index's name another
//   - catalog.go: the data catalogue (DCAT)
//   - static.go: the style sheet, the icons and robots.txt
package files

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"github.com/julienschmidt/httprouter"

	"stationdex/internal/stationjson"
	"stationdex/server/core"
	"stationdex/server/pages"
)

// Server answers the files: its own state is the OpenAPI document under
// the base URL and the dumps rewritten for it; a missing file is answered
// by the pages' not-found page.
type Server struct {
	*core.Server
	pages   *pages.Server
	openapi *core.Entity // the OpenAPI document under base, built once
	Rebased RebasedDumps // dumps rewritten for base, when the index's differ
}

// New returns the files' server over c; pages answers what is not found.
func New(c *core.Server, p *pages.Server) *Server {
	return &Server{Server: c, pages: p, openapi: OpenAPIEntity(c.Base)}
}

// Close deletes the dumps rewritten for the base URL.
func (s *Server) Close() error { return s.Rebased.Close() }

// Routes is the files' route table.
func (s *Server) Routes() []core.Route {
	return []core.Route{
		core.Get(core.PathOpenAPI, s.openAPI),
		core.Get(core.PathCapabilities, s.metaResource(s.capabilities)),
		core.Get(core.PathCatalog, s.metaResource(s.catalog)),
		core.Get(core.PathDumpJSON, s.serveDump(stationjson.DumpJSON)),
		core.Get(core.PathDumpNDJSON, s.serveDump(stationjson.DumpNDJSON)),
		core.Get(core.PathSitemap, s.Resource(s.sitemapIndex, s.WriteError)),
		core.Get(core.PathSitemaps+":file", s.Resource(s.sitemapChild, s.writeFileError)),
		core.Get(core.PathLLMs, s.Resource(s.llmsTxt, s.WriteError)),
		core.Get("/static/:file", s.staticFile),
		core.Get(core.PathFaviconSVG, s.serveAsset(faviconSVG, DailyAge)),
		core.Get(core.PathFaviconICO, s.serveAsset(faviconICO, DailyAge)),
		core.Get(core.PathRobots, s.serveAsset(s.robotsTxt(), DailyAge)),
	}
}

// writeFileError answers a file outside the API that failed: a name that
// names no file gets the not-found page every unknown path gets; other
// errors (503 while no index is loaded) keep the error body.
func (s *Server) writeFileError(w http.ResponseWriter, r *http.Request, err error) {
	if status, _ := core.ErrorStatus(err); status == http.StatusNotFound {
		s.pages.NotFound(w, r, nil)
		return
	}
	s.WriteError(w, r, err)
}

// metaResource serves a JSON document built from the index, cacheable
// metaResource serves a JSON document built from the index (capabilities,
// catalog), with CORS like the API. Its key is its path: it takes no query.
func (s *Server) metaResource(build func(ix core.Index) (any, error)) httprouter.Handle {
	answer := s.Resource(func(r *http.Request, _ httprouter.Params) (string, core.Builder, error) {
		return r.URL.Path, func(ix core.Index, dst []byte) (core.EntityHead, []byte, error) {
			doc, err := build(ix)
			if err != nil {
				return core.EntityHead{}, dst, err
			}
			body, err := core.EncodeResponse(dst, doc)
			return core.JSONHead, body, err
		}, nil
	}, s.WriteError)
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		core.SetCORS(w.Header(), r)
		answer(w, r, ps)
	}
}

// contentTag is a strong ETag of a body that depends on nothing else.
func contentTag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

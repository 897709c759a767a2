package server

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"

	"github.com/julienschmidt/httprouter"

	"stationdex/indexer/stationjson"
	"stationdex/query"
)

// resourceRoutes registers the machine-readable resources beside the pages:
// the API description, the capabilities document, the dumps and their
// catalog, the sitemap and llms.txt.
func (s *Server) resourceRoutes(r *httprouter.Router) {
	s.get(r, pathOpenAPI, s.openAPI)
	s.get(r, pathCapabilities, s.metaResource(s.capabilities))
	s.get(r, pathCatalog, s.metaResource(s.catalog))
	s.get(r, pathDumpJSON, s.serveDump(stationjson.DumpJSON))
	s.get(r, pathDumpNDJSON, s.serveDump(stationjson.DumpNDJSON))
	s.get(r, pathSitemap, s.sitemapIndex)
	s.get(r, pathSitemaps+":file", s.sitemapChild)
	s.get(r, pathLLMs, s.llmsTxt)
}

// metaResource serves a JSON document built from the index, cacheable
// with an ETag of the snapshot, the base URL and the route.
func (s *Server) metaResource(build func(ix *query.Index) (any, error)) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
		setCORS(w.Header())
		ix, release := s.acquire()
		if ix == nil {
			s.writeError(w, r, errNoIndex)
			return
		}
		defer release()
		doc, err := build(ix)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if err := s.writeCacheable(w, r, etag(ix.Meta(), s.base, r.URL.Path), doc); err != nil {
			s.writeError(w, r, err)
		}
	}
}

// writeBody writes a complete body with its type and the caching headers
// of a snapshot-derived resource (tag is its ETag).
func (s *Server) writeBody(w http.ResponseWriter, r *http.Request, contentType, tag string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("X-Content-Type-Options", "nosniff")
	if s.revalidated(w, r, tag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body) // a write error means the client left
	}
}

// contentTag is a strong ETag of a body that depends on nothing else.
func contentTag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

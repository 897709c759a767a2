package server

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"github.com/julienschmidt/httprouter"

	"stationdex/internal/stationjson"
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
	s.get(r, pathSitemap, s.resource(s.sitemapIndex, s.writeError))
	s.get(r, pathSitemaps+":file", s.resource(s.sitemapChild, s.writeFileError))
	s.get(r, pathLLMs, s.resource(s.llmsTxt, s.writeError))
}

// writeFileError answers a file outside the API that failed: a name that
// names no file gets the not-found page every unknown path gets; other
// errors (503 while no index is loaded) keep the error body.
func (s *Server) writeFileError(w http.ResponseWriter, r *http.Request, err error) {
	if status, _ := errorStatus(err); status == http.StatusNotFound {
		s.notFound(w, r, nil)
		return
	}
	s.writeError(w, r, err)
}

// metaResource serves a JSON document built from the index, cacheable
// metaResource serves a JSON document built from the index (capabilities,
// catalog), with CORS like the API. Its key is its path: it takes no query.
func (s *Server) metaResource(build func(ix *query.Index) (any, error)) httprouter.Handle {
	answer := s.resource(func(r *http.Request, _ httprouter.Params) (string, builder, error) {
		return r.URL.Path, func(ix *query.Index, dst []byte) (entityHead, []byte, error) {
			doc, err := build(ix)
			if err != nil {
				return entityHead{}, dst, err
			}
			body, err := encodeResponse(dst, doc)
			return jsonHead, body, err
		}, nil
	}, s.writeError)
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		setCORS(w.Header(), r)
		answer(w, r, ps)
	}
}

// contentTag is a strong ETag of a body that depends on nothing else.
func contentTag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

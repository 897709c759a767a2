package server

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"net/http"

	"github.com/julienschmidt/httprouter"
)

// openAPIDocument is the OpenAPI 3.1 description of the JSON API, kept as
// a committed file so that linters (spectral, in CI) and the response
// validation test read exactly what is served. Its own URLs are written
// for the default base URL and moved to this server's when served.
//
//go:embed openapi.json
var openAPIDocument []byte

// openAPIBase is the base URL the committed document is written for.
const openAPIBase = "http://127.0.0.1:8080"

// openAPIFor returns the document with its URLs under base.
func openAPIFor(base string) []byte {
	quoted, _ := json.Marshal(base) // a string always marshals
	return bytes.ReplaceAll(openAPIDocument, []byte(`"`+openAPIBase), quoted[:len(quoted)-1])
}

// openAPIEntity is the document for base as an entity, built once per
// server: it depends on nothing else, so its tag is its digest.
func openAPIEntity(base string) *entity {
	doc := openAPIFor(base)
	return &entity{contentType: jsonType, tag: contentTag(doc), body: doc}
}

func (s *Server) openAPI(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	setCORS(w.Header(), r)
	s.send(w, r, s.openapi, reply{cacheControl: s.cacheControl}, keepVariant)
}

package files

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"net/http"

	"github.com/julienschmidt/httprouter"

	"stationdex/server/core"
)

// OpenAPIDocument is the OpenAPI 3.1 description of the JSON API, kept as
// a committed file so that linters (spectral, in CI) and the response
// validation test read exactly what is served. Its own URLs are written
// for the default base URL and moved to this server's when served.
//
//go:embed openapi.json
var OpenAPIDocument []byte

// OpenAPIBase is the base URL the committed document is written for.
const OpenAPIBase = "http://127.0.0.1:8080"

// OpenAPIFor returns the document with its URLs under base.
func OpenAPIFor(base string) []byte {
	quoted, _ := json.Marshal(base) // a string always marshals
	return bytes.ReplaceAll(OpenAPIDocument, []byte(`"`+OpenAPIBase), quoted[:len(quoted)-1])
}

// OpenAPIEntity is the document for base as an entity, built once per
// server: it depends on nothing else, so its tag is its digest.
func OpenAPIEntity(base string) *core.Entity {
	doc := OpenAPIFor(base)
	return &core.Entity{ContentType: core.JSONType, Tag: contentTag(doc), Body: doc}
}

func (s *Server) openAPI(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	core.SetCORS(w.Header(), r)
	s.Send(w, r, s.openapi, core.Reply{CacheControl: s.CacheControl}, core.KeepVariant)
}

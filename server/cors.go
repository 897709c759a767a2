package server

import (
	"net/http"

	"github.com/julienschmidt/httprouter"
)

// The API is public and read-only with no credentials, so any origin may
// read it. Preflights are only needed for the conditional-request headers a
// cache-aware browser client sends; ETag is exposed so such a client can
// read it and send If-None-Match.
const (
	corsAllowMethods  = "GET, HEAD, OPTIONS"
	corsAllowHeaders  = "Accept, Accept-Language, Cache-Control, If-None-Match, If-Modified-Since"
	corsExposeHeaders = "ETag, Retry-After"
	corsMaxAge        = "86400" // a day: the policy never changes at run time
)

// setCORS adds the headers every API response carries, errors included, so
// that a browser client can read the error body too.
// The CORS values as net/http keeps them, shared (see entityFields).
var (
	fieldAnyOrigin     = []string{"*"}
	fieldExposeHeaders = []string{corsExposeHeaders}
)

func setCORS(h http.Header) {
	h["Access-Control-Allow-Origin"] = fieldAnyOrigin
	h["Access-Control-Expose-Headers"] = fieldExposeHeaders
}

// preflight answers OPTIONS on an API route: 204 with Allow and the CORS
// preflight headers. It answers every OPTIONS request the same way, because
// the answer does not depend on the requested method or headers.
func preflight(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
	h := w.Header()
	setCORS(h)
	h.Set("Allow", corsAllowMethods)
	h.Set("Access-Control-Allow-Methods", corsAllowMethods)
	h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
	h.Set("Access-Control-Max-Age", corsMaxAge)
	h.Set("Cache-Control", "public, max-age="+corsMaxAge)
	w.WriteHeader(http.StatusNoContent)
}

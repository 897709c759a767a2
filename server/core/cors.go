package core

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
	CorsAllowHeaders  = "Accept, Accept-Language, Cache-Control, If-None-Match, If-Modified-Since"
	CorsExposeHeaders = "ETag, Retry-After"
	corsMaxAge        = "86400" // a day: the policy never changes at run time
)

// The CORS values as net/http keeps them, shared (see entityFields). Each
// has a capacity of 1, so an Add to the header appends to a copy.
var (
	fieldAnyOrigin     = []string{"*"}
	fieldExposeHeaders = []string{CorsExposeHeaders}
	fieldVaryOrigin    = []string{"Origin"}
	// fieldVaryOriginEncoding is what varyAcceptEncoding makes of
	// fieldVaryOrigin: one line, not two.
	fieldVaryOriginEncoding = []string{"Origin, Accept-Encoding"}
	// FieldVaryAccept is a page's Vary (it has a Markdown twin), and
	// fieldVaryAcceptEncoding what varyAcceptEncoding makes of it: the
	// two lines pages have always sent.
	FieldVaryAccept         = []string{"Accept"}
	fieldVaryAcceptEncoding = []string{"Accept", "Accept-Encoding"}
)

// SetCORS adds the CORS headers to an API response, errors included, so
// that a browser client can read the error body too. Only a request that
// carries Origin gets them: a browser sends Origin with every cross-origin
// request, and CORS headers mean nothing to a client that is not one.
// Leaving them out of the other answers keeps a cached answer to two
// header entries fewer (net/http copies the header map for every
// response, and past 8 entries the map and its copy are a table each).
// Vary: Origin, on both, keeps a shared cache from giving a browser the
// answer made for a request without Origin.
func SetCORS(h http.Header, r *http.Request) {
	AddVary(h, fieldVaryOrigin)
	if _, ok := r.Header["Origin"]; !ok {
		return
	}
	setCORSAnswer(h)
}

// setCORSAnswer adds the CORS headers whatever the request.
func setCORSAnswer(h http.Header) {
	h["Access-Control-Allow-Origin"] = fieldAnyOrigin
	h["Access-Control-Expose-Headers"] = fieldExposeHeaders
}

// AddVary adds field's one value to the answer's Vary: the shared field
// itself when there is no Vary yet (which varyAcceptEncoding recognises),
// else appended to what the handler already varies on.
func AddVary(h http.Header, field []string) {
	if _, ok := h["Vary"]; ok {
		h.Add("Vary", field[0])
	} else {
		h["Vary"] = field
	}
}

// VaryAcceptEncoding adds Accept-Encoding to the answer's Vary, keeping
// the shared fields of a single line where it can.
func VaryAcceptEncoding(h http.Header) {
	switch v, ok := h["Vary"]; {
	case !ok:
		h["Vary"] = fieldAcceptEncoding
	case len(v) == 1 && &v[0] == &fieldVaryOrigin[0]:
		h["Vary"] = fieldVaryOriginEncoding
	case len(v) == 1 && &v[0] == &FieldVaryAccept[0]:
		h["Vary"] = fieldVaryAcceptEncoding
	default:
		h.Add("Vary", "Accept-Encoding")
	}
}

// Preflight answers OPTIONS on an API route: 204 with Allow and the CORS
// preflight headers. It answers every OPTIONS request the same way, because
// the answer does not depend on the requested method or headers.
func Preflight(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
	preflight(w, corsAllowMethods, CorsAllowHeaders)
}

// The Radio Browser API takes POST with a form or JSON body, and the
// headers upstream's preflight allows (Content-Type among them), so that
// a browser app's JSON search passes its preflight, as upstream's does.
const (
	corsRBAPIMethods = "GET, HEAD, POST, OPTIONS"
	CorsRBAPIHeaders = CorsAllowHeaders + ", Content-Type, X-Requested-With, User-Agent"
)

// RBAPIPreflightRoute answers the CORS preflight of the Radio Browser
// API's paths under pattern.
func RBAPIPreflightRoute(pattern string) Route {
	return Route{pattern, []string{http.MethodOptions}, func(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
		preflight(w, corsRBAPIMethods, CorsRBAPIHeaders)
	}}
}

func preflight(w http.ResponseWriter, methods, headers string) {
	h := w.Header()
	setCORSAnswer(h) // a preflight always comes from a browser
	h.Set("Allow", methods)
	h.Set("Access-Control-Allow-Methods", methods)
	h.Set("Access-Control-Allow-Headers", headers)
	h.Set("Access-Control-Max-Age", corsMaxAge)
	h.Set("Cache-Control", "public, max-age="+corsMaxAge)
	w.WriteHeader(http.StatusNoContent)
}

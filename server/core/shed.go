package core

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// shedRetryAfter is the Retry-After of a shed request, in seconds: overload
// passes in moments, unlike a missing index.
const shedRetryAfter = 1

// errShed is the client face of a shed request, in the API's error format.
var errShed = &Error{CodeUnavailable, "the server is at capacity; retry in a moment"}

// Shed is the answer to a request the node refuses over its in-flight bound:
// 503 with the API's JSON error body, CORS headers (so browser clients can
// read it) and Retry-After. It does no work beyond writing a fixed body.
func Shed() http.Handler { return http.HandlerFunc(writeShed) }

func writeShed(w http.ResponseWriter, r *http.Request) {
	body, _ := json.Marshal(ErrorBody{errShed.Code, errShed.Message}) // a fixed struct cannot fail
	h := w.Header()
	SetCORS(h, r)
	h.Set("Content-Type", JSONType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Retry-After", strconv.Itoa(shedRetryAfter))
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(body)
}

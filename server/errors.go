package server

import (
	"errors"
	"fmt"
	"net/http"

	"stationdex/query"
)

// Code is the value of the "error" field of an error body. The set is small
// and fixed so that clients can branch on it; the "message" field is for
// people.
type Code string

// The error codes of the API, and the only ones it sends.
const (
	CodeInvalidParameter  Code = "invalid_parameter"  // 400: a value outside its constraint
	CodeUnknownParameter  Code = "unknown_parameter"  // 400: a parameter the operation does not take
	CodeRepeatedParameter Code = "repeated_parameter" // 400: a parameter given more than once
	CodeInvalidRequest    Code = "invalid_request"    // 400: a request no read may be (a GET with a body)
	CodeReadOnly          Code = "read_only"          // 403: a write to the read-only mirror (/json/vote, /json/add)
	CodeNotFound          Code = "not_found"          // 404: no such station or path
	CodeCompatNotIndexed  Code = "compat_not_indexed" // 404: /json/ on an index built without stationdex index -compat
	CodeMethodNotAllowed  Code = "method_not_allowed" // 405: see the Allow header
	CodeNotAcceptable     Code = "not_acceptable"     // 406: Accept excludes application/json
	CodeURITooLong        Code = "uri_too_long"       // 414: request target over the limit
	CodeInvalidRange      Code = "invalid_range"      // 416: a Range header no download can satisfy
	CodeUnavailable       Code = "unavailable"        // 503: no index loaded yet; retry
	CodeInternal          Code = "internal"           // 500: details are in the server log only
	CodeNotImplemented    Code = "not_implemented"    // 501: an upstream path or value under /json/ this node does not serve yet
)

// Error is an error meant for the client: its Message is shown as is, so it
// must never carry internal details.
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// errorf builds a client error.
func errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// errNoIndex is returned when the Source has no index to serve from.
var errNoIndex = &Error{CodeUnavailable, "the station index is not loaded yet; retry shortly"}

// errNoStation is the client face of query.ErrNotFound and of ids that are
// not UUIDs: both are "no such station here".
var errNoStation = &Error{CodeNotFound, "no station with this id in the current snapshot"}

// errorStatus is the one place that maps an error to its HTTP status and
// client error. Anything it does not recognise is internal: the caller logs
// err and the client sees only a generic message.
func errorStatus(err error) (int, *Error) {
	var e *Error
	switch {
	case errors.As(err, &e):
		return codeStatus(e.Code), e
	case errors.Is(err, query.ErrNotFound):
		return http.StatusNotFound, errNoStation
	case errors.Is(err, query.ErrNoCompat):
		return http.StatusNotFound, errNoCompat
	default:
		return http.StatusInternalServerError, &Error{CodeInternal, "internal error; it has been logged"}
	}
}

// codeStatus is the HTTP status of each code.
func codeStatus(c Code) int {
	switch c {
	case CodeInvalidParameter, CodeUnknownParameter, CodeRepeatedParameter, CodeInvalidRequest:
		return http.StatusBadRequest
	case CodeReadOnly:
		return http.StatusForbidden
	case CodeNotFound, CodeCompatNotIndexed:
		return http.StatusNotFound
	case CodeMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case CodeNotAcceptable:
		return http.StatusNotAcceptable
	case CodeURITooLong:
		return http.StatusRequestURITooLong
	case CodeInvalidRange:
		return http.StatusRequestedRangeNotSatisfiable
	case CodeUnavailable:
		return http.StatusServiceUnavailable
	case CodeNotImplemented:
		return http.StatusNotImplemented
	default:
		return http.StatusInternalServerError
	}
}

// errorBody is the JSON error body of the spec.
type errorBody struct {
	Error   Code   `json:"error"`
	Message string `json:"message"`
}

// writeError renders err as a JSON error body. Server-side failures are
// logged with the request, because the client only sees the generic message.
// Errors are not cached: a 503 must clear as soon as an index arrives, and a
// 4xx is cheap to recompute.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, e := errorStatus(err)
	if status == http.StatusInternalServerError { // 501 and 503 are expected answers
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	h := w.Header()
	h.Del("ETag")
	h.Set("Cache-Control", "no-store")
	if status == http.StatusServiceUnavailable {
		h.Set("Retry-After", retryAfterSeconds)
	}
	s.writeJSON(w, r, status, errorBody{e.Code, e.Message})
}

package core

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"

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
	CodeRBAPINotIndexed   Code = "compat_not_indexed" // 404: /json/ on an index built without stationdex index -compat
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

// Errorf builds a client error.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrNoIndex is returned when the Source has no index to serve from.
var ErrNoIndex = &Error{CodeUnavailable, "the station index is not loaded yet; retry shortly"}

// ErrNoStation is the client face of query.ErrNotFound and of ids that are
// not UUIDs: both are "no such station here".
var ErrNoStation = &Error{CodeNotFound, "no station with this id in the current snapshot"}

// ErrorStatus is the one place that maps an error to its HTTP status and
// client error. Anything it does not recognise is internal: the caller logs
// err and the client sees only a generic message.
func ErrorStatus(err error) (int, *Error) {
	var e *Error
	switch {
	case errors.As(err, &e):
		return CodeStatus(e.Code), e
	case errors.Is(err, query.ErrNotFound):
		return http.StatusNotFound, ErrNoStation
	case errors.Is(err, query.ErrNoRBAPI):
		return http.StatusNotFound, ErrNoRBAPI
	default:
		return http.StatusInternalServerError, &Error{CodeInternal, "internal error; it has been logged"}
	}
}

// CodeStatus is the HTTP status of each code.
func CodeStatus(c Code) int {
	switch c {
	case CodeInvalidParameter, CodeUnknownParameter, CodeRepeatedParameter, CodeInvalidRequest:
		return http.StatusBadRequest
	case CodeReadOnly:
		return http.StatusForbidden
	case CodeNotFound, CodeRBAPINotIndexed:
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

// ErrorBody is the JSON error body of the spec.
type ErrorBody struct {
	Error   Code   `json:"error"`
	Message string `json:"message"`
}

// WriteError renders err as a JSON error body. Server-side failures are
// logged with the request, because the client only sees the generic message.
// Errors are not cached: a 503 must clear as soon as an index arrives, and a
// 4xx is cheap to recompute.
func (s *Server) WriteError(w http.ResponseWriter, r *http.Request, err error) {
	status, e := ErrorStatus(err)
	if status == http.StatusInternalServerError { // 501 and 503 are expected answers
		s.Log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	h := w.Header()
	h.Del("ETag")
	h.Set("Cache-Control", "no-store")
	if status == http.StatusServiceUnavailable {
		h.Set("Retry-After", RetryAfterSeconds)
	}
	s.writeJSON(w, r, status, ErrorBody{e.Code, e.Message})
}

// Limits of the search parameters, from the spec.
const (
	MaxQRunes      = 120
	MaxFacetRunes  = query.MaxFilterRunes // language and genre
	MinLimit       = 1
	MaxLimit       = query.MaxLimit
	DefaultLimit   = 20
	MaxOffset      = 5000
	maxEchoedRunes = 40 // of user input quoted back in an error message
)

// QuoteClip quotes user input for an error message: cut to a few dozen
// characters, so a message never reflects a huge input, and Go-quoted, so
// odd characters are visible.
func QuoteClip(s string) string {
	if utf8.RuneCountInString(s) > maxEchoedRunes {
		r := []rune(s)
		return strconv.Quote(string(r[:maxEchoedRunes])) + "…"
	}
	return strconv.Quote(s)
}

var (
	// ErrNoRBAPI: the index served has no compatible data (it is
	// optional, format.Meta.RBAPI); query.ErrNoRBAPI is answered so too.
	ErrNoRBAPI = &Error{CodeRBAPINotIndexed, "this node's index was built without the Radio Browser compatible data, so /json/ is not served; rebuild the index with `stationdex index -compat` to serve it"}
)

package core

import (
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"
)

// The request guard: refusals decided from the request line and headers
// alone, before any route runs, for requests no route should see. What
// net/http refuses on its own (malformed request lines and headers, headers
// over MaxHeaderBytes: 400 and 431 in plain text) never gets this far.

// MaxRequestURIBytes bounds the request target. The longest target the
// service itself links to is a search page with a 120-character q and two
// 60-character filters, every character percent-encoded UTF-8: under 4 KiB.
// Anything twice that is not a link anyone followed. (A target longer than
// the node's MaxHeaderBytes is refused by net/http with 431 before it gets
// here: net/http cannot tell a long request line from long headers.)
const MaxRequestURIBytes = 8 << 10

// MaxRanges bounds the ranges of one Range header. Downloads are read
// whole or resumed from one offset; a list of many ranges only asks for a
// multipart response many times the request's size (RFC 9110 14.2 lets a
// server reject it).
const MaxRanges = 8

// Guard wraps the router with the request guard. Its refusals are
// instrumented as RouteUnmatched, like the router's own 404 and 405.
func (s *Server) Guard(next http.Handler) http.Handler {
	refuse := s.Instrument(RouteUnmatched, func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
		s.refuse(w, r, refusal(r))
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refusal(r) != nil {
			refuse(w, r, nil) // decided twice, but only for refused requests
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refusal is the reason r is refused, or nil when it may be routed.
func refusal(r *http.Request) *Error {
	switch {
	case !strings.HasPrefix(r.URL.Path, "/"):
		// An authority-form (CONNECT) or path-less absolute-form target:
		// the router would redirect it to its own URL, another host's.
		return Errorf(CodeInvalidRequest, "the request target must be a path starting with /")
	case len(r.RequestURI) > MaxRequestURIBytes:
		return Errorf(CodeURITooLong, "the request target is %d bytes long; the maximum is %d", len(r.RequestURI), MaxRequestURIBytes)
	case HasDotSegment(r.URL.Path):
		// Clients remove "." and ".." segments before sending (RFC 3986
		// 5.2.4); only a traversal attempt keeps them. No resource has
		// such a path, so it is a 404 wherever it points.
		return Errorf(CodeNotFound, "no resource has a path with . or .. segments")
	case HasBody(r) && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		// A body on a read has no meaning (RFC 9110 9.3.1) and is the
		// raw material of request smuggling through a proxy in front.
		return Errorf(CodeInvalidRequest, "a %s request must not have a body", r.Method)
	case IsAPIPath(r.URL.Path) && r.Method != http.MethodOptions && !AcceptsJSON(r.Header.Values("Accept")):
		return Errorf(CodeNotAcceptable, "the API answers only application/json; send Accept: application/json or leave Accept out")
	case !RangeAcceptable(r.Header.Get("Range")):
		return Errorf(CodeInvalidRange, "the Range header asks for more than %d ranges or for an empty suffix; ask for fewer, non-empty ranges", MaxRanges)
	}
	return nil
}

func HasBody(r *http.Request) bool { return r.ContentLength != 0 || len(r.TransferEncoding) > 0 }

// RangeAcceptable screens a byte Range header for what http.ServeContent
// lets through: any number of ranges, and "-0", which it answers with an
// empty 206 although a zero-length suffix cannot be satisfied (RFC 9110
// 14.1.3). Everything else about ranges is left to ServeContent, and
// resources without ranges ignore the header as before.
func RangeAcceptable(header string) bool {
	spec, ok := strings.CutPrefix(header, "bytes=")
	if !ok {
		return true
	}
	n := 0
	for part := range strings.SplitSeq(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if n++; n > MaxRanges || strings.Trim(part, "-0") == "" && strings.HasPrefix(part, "-") {
			return false
		}
	}
	return true
}

// refuse answers a refused request: a JSON error body under /api/ and
// /json/, where clients expect JSON, and plain text elsewhere.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, e *Error) {
	if HasBody(r) {
		w.Header().Set("Connection", "close") // the body is not read
	}
	if IsAPIPath(r.URL.Path) || IsRBAPIPath(r.URL.Path) {
		SetCORS(w.Header(), r)
		s.WriteError(w, r, e)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, e.Message, CodeStatus(e.Code))
}

// HasDotSegment reports a "." or ".." segment in a decoded path, including
// one spelt %2e%2e or reached through an encoded slash.
func HasDotSegment(path string) bool {
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// AcceptsJSON reports whether Accept admits application/json: no Accept
// at all (or an empty one), or a range covering it whose most specific
// match has q > 0 (RFC 9110 12.5.1: "application/json;q=0, */*" excludes
// JSON).
func AcceptsJSON(accept []string) bool {
	if len(accept) == 0 {
		return true
	}
	best, q, ranges := -1, 0.0, 0 // specificity and q of the best matching range
	for _, field := range accept {
		for part := range strings.SplitSeq(field, ",") {
			mediaType, pq := ParseAcceptPart(part)
			if mediaType == "" {
				continue // empty list elements are allowed and mean nothing
			}
			ranges++
			if spec := jsonSpecificity(mediaType); spec > best || spec == best && pq > q {
				best, q = spec, pq
			}
		}
	}
	return ranges == 0 || best >= 0 && q > 0 // an empty Accept is no Accept
}

// jsonSpecificity is how specifically a media range names application/json:
// 2 exactly, 1 as application/*, 0 as */*, -1 not at all.
func jsonSpecificity(mediaRange string) int {
	switch mediaRange {
	case "application/json":
		return 2
	case "application/*":
		return 1
	case "*/*":
		return 0
	}
	return -1
}

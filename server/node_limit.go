package server

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync/atomic"
)

// shedRetryAfter is the Retry-After of a shed request, in seconds: overload
// passes in moments, unlike a missing index.
const shedRetryAfter = 1

// errShed is the client face of a shed request, in the API's error format.
var errShed = &Error{CodeUnavailable, "the server is at capacity; retry in a moment"}

// limiter bounds the requests being answered at once. It refuses the one
// over the bound immediately instead of queueing it: every answer takes
// about the same tiny amount of work, so a queue would only add latency to
// every request behind it, while a fast 503 lets a load balancer or client
// retry on another replica.
type limiter struct {
	max  int64 // <= 0: no bound, only counting
	n    atomic.Int64
	obs  LoadObserver
	next http.Handler
}

func newLimiter(max int, obs LoadObserver, next http.Handler) *limiter {
	if obs == nil {
		obs = nopLoad{}
	}
	return &limiter{max: int64(max), obs: obs, next: next}
}

func (l *limiter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if n := l.n.Add(1); l.max > 0 && n > l.max {
		l.n.Add(-1)
		l.obs.Shed()
		writeShed(w)
		return
	}
	l.obs.RequestStarted()
	defer func() {
		l.n.Add(-1)
		l.obs.RequestDone()
	}()
	l.next.ServeHTTP(w, r)
}

func (l *limiter) inFlight() int { return int(l.n.Load()) }

// writeShed answers 503 with the API's JSON error body and CORS headers, so
// browser clients can read it too.
func writeShed(w http.ResponseWriter) {
	body, _ := json.Marshal(errorBody{errShed.Code, errShed.Message}) // a fixed struct cannot fail
	h := w.Header()
	setCORS(h)
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Retry-After", strconv.Itoa(shedRetryAfter))
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(body)
}

type nopLoad struct{}

func (nopLoad) RequestStarted() {}
func (nopLoad) RequestDone()    {}
func (nopLoad) Shed()           {}

package node

import (
	"net/http"
	"sync/atomic"
)

// limiter bounds the requests being answered at once. It refuses the one
// over the bound immediately instead of queueing it: every answer takes
// about the same tiny amount of work, so a queue would only add latency to
// every request behind it, while a fast 503 lets a load balancer or client
// retry on another replica.
type limiter struct {
	max  int64 // <= 0: no bound, only counting
	n    atomic.Int64
	obs  LoadObserver
	shed http.Handler // the answer to a refused request
	next http.Handler
}

func newLimiter(max int, obs LoadObserver, shed, next http.Handler) *limiter {
	if obs == nil {
		obs = nopLoad{}
	}
	if shed == nil {
		shed = http.HandlerFunc(plainShed)
	}
	return &limiter{max: int64(max), obs: obs, shed: shed, next: next}
}

func (l *limiter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if n := l.n.Add(1); l.max > 0 && n > l.max {
		l.n.Add(-1)
		l.obs.Shed()
		l.shed.ServeHTTP(w, r)
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

// plainShed is the answer to a refused request when the node is given
// none: 503 with Retry-After, which every HTTP client understands.
func plainShed(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Retry-After", "1")
	plain(w, http.StatusServiceUnavailable, "at capacity; retry in a moment\n")
}

type nopLoad struct{}

func (nopLoad) RequestStarted() {}
func (nopLoad) RequestDone()    {}
func (nopLoad) Shed()           {}

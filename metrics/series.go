package metrics

import (
	"maps"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// requestKey names the series one answered request is counted in.
type requestKey struct {
	route, method string
	code          int
}

// requestSeries are the request counter and the duration histogram of one
// requestKey, resolved once: WithLabelValues hashes every label and looks
// the child up under a lock, and the code label is a string made from the
// status, all on every request. A node answers a handful of keys, so after
// the first request of each a request costs one lock-free map lookup.
type requestSeries struct {
	count    prometheus.Counter
	duration prometheus.Observer
}

// maxResolvedSeries bounds the keys kept resolved. The method label comes
// from the request, so a client can make up keys; past the bound they are
// looked up through the vectors as before (and the bound keeps the
// copy-on-write below from growing without end).
const maxResolvedSeries = 256

// resolvedSeries maps requestKeys to their series. Readers load the map
// without a lock; a new key copies it under mu (rare: once per key).
type resolvedSeries struct {
	mu sync.Mutex
	m  atomic.Pointer[map[requestKey]*requestSeries]
}

// series returns the series of (route, method, code) in m's vectors.
func (m *Metrics) series(route, method string, code int) *requestSeries {
	k := requestKey{route, method, code}
	if p := m.resolved.m.Load(); p != nil {
		if s, ok := (*p)[k]; ok {
			return s
		}
	}
	s := &requestSeries{
		count:    m.requests.WithLabelValues(route, method, strconv.Itoa(code)),
		duration: m.duration.WithLabelValues(route),
	}
	m.resolved.add(k, s)
	return s
}

// add stores s under k, unless the bound is reached.
func (r *resolvedSeries) add(k requestKey, s *requestSeries) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var old map[requestKey]*requestSeries
	if p := r.m.Load(); p != nil {
		old = *p
	}
	if len(old) >= maxResolvedSeries {
		return
	}
	next := maps.Clone(old)
	if next == nil {
		next = map[requestKey]*requestSeries{}
	}
	next[k] = s
	r.m.Store(&next)
}

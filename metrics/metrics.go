// Package metrics owns stationdex's Prometheus collectors.
//
// Everything is registered on a prometheus.Registerer passed in, never on the
// global default registry, so tests use a fresh registry and two nodes in one
// process do not collide. Names follow the Prometheus conventions: a
// stationdex_ prefix, base units in the name (_seconds), _total on counters.
//
// Labels are bounded on purpose: routes are route templates supplied by the
// server (never raw paths or query text), methods are the few the server
// routes, codes are HTTP status codes and stages are a fixed pair.
//
// File map:
//   - metrics.go: this comment; Metrics, its collectors and the hooks the
//     server, the limiter and the reloader call (requests, search stages,
//     shed requests, swaps)
//   - series.go: the request series resolved once per (route, method,
//     code), so that an answered request looks no label up
//   - index.go: the index series: stationdex_index_info and the
//     snapshot's age, from one meta document
//   - cache.go: the response cache's series, read from its own counters
//     at scrape time
//   - follow.go: Follow, the series of a node following a source (serve
//     -follow): attempts by result, failures in a row, download and build
//     durations
package metrics

import (
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"stationdex/internal/format"
)

const namespace = "stationdex"

// Search stages, the values of the stage label.
const (
	StageBitmap = "bitmap" // posting-list lookups, intersections, rank/select
	StageDecode = "decode" // reading the requested page: its records decoded, or (the JSON API) its stored JSON copied
)

// Swap outcomes, the values of the outcome label.
const (
	OutcomeSuccess = "success"
	OutcomeFailure = "failure"
)

// LatencyBuckets are the classic buckets of request latency. Answers from a
// memory-mapped index take tens to hundreds of microseconds, so the buckets
// start at 50µs; they end at 1s, past which the node is broken rather than
// slow. Native histograms (below) give finer resolution where the scraper
// supports them.
var LatencyBuckets = []float64{
	50e-6, 100e-6, 250e-6, 500e-6,
	1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 250e-3, 500e-3, 1,
}

// StageBuckets are the classic buckets of one search stage, a fraction of a
// request: they start lower than LatencyBuckets.
var StageBuckets = []float64{
	5e-6, 10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6,
	1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 100e-3,
}

// ResultBuckets are the classic buckets of matches per search. 0 gets its own
// bucket (also counted by stationdex_search_zero_results_total); the upper
// end is the size of the whole directory (~50k stations).
var ResultBuckets = []float64{0, 1, 5, 10, 50, 100, 500, 1000, 5000, 10000, 50000}

// Native histogram settings: factor 1.1 gives ~10% relative bucket width;
// the bucket count is capped so a scrape stays small, and a histogram that
// hits the cap resets at most once an hour.
const (
	nativeFactor       = 1.1
	nativeMaxBuckets   = 160
	nativeMinResetTime = time.Hour
)

// Metrics holds the collectors of one node. It implements the server's
// Observer hook. All methods are safe for concurrent use.
type Metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
	limit    prometheus.Gauge
	shed     prometheus.Counter
	stages   *prometheus.HistogramVec
	bitmap   prometheus.Observer
	decode   prometheus.Observer
	results  prometheus.Histogram
	zero     prometheus.Counter
	swaps    *prometheus.CounterVec
	ignored  *prometheus.CounterVec
	index    *indexCollector
	cache    *cacheCollector
	resolved resolvedSeries // of requests and duration, per request key
}

// New creates the node's collectors and registers them, together with the Go
// runtime, process and build-info collectors, on reg.
func New(reg prometheus.Registerer) (*Metrics, error) {
	m := newMetrics(time.Now)
	for _, c := range m.collectors() {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register metrics: %w", err)
		}
	}
	return m, nil
}

func newMetrics(now func() time.Time) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "http", Name: "requests_total",
			Help: "HTTP requests answered on the public port, by route template, method and status code.",
		}, []string{"route", "method", "code"}),
		duration: prometheus.NewHistogramVec(histogramOpts("http", "request_duration_seconds",
			"Time to answer an HTTP request on the public port, by route template.", LatencyBuckets),
			[]string{"route"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Subsystem: "http", Name: "requests_in_flight",
			Help: "HTTP requests being answered on the public port right now.",
		}),
		limit: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Subsystem: "http", Name: "requests_in_flight_limit",
			Help: "The bound on requests in flight (-max-inflight); 0 when unbounded.",
		}),
		shed: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "http", Name: "requests_shed_total",
			Help: "HTTP requests refused with 503 because the in-flight limit was reached.",
		}),
		stages: prometheus.NewHistogramVec(histogramOpts("search", "stage_duration_seconds",
			"Time spent in one stage of a search: bitmap work or record decoding.", StageBuckets),
			[]string{"stage"}),
		results: prometheus.NewHistogram(histogramOpts("search", "results",
			"Stations matching one search (its total, not the page length).", ResultBuckets)),
		zero: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "search", Name: "zero_results_total",
			Help: "Searches that matched no station.",
		}),
		swaps: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "snapshot", Name: "swaps_total",
			Help: "Attempts to replace the served index snapshot, by outcome.",
		}, []string{"outcome"}),
		ignored: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "rbapi", Name: "ignored_parameters_total",
			Help: "Parameters a request under /json/ gave and its path ignored, as upstream ignores them: by the upstream's name, other for any other name.",
		}, []string{"parameter"}),
		index: newIndexCollector(now),
		cache: &cacheCollector{},
	}
	m.bitmap = m.stages.WithLabelValues(StageBitmap)
	m.decode = m.stages.WithLabelValues(StageDecode)
	// Both outcomes exist from the start, so rate() and increase() see the
	// first failure instead of a series appearing out of nothing.
	m.swaps.WithLabelValues(OutcomeSuccess)
	m.swaps.WithLabelValues(OutcomeFailure)
	return m
}

// histogramOpts gives a histogram both classic buckets and a native
// (sparse) histogram; scrapers without native-histogram support still read
// the classic buckets.
func histogramOpts(subsystem, name, help string, buckets []float64) prometheus.HistogramOpts {
	return prometheus.HistogramOpts{
		Namespace: namespace, Subsystem: subsystem, Name: name, Help: help,
		Buckets:                         buckets,
		NativeHistogramBucketFactor:     nativeFactor,
		NativeHistogramMaxBucketNumber:  nativeMaxBuckets,
		NativeHistogramMinResetDuration: nativeMinResetTime,
	}
}

func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{
		m.requests, m.duration, m.inFlight, m.limit, m.shed, m.stages, m.results,
		m.zero, m.swaps, m.ignored, m.index, m.cache,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewBuildInfoCollector(),
	}
}

// Request records one answered request. route is the route template the
// request matched ("" or unmatched requests should be passed as a fixed
// placeholder by the caller, never the raw path).
func (m *Metrics) Request(route, method string, status int, d time.Duration) {
	s := m.series(route, method, status)
	s.count.Inc()
	s.duration.Observe(d.Seconds())
}

// Search records the stage timings and the number of matches of one search.
func (m *Metrics) Search(bitmap, decode time.Duration, results int) {
	m.bitmap.Observe(bitmap.Seconds())
	m.decode.Observe(decode.Seconds())
	m.results.Observe(float64(results))
	if results == 0 {
		m.zero.Inc()
	}
}

// RBAPIIgnoredParameter counts a parameter the Radio Browser API ignored;
// label is one of a bounded set (rbapi.IgnoredLabel: the upstream's
// parameter names and "other").
func (m *Metrics) RBAPIIgnoredParameter(label string) { m.ignored.WithLabelValues(label).Inc() }

// RequestStarted and RequestDone bracket a request admitted by the in-flight
// limiter.
func (m *Metrics) RequestStarted() { m.inFlight.Inc() }

// RequestDone: see RequestStarted.
func (m *Metrics) RequestDone() { m.inFlight.Dec() }

// SetInFlightLimit publishes the in-flight bound, so that saturation is
// in_flight / limit in a query instead of a number copied into alert rules.
// n <= 0 means unbounded and is published as 0.
func (m *Metrics) SetInFlightLimit(n int) { m.limit.Set(float64(max(n, 0))) }

// Shed records a request refused because the in-flight limit was reached.
func (m *Metrics) Shed() { m.shed.Inc() }

// SetIndex describes the snapshot now being served (its meta document).
func (m *Metrics) SetIndex(meta format.Meta) { m.index.set(indexInfoFromMeta(meta)) }

// ClearIndex records that no snapshot is being served (the index series
// disappear until the next SetIndex).
func (m *Metrics) ClearIndex() { m.index.clear() }

// SwapSucceeded records a successful snapshot swap to the index described
// by meta.
func (m *Metrics) SwapSucceeded(meta format.Meta) {
	m.swaps.WithLabelValues(OutcomeSuccess).Inc()
	m.index.set(indexInfoFromMeta(meta))
}

// SwapFailed records a refused snapshot swap; the old snapshot keeps serving,
// so the index series are left alone.
func (m *Metrics) SwapFailed() { m.swaps.WithLabelValues(OutcomeFailure).Inc() }

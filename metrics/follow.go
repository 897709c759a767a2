package metrics

import (
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// FollowBuckets are the classic buckets of a download or a build of a
// snapshot: from a published demo file (milliseconds) to a 5M-station
// build (minutes).
var FollowBuckets = []float64{0.01, 0.05, 0.25, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800}

// Follow holds the series of a node following a source (serve -follow):
// every attempt by its result, the last result, the failures in a row,
// and how long downloads and builds take. The served snapshot's age is
// stationdex_index_age_seconds, from the same swaps as ever.
type Follow struct {
	attempts    *prometheus.CounterVec
	last        *prometheus.GaugeVec
	failures    prometheus.Gauge
	lastSuccess prometheus.Gauge
	period      prometheus.Gauge
	download    prometheus.Histogram
	build       prometheus.Histogram
	results     []string
}

// NewFollow registers the follower's series on reg. results are every
// value the result label takes (a small fixed set, the follower's), made
// at once so rate() sees the first of each; period is -every.
func NewFollow(reg prometheus.Registerer, period time.Duration, results []string) (*Follow, error) {
	f := &Follow{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "follow", Name: "attempts_total",
			Help: "Checks of the followed source, by result: swapped, unchanged, or the reason it failed.",
		}, []string{"result"}),
		last: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: namespace, Subsystem: "follow", Name: "last_result",
			Help: "1 for the result of the last check of the source, 0 for the others.",
		}, []string{"result"}),
		failures: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Subsystem: "follow", Name: "consecutive_failures",
			Help: "Checks of the source that failed in a row since the last one that did not.",
		}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Subsystem: "follow", Name: "last_success_timestamp_seconds",
			Help: "Unix time of the last check that left the node serving the source's snapshot (swapped or unchanged).",
		}),
		period: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Subsystem: "follow", Name: "period_seconds",
			Help: "How often the source is checked (-every); alerts compare the snapshot's age with it.",
		}),
		download: prometheus.NewHistogram(histogramOpts("follow", "download_duration_seconds",
			"Time to download a published snapshot file or a dump.", FollowBuckets)),
		build: prometheus.NewHistogram(histogramOpts("follow", "build_duration_seconds",
			"Time to build an index from a dump, or to check a downloaded one in full, before the swap.", FollowBuckets)),
		results: results,
	}
	for _, c := range []prometheus.Collector{f.attempts, f.last, f.failures, f.lastSuccess, f.period, f.download, f.build} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register follow metrics: %w", err)
		}
	}
	for _, r := range results {
		f.attempts.WithLabelValues(r)
		f.last.WithLabelValues(r)
	}
	f.period.Set(period.Seconds())
	return f, nil
}

// Attempted records the end of one check: its result, the failures in a
// row now (0 after a success), and whether it counts as a success.
func (f *Follow) Attempted(result string, failures int, success bool) {
	f.attempts.WithLabelValues(result).Inc()
	for _, r := range f.results {
		v := 0.0
		if r == result {
			v = 1
		}
		f.last.WithLabelValues(r).Set(v)
	}
	f.failures.Set(float64(failures))
	if success {
		f.lastSuccess.SetToCurrentTime()
	}
}

// Downloaded records the time one download took.
func (f *Follow) Downloaded(d time.Duration) { f.download.Observe(d.Seconds()) }

// Built records the time one build or full check took.
func (f *Follow) Built(d time.Duration) { f.build.Observe(d.Seconds()) }

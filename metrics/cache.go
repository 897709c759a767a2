package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// CacheStats is what the response cache reports of itself: the server's
// server.CacheStats, field for field (converted in cmd/stationdex, so that
// this package needs no import of the server).
type CacheStats struct {
	Hits, Misses, Evictions uint64
	Bytes, MaxBytes         int64 // current size, bound
	Entries                 int
	Declined                uint64 // bodies not stored: first request for their key
}

var (
	cacheHitsDesc = prometheus.NewDesc(namespace+"_response_cache_hits_total",
		"Requests answered from the response cache.", nil, nil)
	cacheMissesDesc = prometheus.NewDesc(namespace+"_response_cache_misses_total",
		"Requests whose body was not in the response cache and was built.", nil, nil)
	cacheEvictionsDesc = prometheus.NewDesc(namespace+"_response_cache_evictions_total",
		"Bodies dropped from the response cache to stay within its bound (not counting a snapshot swap emptying it).", nil, nil)
	cacheBytesDesc = prometheus.NewDesc(namespace+"_response_cache_bytes",
		"Bytes held by the response cache: bodies, compressed variants, keys and per-entry overhead.", nil, nil)
	cacheMaxBytesDesc = prometheus.NewDesc(namespace+"_response_cache_max_bytes",
		"The response cache's bound (-cache-bytes); 0 when disabled.", nil, nil)
	cacheEntriesDesc = prometheus.NewDesc(namespace+"_response_cache_entries",
		"Bodies held by the response cache.", nil, nil)
	cacheDeclinedDesc = prometheus.NewDesc(namespace+"_response_cache_declined_total",
		"Bodies built and not stored because their key had not been asked for recently (-cache-min-uses 2): one-off requests.", nil, nil)
)

// cacheCollector reads the cache's counters at scrape time: the cache keeps
// them (atomics, one lock for the size), so nothing is counted twice and a
// request pays no metric update. Before a source is set every series is 0.
type cacheCollector struct {
	mu     sync.Mutex
	source func() CacheStats
}

func (c *cacheCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{cacheHitsDesc, cacheMissesDesc, cacheEvictionsDesc, cacheBytesDesc, cacheMaxBytesDesc, cacheEntriesDesc, cacheDeclinedDesc} {
		ch <- d
	}
}

func (c *cacheCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	source := c.source
	c.mu.Unlock()
	var st CacheStats
	if source != nil {
		st = source()
	}
	ch <- prometheus.MustNewConstMetric(cacheHitsDesc, prometheus.CounterValue, float64(st.Hits))
	ch <- prometheus.MustNewConstMetric(cacheMissesDesc, prometheus.CounterValue, float64(st.Misses))
	ch <- prometheus.MustNewConstMetric(cacheEvictionsDesc, prometheus.CounterValue, float64(st.Evictions))
	ch <- prometheus.MustNewConstMetric(cacheBytesDesc, prometheus.GaugeValue, float64(st.Bytes))
	ch <- prometheus.MustNewConstMetric(cacheMaxBytesDesc, prometheus.GaugeValue, float64(st.MaxBytes))
	ch <- prometheus.MustNewConstMetric(cacheEntriesDesc, prometheus.GaugeValue, float64(st.Entries))
	ch <- prometheus.MustNewConstMetric(cacheDeclinedDesc, prometheus.CounterValue, float64(st.Declined))
}

// SetResponseCache names the function that reports the response cache's
// counters; it is called at every scrape and must be safe for concurrent
// use.
func (m *Metrics) SetResponseCache(source func() CacheStats) {
	m.cache.mu.Lock()
	m.cache.source = source
	m.cache.mu.Unlock()
}

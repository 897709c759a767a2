package metrics

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"stationdex/internal/format"
)

// indexInfo is what the index series expose of a snapshot's meta document.
type indexInfo struct {
	SnapshotAt    time.Time
	Source        string
	FormatVersion int
	Stations      int
}

// indexInfoFromMeta describes an index of the current format version: an
// index of any other version cannot have been opened.
func indexInfoFromMeta(m format.Meta) indexInfo {
	return indexInfo{
		SnapshotAt:    m.SnapshotAt,
		Source:        m.Source,
		FormatVersion: format.Version,
		Stations:      m.Stations,
	}
}

var (
	indexInfoDesc = prometheus.NewDesc(namespace+"_index_info",
		"The served index snapshot; always 1, the description is in the labels.",
		[]string{"snapshot_at", "source", "format_version", "stations"}, nil)
	indexAgeDesc = prometheus.NewDesc(namespace+"_index_age_seconds",
		"Seconds since the served snapshot was taken (its snapshot_at).", nil, nil)
)

// indexCollector exposes stationdex_index_info and
// stationdex_index_age_seconds from one description, so a scrape never sees
// the info of one snapshot with the age of another, and never two info
// series at once (as a GaugeVec with Reset+Set could between the two calls).
// Before the first snapshot both series are absent.
type indexCollector struct {
	now     func() time.Time
	mu      sync.Mutex
	info    indexInfo
	present bool
}

func newIndexCollector(now func() time.Time) *indexCollector {
	return &indexCollector{now: now}
}

func (c *indexCollector) set(info indexInfo) {
	c.mu.Lock()
	c.info, c.present = info, true
	c.mu.Unlock()
}

func (c *indexCollector) clear() {
	c.mu.Lock()
	c.info, c.present = indexInfo{}, false
	c.mu.Unlock()
}

func (c *indexCollector) current() (indexInfo, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.info, c.present
}

// Describe implements prometheus.Collector.
func (c *indexCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- indexInfoDesc
	ch <- indexAgeDesc
}

// Collect implements prometheus.Collector.
func (c *indexCollector) Collect(ch chan<- prometheus.Metric) {
	info, ok := c.current()
	if !ok {
		return
	}
	ch <- constGauge(indexInfoDesc, 1,
		info.SnapshotAt.UTC().Format(time.RFC3339), info.Source,
		strconv.Itoa(info.FormatVersion), strconv.Itoa(info.Stations))
	ch <- constGauge(indexAgeDesc, c.now().Sub(info.SnapshotAt).Seconds())
}

// constGauge reports a bad label value as an invalid metric (the registry
// turns it into a scrape error) instead of panicking.
func constGauge(d *prometheus.Desc, v float64, labels ...string) prometheus.Metric {
	m, err := prometheus.NewConstMetric(d, prometheus.GaugeValue, v, labels...)
	if err != nil {
		return prometheus.NewInvalidMetric(d, err)
	}
	return m
}

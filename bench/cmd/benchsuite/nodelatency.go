package main

import (
	"fmt"
	"math"
	"net/http"
	"sort"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The node's own view of a round's latency. wrk's latency of a request
// runs from its send to the last byte read, both sides sharing two cores;
// the node's request-duration histogram runs from routing to the last
// byte handed to the kernel. Set side by side, they tell a tail made in
// the node's handlers from one made waiting for a core.

// nodeDurationMetric is the node's histogram of public requests, by route.
const nodeDurationMetric = "stationdex_http_request_duration_seconds"

// latencyCounts is a histogram's cumulative counts per upper bound
// (seconds), summed over routes.
type latencyCounts map[float64]uint64

// scrapeLatency reads the node's request-duration histogram from the admin
// listener's /metrics.
func scrapeLatency(admin string) (latencyCounts, error) {
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + admin + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s/metrics: status %d", admin, resp.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s/metrics: %w", admin, err)
	}
	fam, ok := fams[nodeDurationMetric]
	if !ok {
		return nil, fmt.Errorf("%s/metrics has no %s", admin, nodeDurationMetric)
	}
	counts := latencyCounts{}
	for _, m := range fam.GetMetric() {
		for _, b := range m.GetHistogram().GetBucket() {
			if !math.IsInf(b.GetUpperBound(), 1) { // the text format lists it; it is the sample count below
				counts[b.GetUpperBound()] += b.GetCumulativeCount()
			}
		}
		counts[math.Inf(1)] += m.GetHistogram().GetSampleCount()
	}
	return counts, nil
}

// since is the counts added after before was taken.
func (c latencyCounts) since(before latencyCounts) latencyCounts {
	d := latencyCounts{}
	for b, n := range c {
		d[b] = n - before[b]
	}
	return d
}

// boundOf is the smallest upper bound (seconds) under which at least q of
// the requests fall; false when there are none.
func (c latencyCounts) boundOf(q float64) (float64, bool) {
	total := c[math.Inf(1)]
	if total == 0 {
		return 0, false
	}
	bounds := make([]float64, 0, len(c))
	for b := range c {
		bounds = append(bounds, b)
	}
	sort.Float64s(bounds)
	for _, b := range bounds {
		if float64(c[b]) >= q*float64(total) {
			return b, true
		}
	}
	return math.Inf(1), true
}

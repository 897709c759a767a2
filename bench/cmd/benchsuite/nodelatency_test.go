package main

import (
	"math"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"stationdex/metrics"
)

// TestNodeP99 reads the node's real histogram (package metrics, served by
// promhttp as the admin listener does): counts are summed over routes,
// only the requests after the first scrape count, and the bound is the
// smallest bucket holding 99% of them.
func TestNodeP99(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()
	admin := strings.TrimPrefix(srv.URL, "http://")
	for range 500 { // before the round: slow ones that must not count
		m.Request("/api/stations", "GET", 200, 2*time.Second)
	}
	before, err := scrapeLatency(admin)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		route := "/api/stations"
		if i%2 == 1 {
			route = "/stations/:id/"
		}
		d := 40 * time.Microsecond
		if i >= 985 { // 1.5% slow: the 99th percentile is in their bucket
			d = 3 * time.Millisecond
		}
		m.Request(route, "GET", 200, d)
	}
	mix := &HTTPMix{Name: "cold"}
	if err := nodeP99(mix, admin, before); err != nil {
		t.Fatal(err)
	}
	if mix.NodeP99Us != 5000 {
		t.Errorf("node p99 at most %v us, want the 5 ms bucket's bound", mix.NodeP99Us)
	}
	after, err := scrapeLatency(admin)
	if err != nil {
		t.Fatal(err)
	}
	d := after.since(before)
	if got := d[math.Inf(1)]; got != 1000 {
		t.Errorf("%d requests in the round, want 1000", got)
	}
	if b, ok := d.boundOf(0.5); !ok || b != 50e-6 {
		t.Errorf("median bound %v, %v; want 50 us", b, ok)
	}
	if _, ok := (latencyCounts{}).boundOf(0.99); ok {
		t.Error("an empty histogram has a p99")
	}
	if _, err := scrapeLatency(strings.TrimPrefix(httptest.NewServer(nil).URL, "http://")); err == nil {
		t.Error("a listener without /metrics accepted")
	}
}

package metrics

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"stationdex/internal/format"
)

// newTestMetrics registers a node's collectors on a fresh registry with a
// fixed clock, so the index age is exact.
func newTestMetrics(t *testing.T, now time.Time) (*Metrics, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	m := newMetrics(func() time.Time { return now })
	for _, c := range m.collectors() {
		if err := reg.Register(c); err != nil {
			t.Fatalf("register: %v", err)
		}
	}
	return m, reg
}

func TestNewRegistersOnGivenRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := New(reg); err != nil {
		t.Fatal(err)
	}
	// A second node on the same registry is a programming error that must
	// come back as an error, not a panic.
	if _, err := New(reg); err == nil {
		t.Fatal("second New on the same registry: want an error")
	}
}

func TestLintClean(t *testing.T) {
	m, reg := newTestMetrics(t, time.Now())
	exercise(m)
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

// exercise touches every series so lint and gather see them all.
func exercise(m *Metrics) {
	m.Request("/api/stations", "GET", 200, 300*time.Microsecond)
	m.Search(40*time.Microsecond, 90*time.Microsecond, 12)
	m.Search(10*time.Microsecond, 0, 0)
	m.RequestStarted()
	m.Shed()
	m.SetIndex(testMeta())
	m.SwapFailed()
}

func testMeta() format.Meta {
	return format.Meta{
		SchemaVersion: format.SchemaVersion,
		SnapshotAt:    time.Date(2025, 2, 27, 10, 0, 0, 0, time.UTC),
		Source:        "Radio Browser (radio-browser.info)",
		Stations:      50664,
	}
}

func TestRequestsByRouteMethodCode(t *testing.T) {
	m, reg := newTestMetrics(t, time.Now())
	m.Request("/api/stations", "GET", 200, time.Millisecond)
	m.Request("/api/stations", "GET", 200, time.Millisecond)
	m.Request("/api/stations/:id", "GET", 404, time.Millisecond)
	want := `
# HELP stationdex_http_requests_total HTTP requests answered on the public port, by route template, method and status code.
# TYPE stationdex_http_requests_total counter
stationdex_http_requests_total{code="200",method="GET",route="/api/stations"} 2
stationdex_http_requests_total{code="404",method="GET",route="/api/stations/:id"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "stationdex_http_requests_total"); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(m.duration); n != 2 {
		t.Fatalf("duration series: got %d, want 2 (one per route)", n)
	}
}

func TestSearchStagesAndZeroResults(t *testing.T) {
	m, _ := newTestMetrics(t, time.Now())
	m.Search(time.Millisecond, 2*time.Millisecond, 3)
	m.Search(time.Millisecond, 0, 0)
	if got := testutil.ToFloat64(m.zero); got != 1 {
		t.Errorf("zero results: got %v, want 1", got)
	}
	if n := testutil.CollectAndCount(m.stages); n != 2 {
		t.Errorf("stage series: got %d, want 2", n)
	}
	if n := testutil.CollectAndCount(m.results); n != 1 {
		t.Errorf("results series: got %d, want 1", n)
	}
}

func TestInFlightAndShed(t *testing.T) {
	m, _ := newTestMetrics(t, time.Now())
	m.RequestStarted()
	m.RequestStarted()
	m.RequestDone()
	m.Shed()
	m.SetInFlightLimit(64)
	if got := testutil.ToFloat64(m.limit); got != 64 {
		t.Errorf("limit: got %v, want 64", got)
	}
	if got := testutil.ToFloat64(m.inFlight); got != 1 {
		t.Errorf("in flight: got %v, want 1", got)
	}
	if got := testutil.ToFloat64(m.shed); got != 1 {
		t.Errorf("shed: got %v, want 1", got)
	}
}

func TestIndexInfoAndAge(t *testing.T) {
	info := testMeta()
	m, reg := newTestMetrics(t, info.SnapshotAt.Add(90*time.Minute))
	if n := testutil.CollectAndCount(m.index); n != 0 {
		t.Fatalf("before any snapshot: got %d index series, want 0", n)
	}
	m.SetIndex(info)
	want := `
# HELP stationdex_index_age_seconds Seconds since the served snapshot was taken (its snapshot_at).
# TYPE stationdex_index_age_seconds gauge
stationdex_index_age_seconds 5400
# HELP stationdex_index_info The served index snapshot; always 1, the description is in the labels.
# TYPE stationdex_index_info gauge
stationdex_index_info{format_version="@VERSION@",snapshot_at="2025-02-27T10:00:00Z",source="Radio Browser (radio-browser.info)",stations="50664"} 1
`
	want = strings.ReplaceAll(want, "@VERSION@", strconv.Itoa(format.Version))
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"stationdex_index_info", "stationdex_index_age_seconds"); err != nil {
		t.Fatal(err)
	}
	m.ClearIndex()
	if n := testutil.CollectAndCount(m.index); n != 0 {
		t.Fatalf("after ClearIndex: got %d index series, want 0", n)
	}
}

func TestSwapOutcomes(t *testing.T) {
	m, reg := newTestMetrics(t, time.Now())
	old := testMeta()
	m.SetIndex(old)
	next := old
	next.SnapshotAt = old.SnapshotAt.Add(24 * time.Hour)
	m.SwapSucceeded(next)
	m.SwapFailed()
	m.SwapFailed()
	want := `
# HELP stationdex_snapshot_swaps_total Attempts to replace the served index snapshot, by outcome.
# TYPE stationdex_snapshot_swaps_total counter
stationdex_snapshot_swaps_total{outcome="failure"} 2
stationdex_snapshot_swaps_total{outcome="success"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "stationdex_snapshot_swaps_total"); err != nil {
		t.Fatal(err)
	}
	// Exactly one info series, describing the new snapshot.
	if got, _ := m.index.current(); !got.SnapshotAt.Equal(next.SnapshotAt) {
		t.Fatalf("index info after swap: snapshot_at %v, want %v", got.SnapshotAt, next.SnapshotAt)
	}
	if n := testutil.CollectAndCount(m.index, "stationdex_index_info"); n != 1 {
		t.Fatalf("index info series: got %d, want 1", n)
	}
}

func TestSwapSeriesExistBeforeFirstSwap(t *testing.T) {
	m, _ := newTestMetrics(t, time.Now())
	if n := testutil.CollectAndCount(m.swaps); n != 2 {
		t.Fatalf("swap series at start: got %d, want 2 (success and failure at 0)", n)
	}
}

func TestHistogramsAreAlsoNative(t *testing.T) {
	m, reg := newTestMetrics(t, time.Now())
	exercise(m)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	native := map[string]bool{}
	for _, f := range families {
		for _, s := range f.GetMetric() {
			if h := s.GetHistogram(); h != nil && h.Schema != nil && len(h.GetBucket()) > 0 {
				native[f.GetName()] = true
			}
		}
	}
	for _, name := range []string{
		"stationdex_http_request_duration_seconds",
		"stationdex_search_stage_duration_seconds",
		"stationdex_search_results",
	} {
		if !native[name] {
			t.Errorf("%s: want both classic buckets and a native histogram schema", name)
		}
	}
}

func TestRuntimeProcessAndBuildInfo(t *testing.T) {
	_, reg := newTestMetrics(t, time.Now())
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range families {
		seen[f.GetName()] = true
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total", "go_build_info"} {
		if !seen[name] {
			t.Errorf("missing %s", name)
		}
	}
}

func TestResponseCacheSeries(t *testing.T) {
	m, reg := newTestMetrics(t, time.Now())
	zero := `
# HELP stationdex_response_cache_bytes Bytes held by the response cache: bodies, compressed variants, keys and per-entry overhead.
# TYPE stationdex_response_cache_bytes gauge
stationdex_response_cache_bytes 0
# HELP stationdex_response_cache_hits_total Requests answered from the response cache.
# TYPE stationdex_response_cache_hits_total counter
stationdex_response_cache_hits_total 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(zero),
		"stationdex_response_cache_bytes", "stationdex_response_cache_hits_total"); err != nil {
		t.Fatalf("before a source is set: %v", err)
	}
	m.SetResponseCache(func() CacheStats {
		return CacheStats{Hits: 7, Misses: 3, Evictions: 2, Bytes: 4096, MaxBytes: 1 << 20, Entries: 5, Declined: 11}
	})
	want := `
# HELP stationdex_response_cache_bytes Bytes held by the response cache: bodies, compressed variants, keys and per-entry overhead.
# TYPE stationdex_response_cache_bytes gauge
stationdex_response_cache_bytes 4096
# HELP stationdex_response_cache_declined_total Bodies built and not stored because their key had not been asked for recently (-cache-min-uses 2): one-off requests.
# TYPE stationdex_response_cache_declined_total counter
stationdex_response_cache_declined_total 11
# HELP stationdex_response_cache_entries Bodies held by the response cache.
# TYPE stationdex_response_cache_entries gauge
stationdex_response_cache_entries 5
# HELP stationdex_response_cache_evictions_total Bodies dropped from the response cache to stay within its bound (not counting a snapshot swap emptying it).
# TYPE stationdex_response_cache_evictions_total counter
stationdex_response_cache_evictions_total 2
# HELP stationdex_response_cache_hits_total Requests answered from the response cache.
# TYPE stationdex_response_cache_hits_total counter
stationdex_response_cache_hits_total 7
# HELP stationdex_response_cache_max_bytes The response cache's bound (-cache-bytes); 0 when disabled.
# TYPE stationdex_response_cache_max_bytes gauge
stationdex_response_cache_max_bytes 1.048576e+06
# HELP stationdex_response_cache_misses_total Requests whose body was not in the response cache and was built.
# TYPE stationdex_response_cache_misses_total counter
stationdex_response_cache_misses_total 3
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"stationdex_response_cache_bytes", "stationdex_response_cache_declined_total", "stationdex_response_cache_entries", "stationdex_response_cache_evictions_total",
		"stationdex_response_cache_hits_total", "stationdex_response_cache_max_bytes", "stationdex_response_cache_misses_total"); err != nil {
		t.Fatal(err)
	}
}

// TestResolvedSeriesBounded: request keys past the bound of resolved
// series are still counted, through the vectors.
func TestResolvedSeriesBounded(t *testing.T) {
	m := newMetrics(time.Now)
	for i := range maxResolvedSeries + 10 {
		m.Request("/api/stations", "M"+strconv.Itoa(i), 200, time.Millisecond)
		m.Request("/api/stations", "M"+strconv.Itoa(i), 200, time.Millisecond)
	}
	if n := len(*m.resolved.m.Load()); n != maxResolvedSeries {
		t.Errorf("%d keys resolved, want the bound %d", n, maxResolvedSeries)
	}
	last := "M" + strconv.Itoa(maxResolvedSeries+9)
	if got := testutil.ToFloat64(m.requests.WithLabelValues("/api/stations", last, "200")); got != 2 {
		t.Errorf("requests of a key past the bound: %v, want 2", got)
	}
}

// Package deploy holds no code: its test runs the real Prometheus against a
// real node, with the scrape settings and rules of deploy/prometheus.
package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"stationdex/indexer/realdata"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"stationdex/indexer/demo"
	"stationdex/server/node/nodetest"
)

// TestPrometheusScrapesNode starts a node and the real Prometheus binary on
// loopback, with the alerting rules of rules.yml loaded, and asserts
// through Prometheus's HTTP API that the node's series arrive and the
// recording rules evaluate over them.
func TestPrometheusScrapesNode(t *testing.T) {
	t.Parallel()
	bin := prometheusBinary(t)
	admin, public := startNode(t)
	for _, q := range []string{"radio", "jazz", "zzzzzz-no-match"} {
		mustGet(t, public+"/api/stations?q="+url.QueryEscape(q))
	}
	mustGet(t, public+"/api/stations/not-a-uuid") // a 404, by route template
	api := startPrometheus(t, bin, admin)

	// The request counter, by route template, method and code.
	got := waitForSeries(t, api, `stationdex_http_requests_total{job="stationdex",route="/api/stations",code="200"}`)
	if v := got[0].Value[1]; v != "3" {
		t.Errorf("stationdex_http_requests_total for /api/stations 200: %v, want 3", v)
	}
	waitForSeries(t, api, `stationdex_http_requests_total{route="/api/stations/:id",code="404"}`)
	info := waitForSeries(t, api, `stationdex_index_info`)
	if at := info[0].Metric["snapshot_at"]; at != demo.SnapshotAt.Format(time.RFC3339) {
		t.Errorf("stationdex_index_info snapshot_at=%q, want %q", at, demo.SnapshotAt.Format(time.RFC3339))
	}
	for _, q := range []string{
		`stationdex_search_zero_results_total == 1`,
		`stationdex_search_stage_duration_seconds_count{stage="decode"}`,
		`stationdex_http_request_duration_seconds_bucket{le="0.001"}`,
		`stationdex_index_age_seconds > 0`,
		`go_build_info`,
		`process_resident_memory_bytes`,
		`up{job="stationdex"} == 1`,
		// The recording rules of rules.yml, evaluated by the real server.
		`instance:stationdex_http_requests:rate5m`,
		`route:stationdex_http_request_duration_seconds:p99_rate5m{route="/api/stations"}`,
	} {
		waitForSeries(t, api, q)
	}
}

// TestPrometheusIngestsNativeHistograms scrapes a node with native
// histograms enabled (Prometheus then asks for protobuf) and queries one
// with the native-histogram functions: the node's histograms are not only
// classic buckets.
func TestPrometheusIngestsNativeHistograms(t *testing.T) {
	t.Parallel()
	bin := prometheusBinary(t)
	admin, public := startNode(t)
	// Four different searches: a repeated one is answered from the
	// response cache and runs no search.
	for i := range 4 {
		mustGet(t, public+"/api/stations?q=radio&limit="+strconv.Itoa(i+1))
	}
	api := startPrometheus(t, bin, admin, "--enable-feature=native-histograms")
	got := waitForSeries(t, api, `histogram_count(stationdex_http_request_duration_seconds{route="/api/stations"})`)
	if v := got[0].Value[1]; v != "4" {
		t.Errorf("native histogram count: %v, want 4", v)
	}
	waitForSeries(t, api, `histogram_count(stationdex_search_stage_duration_seconds{stage="bitmap"}) == 4`)
	// Without rate(): the histogram since start, so the quantile is defined.
	waitForSeries(t, api, `histogram_quantile(0.5, stationdex_http_request_duration_seconds{route="/api/stations"}) > 0`)
}

// prometheusBinary finds the Prometheus server. Without it the test skips,
// except in CI (CI=true), where a missing binary is a broken setup.
func prometheusBinary(t *testing.T) string {
	bin, err := exec.LookPath("prometheus")
	if err == nil {
		return bin
	}
	realdata.Missing(t, "prometheus (Debian's prometheus package): %v", err)
	return ""
}

// startNode runs a node over the demo index and returns the base URLs of
// its admin and public listeners.
func startNode(t *testing.T) (admin, public string) {
	t.Helper()
	n := nodetest.Start(t, nodetest.Options{})
	return n.Admin, n.Base
}

// startPrometheus runs Prometheus on a free loopback port with a config
// scraping admin every second, plus flags, and returns its base URL.
func startPrometheus(t *testing.T, bin, admin string, flags ...string) string {
	t.Helper()
	dir := t.TempDir()
	rules, err := filepath.Abs(filepath.Join("prometheus", "rules.yml"))
	if err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: [%q]
scrape_configs:
  - job_name: stationdex
    static_configs:
      - targets: [%q]
`, rules, strings.TrimPrefix(admin, "http://"))
	cfgPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgPath, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	listen := freeAddr(t)
	var logs syncBuffer
	args := append([]string{
		"--config.file=" + cfgPath,
		"--storage.tsdb.path=" + filepath.Join(dir, "data"),
		"--web.listen-address=" + listen,
		"--log.level=warn",
	}, flags...)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus output:\n%s", logs.String())
		}
	})
	return "http://" + listen
}

// freeAddr picks a loopback port the kernel considers free. Another process
// may take it before Prometheus binds it; that fails the test loudly rather
// than flakily passing.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// sample is one element of an instant-vector query result.
type sample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

// waitForSeries queries Prometheus until the query returns at least one
// sample, for up to 60s (Prometheus needs a few seconds to start and
// scrape, and rates need two scrapes).
func waitForSeries(t *testing.T, api, q string) []sample {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		res, err := instantQuery(api, q)
		if err == nil && len(res) > 0 {
			return res
		}
		last = fmt.Sprint(err)
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("no series for %s within 60s (last error: %s)", q, last)
	return nil
}

func instantQuery(api, q string) ([]sample, error) {
	resp, err := http.Get(api + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string   `json:"resultType"`
			Result     []sample `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, err
	}
	if body.Status != "success" {
		return nil, fmt.Errorf("query %s: %s", q, body.Error)
	}
	return body.Data.Result, nil
}

func mustGet(t *testing.T, u string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// syncBuffer collects a child's output written from two pipes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

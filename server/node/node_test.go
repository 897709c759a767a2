package node_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"stationdex/metrics"
	"stationdex/query"
	"stationdex/server"
	"stationdex/server/node"
	"stationdex/server/node/nodetest"
)

// The observers the command wires in: a compile-time check that package
// metrics implements every hook the server and node call.
var (
	_ server.Observer   = (*metrics.Metrics)(nil)
	_ node.LoadObserver = (*metrics.Metrics)(nil)
	_ node.SwapObserver = (*metrics.Metrics)(nil)
)

// adminPaths are the operator endpoints; none may answer on the public port.
var adminPaths = []string{
	"/metrics", "/healthz", "/readyz",
	"/debug/pprof/", "/debug/pprof/cmdline", "/debug/pprof/heap", "/debug/pprof/profile",
}

func TestPublicHandlerAnswersNoAdminPath(t *testing.T) {
	a, _ := fixturePaths(t)
	ix, err := query.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	h := query.NewHolder(ix)
	defer h.Close()
	base, _ := url.Parse("http://stationdex.test")
	api := server.New(server.Config{BaseURL: base}, h)
	defer api.Close()
	public := api.Handler()
	for _, p := range adminPaths {
		rec := httptest.NewRecorder()
		public.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
		if rec.Code != http.StatusNotFound {
			t.Errorf("public handler GET %s: status %d, want 404", p, rec.Code)
		}
	}
}

func TestPublicListenerAnswersNoAdminPath(t *testing.T) {
	a, _ := fixturePaths(t)
	tn := nodetest.Start(t, nodetest.Options{Path: a})
	for _, p := range adminPaths {
		code, _, err := get(t, http.DefaultClient, tn.Base+p+"?seconds=1")
		if err != nil || code != http.StatusNotFound {
			t.Errorf("public port GET %s: status %d (%v), want 404", p, code, err)
		}
	}
}

func TestAdminEndpoints(t *testing.T) {
	a, _ := fixturePaths(t)
	tn := nodetest.Start(t, nodetest.Options{Path: a})
	if code, _, err := get(t, http.DefaultClient, tn.Base+"/api/stations?q=radio"); err != nil || code != 200 {
		t.Fatalf("search: %d %v", code, err)
	}
	// The observer runs after the response is written: wait for the count.
	waitFor(t, "the search counted", func() bool {
		_, body, _ := get(t, http.DefaultClient, tn.Admin+"/metrics")
		return bytes.Contains(body, []byte(`route="/api/stations"} 1`))
	})
	for _, tc := range []struct {
		path string
		code int
		has  string
	}{
		{"/healthz", 200, "ok"},
		{"/readyz", 200, "ready"},
		{"/metrics", 200, `stationdex_http_requests_total{code="200",method="GET",route="/api/stations"} 1`},
		{"/metrics", 200, "stationdex_index_info{"},
		{"/debug/pprof/", 200, "goroutine"},
		{"/debug/pprof/cmdline", 200, ""},
	} {
		code, body, err := get(t, http.DefaultClient, tn.Admin+tc.path)
		if err != nil || code != tc.code || !strings.Contains(string(body), tc.has) {
			t.Errorf("admin GET %s: %d %v, want %d with %q; body %q", tc.path, code, err, tc.code, tc.has, clip(body))
		}
	}
}

func TestMetricsNegotiatesOpenMetrics(t *testing.T) {
	a, _ := fixturePaths(t)
	tn := nodetest.Start(t, nodetest.Options{Path: a})
	req, _ := http.NewRequest(http.MethodGet, tn.Admin+"/metrics", nil)
	req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/openmetrics-text") {
		t.Fatalf("Content-Type %q, want OpenMetrics", ct)
	}
}

func TestReadyzWithoutIndex(t *testing.T) {
	tn := nodetest.Start(t, nodetest.Options{NoIndex: true})
	if code, _, _ := get(t, http.DefaultClient, tn.Admin+"/readyz"); code != http.StatusServiceUnavailable {
		t.Fatalf("readyz without index: %d, want 503", code)
	}
	if code, _, _ := get(t, http.DefaultClient, tn.Admin+"/healthz"); code != http.StatusOK {
		t.Fatalf("healthz without index: %d, want 200 (alive, just not ready)", code)
	}
}

func TestShedsOverInFlightLimit(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
	})
	tn := nodetest.Start(t, nodetest.Options{Handler: slow, MaxInFlight: 2, NoIndex: true})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { get(t, http.DefaultClient, tn.Base+"/api/stations") })
		<-entered
	}
	start := time.Now()
	resp, err := http.Get(tn.Base + "/api/stations")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	close(release)
	wg.Wait()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("over the limit: %d Retry-After=%q, want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("shedding took %v: it must not queue", d)
	}
	if got := shedCount(t, tn); got != 1 {
		t.Fatalf("stationdex_http_requests_shed_total = %v, want 1", got)
	}
}

func shedCount(t *testing.T, tn *nodetest.Node) float64 {
	t.Helper()
	families, err := tn.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "stationdex_http_requests_shed_total" {
			return f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatal("no stationdex_http_requests_shed_total")
	return 0
}

// TestSwapUnderLoad swaps between two snapshots again and again while
// clients search without pause: no request may fail, responses must move to
// the new snapshot_at once a swap returns, and both snapshots must be seen.
func TestSwapUnderLoad(t *testing.T) {
	a, b := fixturePaths(t)
	live := filepath.Join(t.TempDir(), "live.db")
	publish(t, a, live)
	tn := nodetest.Start(t, nodetest.Options{Path: live, MaxInFlight: -1})

	var failures, requests atomic.Int64
	var seenA, seenB atomic.Int64
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { hammer(ctx, t, tn.Base, &requests, &failures, &seenA, &seenB) })
	}
	const swaps = 10
	for i := range swaps {
		next, want := a, snapshotA
		if i%2 == 0 {
			next, want = b, snapshotB
		}
		waitRequests(t, &requests, 16)
		publish(t, next, live)
		if err := tn.Reloader.Reload(); err != nil {
			t.Fatalf("swap %d: %v", i, err)
		}
		assertServes(t, tn.Base, want)
	}
	waitRequests(t, &requests, 16)
	stop()
	wg.Wait()
	if failures.Load() != 0 {
		t.Fatalf("%d of %d requests failed during %d swaps", failures.Load(), requests.Load(), swaps)
	}
	if seenA.Load() == 0 || seenB.Load() == 0 {
		t.Fatalf("responses by snapshot: A %d, B %d; want both", seenA.Load(), seenB.Load())
	}
	if got := swapCounter(t, tn, "success").value(); got != swaps {
		t.Fatalf("successful swaps counted: %v, want %d", got, swaps)
	}
	t.Logf("%d requests, %d on A, %d on B, 0 failed, %d swaps", requests.Load(), seenA.Load(), seenB.Load(), swaps)
}

// waitRequests waits until the clients have sent n more requests, so every
// snapshot is served under load before the next swap.
func waitRequests(t *testing.T, requests *atomic.Int64, n int64) {
	t.Helper()
	target := requests.Load() + n
	waitFor(t, "the clients to send more requests", func() bool { return requests.Load() >= target })
}

// hammer searches until ctx is done, counting failures (transport errors,
// non-200 answers, bodies without a known snapshot_at).
func hammer(ctx context.Context, t *testing.T, base string, requests, failures, seenA, seenB *atomic.Int64) {
	c := &http.Client{Timeout: 5 * time.Second}
	for ctx.Err() == nil {
		requests.Add(1)
		code, body, err := get(t, c, base+"/api/stations?q=radio&limit=5")
		at, perr := snapshotOf(body)
		switch {
		case err != nil || code != http.StatusOK || perr != nil:
			failures.Add(1)
			t.Logf("failed request: %d %v %v", code, err, perr)
		case at.Equal(snapshotA):
			seenA.Add(1)
		case at.Equal(snapshotB):
			seenB.Add(1)
		default:
			failures.Add(1)
			t.Logf("unknown snapshot_at %v", at)
		}
	}
}

// assertServes: a request started after a swap returned sees the new
// snapshot.
func assertServes(t *testing.T, base string, want time.Time) {
	t.Helper()
	code, body, err := get(t, http.DefaultClient, base+"/api/stations?limit=1")
	if err != nil || code != http.StatusOK {
		t.Fatalf("after swap: %d %v", code, err)
	}
	if at, err := snapshotOf(body); err != nil || !at.Equal(want) {
		t.Fatalf("after swap: snapshot_at %v (%v), want %v", at, err, want)
	}
}

func swapCounter(t *testing.T, tn *nodetest.Node, outcome string) *metricReader {
	return &metricReader{t: t, tn: tn, name: "stationdex_snapshot_swaps_total", label: outcome}
}

// metricReader reads one series of a counter with a single label from the
// node's registry.
type metricReader struct {
	t     *testing.T
	tn    *nodetest.Node
	name  string
	label string
}

func (m *metricReader) value() float64 {
	families, err := m.tn.Registry.Gather()
	if err != nil {
		m.t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != m.name {
			continue
		}
		for _, s := range f.GetMetric() {
			if s.GetLabel()[0].GetValue() == m.label {
				return s.GetCounter().GetValue()
			}
		}
	}
	m.t.Fatalf("no %s{%q}", m.name, m.label)
	return 0
}

// TestRefusesDamagedOrForeignFile publishes files that must not be served;
// each swap is refused and counted, and the old snapshot keeps answering.
func TestRefusesDamagedOrForeignFile(t *testing.T) {
	a, _ := fixturePaths(t)
	good, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(t.TempDir(), "live.db")
	publish(t, a, live)
	tn := nodetest.Start(t, nodetest.Options{Path: live})
	cases := map[string][]byte{
		"empty":          {},
		"text":           []byte("this is not an index\n"),
		"truncated":      good[:len(good)/2],
		"zeroed middle":  zeroMiddle(good),
		"foreign bbolt":  foreignBolt(t),
		"garbage header": append(bytes.Repeat([]byte{0xA5}, 8192), good[8192:]...),
	}
	failures := 0
	for name, data := range cases {
		publishBytes(t, data, live)
		if err := tn.Reloader.Reload(); err == nil {
			t.Errorf("%s: swap accepted, want refused", name)
			continue
		}
		failures++
		assertServes(t, tn.Base, snapshotA)
	}
	if got := swapCounter(t, tn, "failure").value(); got != float64(failures) {
		t.Fatalf("failed swaps counted: %v, want %d", got, failures)
	}
	if got := swapCounter(t, tn, "success").value(); got != 0 {
		t.Fatalf("successful swaps counted: %v, want 0", got)
	}
	if code, _, _ := get(t, http.DefaultClient, tn.Admin+"/readyz"); code != http.StatusOK {
		t.Fatalf("readyz after refused swaps: %d, want 200 (the old snapshot serves)", code)
	}
}

// zeroMiddle wipes the middle third of an index: pages of records and
// bitmaps, which only the full check reads.
func zeroMiddle(good []byte) []byte {
	d := bytes.Clone(good)
	clear(d[len(d)/3 : 2*len(d)/3])
	return d
}

// foreignBolt is a valid bbolt file of some other program.
func foreignBolt(t *testing.T) []byte {
	path := filepath.Join(t.TempDir(), "other.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("meta"))
		if err != nil {
			return err
		}
		return b.Put([]byte("format"), []byte("someone-else"))
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestDrain stops a node while a request is running: readiness turns to
// 503 at once, the running request completes, new connections are refused,
// and Serve returns nil.
func TestDrain(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		w.Write([]byte("finished"))
	})
	a, _ := fixturePaths(t)
	tn := nodetest.Start(t, nodetest.Options{Path: a, Handler: slow, DrainTimeout: 10 * time.Second})
	result := make(chan string, 1)
	go func() {
		code, body, err := get(t, http.DefaultClient, tn.Base+"/slow")
		result <- strings.TrimSpace(string(body)) + " " + http.StatusText(code) + " " + errString(err)
	}()
	<-entered
	tn.Stop()
	waitFor(t, "readyz 503 while draining", func() bool {
		code, _, _ := get(t, http.DefaultClient, tn.Admin+"/readyz")
		return code == http.StatusServiceUnavailable
	})
	waitFor(t, "public listener closed", func() bool {
		_, _, err := get(t, &http.Client{Timeout: time.Second}, tn.Base+"/other")
		return err != nil
	})
	close(release)
	if got := <-result; got != "finished OK " {
		t.Fatalf("in-flight request: %q, want it finished with 200", got)
	}
	if err := tn.Wait(); err != nil {
		t.Fatalf("Serve after drain: %v, want nil", err)
	}
}

// TestDrainTimeout: a request that outlives the drain bound is cut off and
// Serve still returns promptly.
func TestDrainTimeout(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	stuck := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
	})
	tn := nodetest.Start(t, nodetest.Options{Handler: stuck, NoIndex: true, DrainTimeout: 200 * time.Millisecond})
	go get(t, http.DefaultClient, tn.Base+"/stuck")
	<-entered
	start := time.Now()
	tn.Stop()
	if err := tn.Wait(); err != nil {
		t.Fatalf("Serve: %v, want nil", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("stop took %v with a 200ms drain bound", d)
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestWatchSwapsChangedFile: with -watch, publishing a new file is enough;
// publishing a damaged one is refused once and the node keeps serving.
func TestWatchSwapsChangedFile(t *testing.T) {
	a, b := fixturePaths(t)
	live := filepath.Join(t.TempDir(), "live.db")
	publish(t, a, live)
	tn := nodetest.Start(t, nodetest.Options{Path: live})
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go tn.Reloader.Watch(ctx, 10*time.Millisecond)
	publish(t, b, live)
	waitFor(t, "the watcher to swap in B", func() bool {
		_, body, _ := get(t, http.DefaultClient, tn.Base+"/api/stations?limit=1")
		at, _ := snapshotOf(body)
		return at.Equal(snapshotB)
	})
	publishBytes(t, []byte("garbage"), live)
	waitFor(t, "the watcher to refuse the damaged file", func() bool {
		return swapCounter(t, tn, "failure").value() == 1
	})
	time.Sleep(50 * time.Millisecond) // several more polls: no retry of the same file
	if got := swapCounter(t, tn, "failure").value(); got != 1 {
		t.Fatalf("failed swaps %v after more polls, want 1 (a refused file is not retried)", got)
	}
	assertServes(t, tn.Base, snapshotB)
}

package follow_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"aead.dev/minisign"
	"github.com/prometheus/client_golang/prometheus"

	"stationdex/indexer"
	"stationdex/indexer/demo"
	"stationdex/internal/format"
	"stationdex/internal/snapshot"
	"stationdex/metrics"
	"stationdex/query"
	"stationdex/server/follow"
	"stationdex/server/node"
)

// The two demo snapshots every test swaps between, built once per binary:
// old is served at the start, new is published.
var (
	oldAt = demo.SnapshotAt
	newAt = demo.SnapshotAt.Add(24 * time.Hour)

	buildOnce          sync.Once
	oldIndex, newIndex string
	buildErr           error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if oldIndex != "" {
		_ = os.RemoveAll(filepath.Dir(oldIndex))
	}
	os.Exit(code)
}

// demoIndexes builds the old and the new demo snapshot.
func demoIndexes(t *testing.T) (string, string) {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "follow-test-")
		if err != nil {
			buildErr = err
			return
		}
		oldIndex, newIndex = filepath.Join(dir, "old.db"), filepath.Join(dir, "new.db")
		for path, at := range map[string]time.Time{oldIndex: oldAt, newIndex: newAt} {
			if err := buildDemo(context.Background(), path, dir, at, bytes.NewReader(demo.NDJSON)); err != nil {
				buildErr = err
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return oldIndex, newIndex
}

func buildDemo(ctx context.Context, dst, tmpDir string, at time.Time, r io.Reader) error {
	opts := indexer.Options{SnapshotAt: at, Source: demo.Source, TempDir: tmpDir}
	_, err := indexer.Build(ctx, dst, opts, indexer.Input{Name: "dump", R: r})
	return err
}

// inProcessBuild is the tests' follow.BuildFunc: the indexer in this
// process; the snapshot time is the newest in the records.
func inProcessBuild(builds *atomic.Int32) follow.BuildFunc {
	return func(ctx context.Context, dst, tmpDir string, dump io.Reader) error {
		builds.Add(1)
		_, err := indexer.Build(ctx, dst, indexer.Options{Source: demo.Source, TempDir: tmpDir}, indexer.Input{Name: "dump", R: dump})
		return err
	}
}

// nodeSide is a node's holder and Reloader over a live file that holds the
// old snapshot, with the follower's metrics and log captured.
type nodeSide struct {
	dir, live string
	holder    *query.Holder
	reloader  *node.Reloader
	reg       *prometheus.Registry
	log       *syncBuffer
	logger    *slog.Logger
	obs       *metrics.Follow
}

func newNodeSide(t *testing.T, dir string, loaded bool) *nodeSide {
	t.Helper()
	old, _ := demoIndexes(t)
	if dir == "" {
		dir = t.TempDir()
	}
	n := &nodeSide{dir: dir, live: filepath.Join(dir, "live.db"), reg: prometheus.NewRegistry(), log: &syncBuffer{}}
	n.holder = query.NewHolder(nil)
	t.Cleanup(n.holder.Close)
	if loaded {
		copyFile(t, old, n.live)
		ix, err := query.Open(n.live)
		if err != nil {
			t.Fatal(err)
		}
		n.holder.Swap(ix)
	}
	n.logger = slog.New(slog.NewJSONHandler(n.log, nil))
	n.reloader = node.NewReloader(n.live, n.holder, nil, n.logger)
	m, err := metrics.NewFollow(n.reg, time.Hour, follow.Results)
	if err != nil {
		t.Fatal(err)
	}
	n.obs = m
	return n
}

func (n *nodeSide) follower(t *testing.T, cfg follow.Config) *follow.Follower {
	t.Helper()
	cfg.Installer = n.reloader
	cfg.Observer = n.obs
	cfg.Log = n.logger
	cfg.UserAgent = "stationdex/test"
	if cfg.Every == 0 {
		cfg.Every = time.Hour
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	f, err := follow.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// served is the snapshot time the node serves; zero when none.
func (n *nodeSide) served() time.Time {
	ix, release := n.holder.Acquire()
	defer release()
	if ix == nil {
		return time.Time{}
	}
	return ix.Meta().SnapshotAt
}

// leftovers lists what the node's directory holds besides the live file.
func (n *nodeSide) leftovers(t *testing.T) []string {
	t.Helper()
	es, err := os.ReadDir(n.dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		if e.Name() != "live.db" && e.Name() != "lost+found" {
			out = append(out, e.Name())
		}
	}
	return out
}

// metric reads one follow series: name with the result label when given.
func (n *nodeSide) metric(t *testing.T, name, result string) float64 {
	t.Helper()
	mfs, err := n.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			ok := result == ""
			for _, l := range m.GetLabel() {
				if l.GetName() == "result" && l.GetValue() == result {
					ok = true
				}
			}
			if !ok {
				continue
			}
			switch {
			case m.GetGauge() != nil:
				return m.GetGauge().GetValue()
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue()
			case m.GetHistogram() != nil:
				return float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	t.Fatalf("no series %s{result=%q}", name, result)
	return 0
}

// publisher is a published directory behind an httptest server whose
// answers a test can replace path by path.
type publisher struct {
	dir      string
	srv      *httptest.Server
	mu       sync.Mutex
	override map[string]http.HandlerFunc
	requests map[string]int
	agents   []string
}

func newPublisher(t *testing.T) *publisher {
	t.Helper()
	p := &publisher{dir: t.TempDir(), override: map[string]http.HandlerFunc{}, requests: map[string]int{}}
	files := http.FileServer(http.Dir(p.dir))
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.requests[r.URL.Path]++
		p.agents = append(p.agents, r.UserAgent())
		h := p.override[r.URL.Path]
		p.mu.Unlock()
		if h != nil {
			h(w, r)
			return
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *publisher) publish(t *testing.T, index string, key *minisign.PrivateKey) snapshot.Manifest {
	t.Helper()
	ix, err := query.Open(index)
	if err != nil {
		t.Fatal(err)
	}
	meta := ix.Meta()
	_ = ix.Close()
	m, err := snapshot.Publish(p.dir, index, snapshot.Snapshot{SnapshotAt: meta.SnapshotAt, FormatVersion: format.Version, Stations: meta.Stations},
		snapshot.Options{Keep: 1, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (p *publisher) manifestURL() string { return p.srv.URL + "/" + snapshot.ManifestName }

func (p *publisher) set(path string, h http.HandlerFunc) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.override[path] = h
}

func (p *publisher) count(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests[path]
}

// writeManifest replaces latest.json (unsigned) with m.
func (p *publisher) writeManifest(t *testing.T, m snapshot.Manifest) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(p.dir, snapshot.ManifestName), m.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func newKey(t *testing.T) (minisign.PublicKey, minisign.PrivateKey) {
	t.Helper()
	pub, priv, err := minisign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return pub, priv
}

// syncBuffer is a log destination safe for the follower's goroutines.
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

func (s *syncBuffer) has(sub string) bool { return strings.Contains(s.String(), sub) }

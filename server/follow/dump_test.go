package follow_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"stationdex/indexer/demo"
	"stationdex/server/follow"
)

// upstream stands in for the upstream /json/stations endpoint: the demo
// dump with an ETag, honouring If-None-Match.
type upstream struct {
	srv *httptest.Server
	mu  sync.Mutex
	// conditional counts requests that came with If-None-Match, and
	// notModified those answered 304.
	requests, conditional, notModified int
}

func newUpstream(t *testing.T) *upstream {
	t.Helper()
	u := &upstream{}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		defer u.mu.Unlock()
		u.requests++
		w.Header().Set("ETag", `"demo-1"`)
		if inm := r.Header.Get("If-None-Match"); inm != "" {
			u.conditional++
			if inm == `"demo-1"` {
				u.notModified++
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		_, _ = w.Write(demo.NDJSON)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

// TestDumpConditional follows the upstream URL shape: the first check
// builds and swaps, the second is a conditional request answered 304 that
// builds nothing.
func TestDumpConditional(t *testing.T) {
	u := newUpstream(t)
	n := newNodeSide(t, "", false)
	var builds atomic.Int32
	f := n.follower(t, follow.Config{Source: u.srv.URL + "/json/stations", Build: inProcessBuild(&builds)})
	if result, err := f.Once(context.Background()); result != follow.ResultSwapped {
		t.Fatalf("first check %q, %v; want swapped", result, err)
	}
	if n.served().IsZero() {
		t.Fatal("nothing served after the first build")
	}
	if result, err := f.Once(context.Background()); result != follow.ResultUnchanged {
		t.Fatalf("second check %q, %v; want unchanged", result, err)
	}
	if builds.Load() != 1 || u.conditional != 1 || u.notModified != 1 {
		t.Errorf("builds %d, conditional requests %d, 304s %d; want 1, 1, 1", builds.Load(), u.conditional, u.notModified)
	}
	if left := n.leftovers(t); len(left) > 0 {
		t.Errorf("temporaries left: %v", left)
	}
	if v := n.metric(t, "stationdex_follow_build_duration_seconds", ""); v != 1 {
		t.Errorf("builds observed %v, want 1", v)
	}
}

// TestDumpFailover: sources down or failing are passed over for the next.
func TestDumpFailover(t *testing.T) {
	u := newUpstream(t)
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	t.Cleanup(failing.Close)
	n := newNodeSide(t, "", true)
	var builds atomic.Int32
	src := down.URL + "/json/stations," + failing.URL + "/json/stations," + u.srv.URL + "/json/stations"
	f := n.follower(t, follow.Config{Source: src, Build: inProcessBuild(&builds)})
	if result, err := f.Once(context.Background()); result != follow.ResultSwapped {
		t.Fatalf("%q, %v; want swapped from the third source", result, err)
	}
	if !n.log.has("trying the next") {
		t.Errorf("the log does not name the failed sources:\n%s", n.log)
	}
}

// TestDumpFile follows a dump file: unchanged (same size and time) builds
// nothing; a dump that is not one fails the build and leaves nothing.
func TestDumpFile(t *testing.T) {
	dump := filepath.Join(t.TempDir(), "stations.ndjson")
	if err := os.WriteFile(dump, demo.NDJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	n := newNodeSide(t, "", true)
	var builds atomic.Int32
	f := n.follower(t, follow.Config{Source: dump, Build: inProcessBuild(&builds)})
	for _, want := range []string{follow.ResultSwapped, follow.ResultUnchanged} {
		if result, err := f.Once(context.Background()); result != want {
			t.Fatalf("%q, %v; want %q", result, err, want)
		}
	}
	if builds.Load() != 1 {
		t.Errorf("%d builds, want 1", builds.Load())
	}
	served := n.served()
	if err := os.WriteFile(dump, bytes.Repeat([]byte("not json "), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	if result, _ := f.Once(context.Background()); result != follow.ResultBuild {
		t.Fatalf("%q; want %q", result, follow.ResultBuild)
	}
	if !n.served().Equal(served) {
		t.Error("a failed build changed the served snapshot")
	}
	if left := n.leftovers(t); len(left) > 0 {
		t.Errorf("temporaries left: %v", left)
	}
}

// TestStopDuringBuild: a stop while a build runs ends Run with the build's
// temporaries removed, and is not counted as a failure of the source.
func TestStopDuringBuild(t *testing.T) {
	u := newUpstream(t)
	n := newNodeSide(t, "", true)
	started := make(chan struct{})
	build := func(ctx context.Context, dst, tmpDir string, dump io.Reader) error {
		if err := os.WriteFile(dst, []byte("half an index"), 0o644); err != nil {
			return err
		}
		close(started)
		<-ctx.Done()
		return ctx.Err()
	}
	f := n.follower(t, follow.Config{Source: u.srv.URL + "/json/stations", Build: build})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.Run(ctx)
	}()
	<-started
	cancel()
	<-done
	if left := n.leftovers(t); len(left) > 0 {
		t.Errorf("temporaries left after the stop: %v", left)
	}
	if v := n.metric(t, "stationdex_follow_attempts_total", follow.ResultBuild); v != 0 {
		t.Errorf("a stop counted as %v failed builds", v)
	}
	if !n.log.has("cut short by the stop") || n.log.has("snapshot not updated") {
		t.Errorf("the log does not say the stop cut the check short:\n%s", n.log)
	}
}

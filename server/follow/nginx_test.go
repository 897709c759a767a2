package follow_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"stationdex/indexer/realdata"
	"stationdex/internal/format"
	"stationdex/internal/snapshot"
	"stationdex/query"
	"stationdex/server/follow"
	"stationdex/server/node/nodetest"
)

// TestFleetFollowsNginx: the real nginx serves a published directory, and
// two nodes follow it while answering a light load: one starts empty and
// not ready, the other with the old snapshot. Both end up serving the new
// snapshot, no request during the swaps is answered other than 2xx, and
// nginx's own conditional answers (304) stop the next check from
// downloading anything.
func TestFleetFollowsNginx(t *testing.T) {
	bin, err := exec.LookPath("nginx")
	if err != nil {
		realdata.Missing(t, "nginx (apt-get install nginx): %v", err)
	}
	old, newIx := demoIndexes(t)
	pubDir := shareable(t, t.TempDir())
	publishFile(t, pubDir, old)
	base := startNginx(t, bin, pubDir)
	manifest := base + "/" + snapshot.ManifestName

	empty := nodetest.Start(t, nodetest.Options{NoIndex: true, Path: filepath.Join(t.TempDir(), "live.db")})
	loaded := filepath.Join(t.TempDir(), "live.db")
	copyFile(t, old, loaded)
	warm := nodetest.Start(t, nodetest.Options{Path: loaded})
	nodes := []*nodetest.Node{empty, warm}
	followers := make([]*follow.Follower, len(nodes))
	for i, n := range nodes {
		f, err := follow.New(follow.Config{Source: manifest, Installer: n.Reloader, UserAgent: "stationdex/test", Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		followers[i] = f
	}
	if code := get(t, empty.Admin+"/readyz"); code != http.StatusServiceUnavailable {
		t.Fatalf("the empty node's /readyz is %d before its first snapshot, want 503", code)
	}
	want := []string{follow.ResultSwapped, follow.ResultUnchanged}
	for i, f := range followers {
		if result, err := f.Once(context.Background()); result != want[i] {
			t.Fatalf("node %d, first check: %q, %v; want %q", i, result, err, want[i])
		}
	}
	if code := get(t, empty.Admin+"/readyz"); code != http.StatusOK {
		t.Fatalf("the empty node's /readyz is %d after its first snapshot, want 200", code)
	}

	// A light load on both nodes from here until after the swaps.
	var answered, bad atomic.Int64
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, n := range nodes {
		for range 2 {
			wg.Go(func() { load(ctx, n.Base, &answered, &bad) })
		}
	}
	publishFile(t, pubDir, newIx)
	for i, f := range followers {
		if result, err := f.Once(context.Background()); result != follow.ResultSwapped {
			t.Errorf("node %d, after the publish: %q, %v; want swapped", i, result, err)
		}
	}
	stop()
	wg.Wait()
	for _, n := range nodes { // and some answers from the new snapshot
		load(oneRound, n.Base, &answered, &bad)
	}
	if bad.Load() != 0 {
		t.Errorf("%d of %d answers during the swaps were not 2xx", bad.Load(), answered.Load())
	}
	for i, n := range nodes {
		if got := servedAt(n.Holder); !got.Equal(newAt) {
			t.Errorf("node %d serves %v, want the new snapshot %v", i, got, newAt)
		}
		if result, err := followers[i].Once(context.Background()); result != follow.ResultUnchanged {
			t.Errorf("node %d, a check with nothing new: %q, %v; want unchanged (a 304 from nginx)", i, result, err)
		}
	}
	t.Logf("%d answers under load, %d not 2xx", answered.Load(), bad.Load())
}

func publishFile(t *testing.T, dir, index string) {
	t.Helper()
	ix, err := query.Open(index)
	if err != nil {
		t.Fatal(err)
	}
	meta := ix.Meta()
	_ = ix.Close()
	if _, err := snapshot.Publish(dir, index, snapshot.Snapshot{SnapshotAt: meta.SnapshotAt, FormatVersion: format.Version, Stations: meta.Stations}, snapshot.Options{Keep: 1}); err != nil {
		t.Fatal(err)
	}
}

func servedAt(h *query.Holder) time.Time {
	ix, release := h.Acquire()
	defer release()
	if ix == nil {
		return time.Time{}
	}
	return ix.Meta().SnapshotAt
}

// load asks for a few searches until ctx is done, counting the answers
// and those that were not 2xx.
// With oneRound as ctx it asks each once.
func load(ctx context.Context, base string, answered, bad *atomic.Int64) {
	paths := []string{"/api/stations?q=radio", "/api/stations?q=jazz&limit=5", "/api/stations?country=DE", "/search?q=rock"}
	for i := 0; ctx.Err() == nil && !(ctx == oneRound && i == len(paths)); i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+paths[i%len(paths)], nil)
		if err != nil {
			bad.Add(1)
			continue
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			if ctx.Err() == nil {
				answered.Add(1)
				bad.Add(1)
			}
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		answered.Add(1)
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			bad.Add(1)
		}
	}
}

// oneRound makes load ask for each path once.
var oneRound = context.WithValue(context.Background(), oneRoundKey{}, true)

type oneRoundKey struct{}

func get(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// shareable opens dir and its parent to other users, so that nginx's
// unprivileged process reads it.
func shareable(t *testing.T, dir string) string {
	t.Helper()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// startNginx runs nginx in the foreground with a configuration of its own
// in a temporary directory, on a loopback port, serving root, as an
// unprivileged user (nobody) when the test runs as root. It is stopped
// when the test ends.
func startNginx(t *testing.T, bin, root string) string {
	t.Helper()
	dir := shareable(t, t.TempDir())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	conf := fmt.Sprintf(`daemon off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	types { application/json json; application/octet-stream db; }
	server {
		listen %[2]s;
		root %[3]s;
		etag on;
	}
}
`, dir, addr, root)
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", path, "-e", filepath.Join(dir, "error.log"))
	if os.Geteuid() == 0 {
		if err := os.Chown(dir, 65534, 65534); err != nil { // its logs and temporaries
			t.Fatal(err)
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGQUIT)
		<-exited
	})
	base := "http://" + addr
	for range 500 { // until nginx answers; it starts in milliseconds
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx exited: %v\n%s", waitErr, log)
		default:
		}
		if resp, err := http.Get(base + "/" + snapshot.ManifestName); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("nginx did not answer within 5s")
	return ""
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"stationdex/indexer"
	"stationdex/indexer/demo"
)

// helperArgsEnv carries the arguments of `stationdex` when this test binary
// is re-executed as the command (see TestHelperStationdex).
const helperArgsEnv = "STATIONDEX_HELPER_ARGS"

// childEnv is the environment of the command run as a child: its
// arguments, and a TMPDIR of the test, so that what a killed child could
// not remove (the demo index, rewritten dumps) goes with the test.
func childEnv(t *testing.T, args []string) []string {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), helperArgsEnv+"="+string(raw), "TMPDIR="+t.TempDir())
}

// TestHelperStationdex is not a test: it is the command, run in a child
// process by TestServeSignals, so that real signals reach a real process
// without a separate go build.
func TestHelperStationdex(t *testing.T) {
	raw := os.Getenv(helperArgsEnv)
	if raw == "" {
		t.Skip("helper process only")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		os.Exit(3)
	}
	os.Exit(run(args, os.Stdout, os.Stderr))
}

// TestServeSignals runs `stationdex serve` as a process and drives it the
// way an operator does: SIGHUP after publishing a new snapshot swaps it in,
// SIGHUP after publishing a damaged file keeps the old one, SIGTERM drains
// and exits 0.
func TestServeSignals(t *testing.T) {
	dir := t.TempDir()
	a := buildTestIndex(t, dir, "a.db", time.Date(2025, 2, 27, 12, 0, 0, 0, time.UTC), demo.NDJSON)
	b := buildTestIndex(t, dir, "b.db", time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC), firstLines(demo.NDJSON, 10))
	live := filepath.Join(dir, "live.db")
	copyOver(t, a, live)

	p := startServe(t, "serve", "-index", live, "-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0", "-log-format", "json")
	p.expectSnapshot(t, "2025-02-27T12:00:00Z")

	copyOver(t, b, live)
	p.signal(t, syscall.SIGHUP)
	p.waitLog(t, "snapshot swapped")
	p.expectSnapshot(t, "2025-03-01T00:00:00Z")

	if err := os.WriteFile(live+".tmp", []byte("not an index"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(live+".tmp", live); err != nil {
		t.Fatal(err)
	}
	p.signal(t, syscall.SIGHUP)
	p.waitLog(t, "snapshot swap refused")
	p.expectSnapshot(t, "2025-03-01T00:00:00Z")

	p.signal(t, syscall.SIGTERM)
	if err := p.wait(); err != nil {
		t.Fatalf("after SIGTERM: %v, want exit status 0", err)
	}
	p.waitLog(t, "drained")
}

// serveProcess is a running `stationdex serve` child with its log lines.
type serveProcess struct {
	cmd         *exec.Cmd
	lines       chan map[string]any
	done        chan error
	base, admin string
	seen        []map[string]any // the log lines waitLog read
}

func startServe(t *testing.T, args ...string) *serveProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperStationdex$")
	cmd.Env = childEnv(t, args)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serveProcess{cmd: cmd, lines: make(chan map[string]any, 100), done: make(chan error, 1)}
	go p.readLog(stderr)
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	start := p.waitLog(t, "serving")
	p.base = "http://" + start["addr"].(string)
	p.admin = "http://" + start["admin_addr"].(string)
	return p
}

// readLog decodes the JSON log lines; other lines (the test framework's)
// are skipped.
func (p *serveProcess) readLog(r io.Reader) {
	s := bufio.NewScanner(r)
	for s.Scan() {
		var line map[string]any
		if json.Unmarshal(s.Bytes(), &line) == nil {
			p.lines <- line
		}
	}
	close(p.lines)
}

func (p *serveProcess) waitLog(t *testing.T, msg string) map[string]any {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				t.Fatalf("log ended before %q", msg)
			}
			p.seen = append(p.seen, line)
			if line["msg"] == msg {
				return line
			}
		case <-timeout:
			t.Fatalf("no %q log line within 20s", msg)
		}
	}
}

func (p *serveProcess) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

func (p *serveProcess) wait() error {
	select {
	case err := <-p.done:
		p.done <- err // for the cleanup
		return err
	case <-time.After(30 * time.Second):
		return errors.New("still running 30s after the signal")
	}
}

func (p *serveProcess) expectSnapshot(t *testing.T, want string) {
	t.Helper()
	resp, err := http.Get(p.base + "/api/stations?limit=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		SnapshotAt string `json:"snapshot_at"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || resp.StatusCode != 200 {
		t.Fatalf("search: %d %v", resp.StatusCode, err)
	}
	if env.SnapshotAt != want {
		t.Fatalf("snapshot_at %q, want %q", env.SnapshotAt, want)
	}
	ready, err := http.Get(p.admin + "/readyz")
	if err != nil || ready.StatusCode != 200 {
		t.Fatalf("readyz: %v %v", ready, err)
	}
	ready.Body.Close()
}

func buildTestIndex(t *testing.T, dir, name string, at time.Time, ndjson []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	in := indexer.Input{Name: name, R: bytes.NewReader(ndjson)}
	if _, err := indexer.Build(context.Background(), path, indexer.Options{SnapshotAt: at}, in); err != nil {
		t.Fatal(err)
	}
	return path
}

func firstLines(b []byte, n int) []byte {
	lines := bytes.SplitAfterN(b, []byte("\n"), n+1)
	return bytes.Join(lines[:min(n, len(lines))], nil)
}

// copyOver publishes src at dst by rename, as a snapshot must be published.
func copyOver(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst+".tmp", data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dst+".tmp", dst); err != nil {
		t.Fatal(err)
	}
}

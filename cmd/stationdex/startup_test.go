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
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/demo"
	"stationdex/internal/format"
)

// Start-up faults, run as a child process like an operator would see
// them (TestHelperStationdex in serve_test.go is the command).

// badIndexes are the files a node must refuse to start on, with a word
// the refusal must say.
func badIndexes(t *testing.T) map[string]badIndex {
	dir := t.TempDir()
	good, err := os.ReadFile(buildTestIndex(t, dir, "good.db", demo.SnapshotAt, demo.NDJSON))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	zeroed := bytes.Clone(good)
	clear(zeroed[len(zeroed)/3 : 2*len(zeroed)/3])
	flipped := flipValueByte(t, good, format.BucketStations)
	return map[string]badIndex{
		"missing":             {filepath.Join(dir, "nope.db"), "no index file at", "no index file at", "stationdex index -o "},
		"directory":           {dir, "is a folder, not an index file", "not a stationdex index", "stationdex index -o "},
		"empty":               {write("empty.db", nil), "is not a stationdex index", "not a stationdex index", "stationdex check "},
		"text":                {write("text.db", []byte(strings.Repeat("not an index\n", 200))), "is not a stationdex index", "not a stationdex index", "stationdex check "},
		"truncated":           {write("truncated.db", good[:len(good)/2]), "is damaged", "corrupt index", "stationdex check "},
		"zeroed middle":       {write("zeroed.db", zeroed), "is damaged", "corrupt index", "stationdex check "},
		"flipped record byte": {write("flipped.db", flipped), "is damaged", "checksum mismatch", "stationdex check "},
		"foreign bbolt":       {foreignBoltFile(t, filepath.Join(dir, "foreign.db")), "is not a stationdex index", "not a stationdex index", "stationdex check "},
	}
}

// badIndex is a file serve refuses: what serve's message says of it, what
// check's says, and the next command serve names (with the file).
type badIndex struct {
	path, serveSays, checkSays, next string
}

// flipValueByte returns a copy of the index file good with one bit
// changed in the middle of bucket's first value (a record block, a block of
// station JSON): damage that leaves every page well-formed, which only the
// bucket checksums reveal without decoding the values.
func flipValueByte(t *testing.T, good []byte, bucket []byte) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "read.db")
	if err := os.WriteFile(path, good, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o444, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var block []byte
	err = db.View(func(tx *bolt.Tx) error {
		_, v := tx.Bucket(bucket).Cursor().First()
		block = bytes.Clone(v)
		return nil
	})
	at := bytes.Index(good, block)
	if err != nil || len(block) < 64 || at < 0 {
		t.Fatalf("first value of %s (%d bytes) not found in the file: %v", bucket, len(block), err)
	}
	d := bytes.Clone(good)
	d[at+len(block)/2] ^= 0x04
	return d
}

func foreignBoltFile(t *testing.T, path string) string {
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucket([]byte("someone-else"))
		return err
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStartupRefusesBadIndex: serve on a missing, damaged or foreign file
// exits 1 at once with a log line naming the file and what is wrong, and
// check agrees.
func TestStartupRefusesBadIndex(t *testing.T) {
	for name, bad := range badIndexes(t) {
		t.Run(name, func(t *testing.T) {
			code, out := runChild(t, "serve", "-index", bad.path, "-addr", "127.0.0.1:0", "-log-format", "json")
			if code != 1 {
				t.Fatalf("serve exit code %d, want 1\n%s", code, out)
			}
			failed := logLine(out, "serve failed")
			if failed == nil {
				t.Fatalf("no \"serve failed\" log line:\n%s", out)
			}
			if msg, _ := failed["err"].(string); !strings.Contains(msg, bad.path) || !strings.Contains(msg, bad.serveSays) {
				t.Errorf("serve failed with %q; want it to name %s and say %q", msg, bad.path, bad.serveSays)
			}
			// The same for a person, without the log's wrapping: the file
			// as named, what is wrong, the next command, no Go wording.
			said := "stationdex serve: " + bad.path
			if strings.HasPrefix(bad.serveSays, "no ") {
				said = "stationdex serve: " + bad.serveSays + " " + bad.path
			}
			if !strings.Contains(out, said) || !strings.Contains(out, bad.serveSays) || !strings.Contains(out, bad.next) || !strings.Contains(out, bad.path+" ") {
				t.Errorf("serve's message does not say %q, %q and the next command %q with the file:\n%s", said, bad.serveSays, bad.next, out)
			}
			for _, internal := range []string{"no such file or directory", "bbolt", "open index"} {
				if strings.Contains(out, internal) {
					t.Errorf("serve's message says %q:\n%s", internal, out)
				}
			}
			if logLine(out, "serving") != nil {
				t.Error("the node started serving")
			}
			if code, out := runChild(t, "check", bad.path); code == 0 || !strings.Contains(out, bad.checkSays) {
				t.Errorf("check: exit %d, output %q; want non-zero saying %q", code, out, bad.checkSays)
			}
		})
	}
}

// runChild runs the command in a child process to its end (within a
// minute) and returns its exit code and standard error.
func runChild(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperStationdex$")
	cmd.Env = childEnv(t, args)
	var stderr bytes.Buffer
	cmd.Stderr, cmd.Stdout = &stderr, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, stderr.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), stderr.String()
	}
	t.Fatalf("run %v: %v", args, err)
	return 0, ""
}

// logLine finds the first JSON log line with message msg.
func logLine(out, msg string) map[string]any {
	for line := range strings.SplitSeq(out, "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == msg {
			return m
		}
	}
	return nil
}

// TestAllowUnready: told to start anyway on a damaged file, the node
// serves 503 with a JSON body and Retry-After, /readyz says not ready, and
// the first good file published is swapped in by -watch.
func TestAllowUnready(t *testing.T) {
	dir := t.TempDir()
	good := buildTestIndex(t, dir, "good.db", demo.SnapshotAt, demo.NDJSON)
	live := filepath.Join(dir, "live.db")
	if err := os.WriteFile(live, []byte("not an index"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startChild(t, "serve", "-index", live, "-allow-unready", "-watch", "50ms",
		"-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0", "-log-format", "json")
	resp, err := http.Get(p.base + "/api/stations")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var e struct{ Error, Message string }
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		json.Unmarshal(body, &e) != nil || e.Error != "unavailable" {
		t.Fatalf("API while unready: %d Retry-After=%q %s; want 503 with a JSON error", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if code := statusOf(t, p.admin+"/readyz"); code != http.StatusServiceUnavailable {
		t.Fatalf("/readyz while unready: %d, want 503", code)
	}
	copyOver(t, good, live)
	p.waitLog(t, "snapshot swapped")
	if code := statusOf(t, p.base+"/api/stations?limit=1"); code != http.StatusOK {
		t.Fatalf("API after the swap: %d, want 200", code)
	}
	if code := statusOf(t, p.admin+"/readyz"); code != http.StatusOK {
		t.Fatalf("/readyz after the swap: %d, want 200", code)
	}
	p.stop(t)
}

// TestStartupWithdrawsDamagedStationJSON: the station JSON, which a node
// copies to clients without decoding, is summed after the node starts
// answering; damage found there withdraws the index (503 on the API and
// /readyz, a log line saying why) until a good file is swapped in.
func TestStartupWithdrawsDamagedStationJSON(t *testing.T) {
	dir := t.TempDir()
	good := buildTestIndex(t, dir, "good.db", demo.SnapshotAt, demo.NDJSON)
	sound, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(dir, "live.db")
	if err := os.WriteFile(live, flipValueByte(t, sound, format.BucketStationJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startChild(t, "serve", "-index", live, "-watch", "50ms",
		"-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0", "-log-format", "json")
	damage := p.waitLog(t, "index damaged: answering 503 until a reload succeeds")
	if msg, _ := damage["err"].(string); !strings.Contains(msg, live) || !strings.Contains(msg, string(format.BucketStationJSON)) {
		t.Errorf("damage logged as %q; want the file and the bucket named", msg)
	}
	if code := statusOf(t, p.base+"/api/stations?limit=1"); code != http.StatusServiceUnavailable {
		t.Errorf("API after the damage was found: %d, want 503", code)
	}
	if code := statusOf(t, p.admin+"/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz after the damage was found: %d, want 503", code)
	}
	if m := metricsText(t, p.admin); strings.Contains(m, "stationdex_index_info{") {
		t.Error("/metrics still describes the withdrawn index (stationdex_index_info)")
	}
	copyOver(t, good, live)
	p.waitLog(t, "snapshot swapped")
	if code := statusOf(t, p.base+"/api/stations?limit=1"); code != http.StatusOK {
		t.Fatalf("API after the swap: %d, want 200", code)
	}
	if m := metricsText(t, p.admin); !strings.Contains(m, "stationdex_index_info{") {
		t.Error("/metrics does not describe the index swapped in (stationdex_index_info)")
	}
	p.stop(t)
}

// metricsText is the admin listener's /metrics.
func metricsText(t *testing.T, admin string) string {
	t.Helper()
	resp, err := http.Get(admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %d %v", resp.StatusCode, err)
	}
	return string(body)
}

func statusOf(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// child is a running `stationdex serve` whose every JSON log line is
// kept, so that a chatty access log never blocks it on a full pipe.
type child struct {
	cmd         *exec.Cmd
	mu          sync.Mutex
	lines       []map[string]any
	done        chan error
	base, admin string
}

func startChild(t *testing.T, args ...string) *child {
	t.Helper()
	c := &child{cmd: exec.Command(os.Args[0], "-test.run=^TestHelperStationdex$"), done: make(chan error, 1)}
	c.cmd.Env = childEnv(t, args)
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		c.collect(stderr) // to the end first: Wait closes the pipe
		c.done <- c.cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = c.cmd.Process.Kill()
		<-c.done
	})
	start := c.waitLog(t, "serving")
	c.base = "http://" + start["addr"].(string)
	c.admin, _ = start["admin_addr"].(string)
	c.admin = "http://" + c.admin
	return c
}

func (c *child) collect(r io.Reader) {
	s := bufio.NewScanner(r)
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		var line map[string]any
		if json.Unmarshal(s.Bytes(), &line) == nil {
			c.mu.Lock()
			c.lines = append(c.lines, line)
			c.mu.Unlock()
		}
	}
}

// waitLog waits up to 20s for a log line with message msg.
func (c *child) waitLog(t *testing.T, msg string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if l := c.find(msg); l != nil {
			return l
		}
	}
	t.Fatalf("no %q log line within 20s", msg)
	return nil
}

func (c *child) find(msg string) map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range c.lines {
		if l["msg"] == msg {
			return l
		}
	}
	return nil
}

// stop sends SIGTERM and wants exit status 0 within 30s.
func (c *child) stop(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-c.done:
		c.done <- err // for the cleanup
		if err != nil {
			t.Fatalf("after SIGTERM: %v, want exit status 0", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("still running 30s after SIGTERM")
	}
}

// TestStartupFullCheck: -check-on-start adds stationdex check's full decode
// to the verification at open; it refuses the same files, serves a good
// one, and a later swap is still checked in full.
func TestStartupFullCheck(t *testing.T) {
	bad := badIndexes(t)
	for name, b := range bad {
		code, out := runChild(t, "serve", "-check-on-start", "-index", b.path, "-addr", "127.0.0.1:0", "-log-format", "json")
		if code != 1 || !strings.Contains(out, b.serveSays) {
			t.Errorf("%s: serve -check-on-start exit %d, want 1 saying %q\n%s", name, code, b.serveSays, out)
		}
	}
	dir := t.TempDir()
	live := filepath.Join(dir, "live.db")
	copyOver(t, buildTestIndex(t, dir, "a.db", demo.SnapshotAt, demo.NDJSON), live)
	p := startServe(t, "serve", "-check-on-start", "-index", live, "-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0", "-log-format", "json")
	p.expectSnapshot(t, demo.SnapshotAt.Format(time.RFC3339))
	copyOver(t, bad["zeroed middle"].path, live)
	p.signal(t, syscall.SIGHUP)
	p.waitLog(t, "snapshot swap refused")
	p.expectSnapshot(t, demo.SnapshotAt.Format(time.RFC3339))
}

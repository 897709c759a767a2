package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"stationdex/indexer/demo"
	"stationdex/indexer/realdata"
	"stationdex/internal/snapshot"
	"stationdex/query"
)

// asHelper makes selfCommand run this test binary as the command (see
// TestHelperStationdex) for the length of the test.
func asHelper(t *testing.T) {
	t.Helper()
	prev := selfCommand
	selfCommand = func(ctx context.Context, args []string) (*exec.Cmd, error) {
		raw, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperStationdex$")
		cmd.Env = append(os.Environ(), helperArgsEnv+"="+string(raw))
		return cmd, nil
	}
	t.Cleanup(func() { selfCommand = prev })
}

// TestChildBuild builds a dump in the niced child process, as a node
// following dumps does; a dump that is not one fails with the child's
// message.
func TestChildBuild(t *testing.T) {
	asHelper(t)
	dir := t.TempDir()
	build := childBuild(followFlags{memory: 16}, &url.URL{Scheme: "http", Host: "radio.example.org"})
	dst := filepath.Join(dir, "built.db")
	if err := build(context.Background(), dst, dir, bytes.NewReader(demo.NDJSON)); err != nil {
		t.Fatal(err)
	}
	ix, err := query.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	if got := ix.Meta().Stations; got < 40 {
		t.Errorf("%d stations built, want the demo's", got)
	}
	_ = ix.Close()
	err = build(context.Background(), filepath.Join(dir, "bad.db"), dir, strings.NewReader("<html>not a dump</html>"))
	if err == nil || !strings.Contains(err.Error(), "neither a JSON array nor NDJSON") {
		t.Errorf("a bad dump: %v; want the child's message", err)
	}
}

// TestPublishCommand: the usage errors, a damaged index refused with
// nothing published, and a signed publish minisign verifies.
func TestPublishCommand(t *testing.T) {
	dir := t.TempDir()
	good := buildTestIndex(t, dir, "good.db", demo.SnapshotAt, demo.NDJSON)
	pub := filepath.Join(dir, "pub")
	if err := os.Mkdir(pub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{good}, {"-dir", pub}, {"-dir", pub, "-keep", "-1", good}, {"-dir", pub, good, good}} {
		var stdout, stderr strings.Builder
		if code := run(append([]string{"publish"}, args...), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "usage: stationdex publish") {
			t.Errorf("publish %q: exit %d, stderr %q; want 2 and the help", args, code, stderr.String())
		}
	}
	for name, b := range badIndexes(t) {
		var stdout, stderr strings.Builder
		if code := run([]string{"publish", "-dir", pub, b.path}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "nothing published") {
			t.Errorf("%s: exit %d, stderr %q; want 1 and nothing published", name, code, stderr.String())
		}
	}
	if entries, _ := os.ReadDir(pub); len(entries) != 0 {
		t.Fatalf("refused indexes left %d files in the directory", len(entries))
	}
	var stdout, stderr strings.Builder
	if code := run([]string{"publish", "-dir", pub, "-key", filepath.Join(dir, "missing.key"), good}, &stdout, &stderr); code != 1 {
		t.Errorf("a missing key: exit %d, want 1", code)
	}
	tool, err := exec.LookPath("minisign")
	if err != nil {
		realdata.Missing(t, "the minisign tool (apt-get install minisign)")
	}
	sec, pubKey := filepath.Join(dir, "k.sec"), filepath.Join(dir, "k.pub")
	if out, err := exec.Command(tool, "-G", "-W", "-s", sec, "-p", pubKey).CombinedOutput(); err != nil {
		t.Fatalf("minisign -G: %v %s", err, out)
	}
	stdout.Reset()
	if code := run([]string{"publish", "-dir", pub, "-key", sec, good}, &stdout, &stderr); code != 0 {
		t.Fatalf("publish: exit %d, %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), snapshot.FileName(demo.SnapshotAt)) || !strings.Contains(stdout.String(), "signed") {
		t.Errorf("publish said %q", stdout.String())
	}
	if out, err := exec.Command(tool, "-V", "-p", pubKey, "-m", filepath.Join(pub, "latest.json")).CombinedOutput(); err != nil {
		t.Errorf("minisign refuses the published manifest: %v %s", err, out)
	}
}

// TestFollowFlags: the follow flags a node cannot run with exit 2.
func TestFollowFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-follow", "https://example.org/latest.json"},                                           // no -index
		{"-index", "x.db", "-follow", "https://example.org/latest.json", "-every", "10s"},        // too often
		{"-index", "x.db", "-follow", "https://example.org/json/stations", "-follow-key", "RWx"}, // key with dumps
		{"-index", "x.db", "-follow", "https://example.org/latest.json", "-follow-key", "/no/such.pub"},
		{"-index", "x.db", "-follow-key", "k.pub"}, // key without -follow
		{"-index", "x.db", "-follow", ","},
		{"-index", "/no/such/dir/x.db", "-follow", "https://example.org/latest.json"},
	} {
		var stdout, stderr strings.Builder
		if code := run(append([]string{"serve"}, args...), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "usage: stationdex serve") {
			t.Errorf("serve %q: exit %d, stderr %q; want 2 and the help", args, code, stderr.String())
		}
	}
}

// TestServeFollowsPublished runs `stationdex serve -follow` as a process
// with no live file: not ready, then the signed published snapshot arrives
// and is served; the metrics say so.
func TestServeFollowsPublished(t *testing.T) {
	tool, err := exec.LookPath("minisign")
	if err != nil {
		realdata.Missing(t, "the minisign tool (apt-get install minisign)")
	}
	dir := t.TempDir()
	good := buildTestIndex(t, dir, "good.db", demo.SnapshotAt, demo.NDJSON)
	pub := filepath.Join(dir, "pub")
	if err := os.Mkdir(pub, 0o755); err != nil {
		t.Fatal(err)
	}
	sec, pubKey := filepath.Join(dir, "k.sec"), filepath.Join(dir, "k.pub")
	if out, err := exec.Command(tool, "-G", "-W", "-s", sec, "-p", pubKey).CombinedOutput(); err != nil {
		t.Fatalf("minisign -G: %v %s", err, out)
	}
	var stdout, stderr strings.Builder
	if code := run([]string{"publish", "-dir", pub, "-key", sec, good}, &stdout, &stderr); code != 0 {
		t.Fatalf("publish: exit %d, %s", code, stderr.String())
	}
	live := filepath.Join(dir, "node", "live.db")
	if err := os.Mkdir(filepath.Dir(live), 0o755); err != nil {
		t.Fatal(err)
	}
	p := startChild(t, "serve", "-index", live, "-follow", filepath.Join(pub, "latest.json"), "-every", "1h",
		"-follow-key", pubKey, "-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0", "-log-format", "json")
	p.waitLog(t, "follow: new snapshot served")
	if code := statusOf(t, p.admin+"/readyz"); code != http.StatusOK {
		t.Errorf("/readyz after the first snapshot: %d", code)
	}
	resp, err := http.Get(p.admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	for _, want := range []string{`stationdex_follow_attempts_total{result="swapped"} 1`, `stationdex_follow_period_seconds 3600`, "stationdex_index_age_seconds"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	p.stop(t)
}

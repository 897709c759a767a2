package node_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"stationdex/indexer"
	"stationdex/indexer/demo"
)

// Two snapshots built from different inputs: the whole demo data set, and
// its first lines only, a day later. Responses tell them apart by
// snapshot_at.
var (
	snapshotA = time.Date(2025, 2, 27, 12, 0, 0, 0, time.UTC)
	snapshotB = time.Date(2025, 2, 28, 12, 0, 0, 0, time.UTC)
)

// fixturesDir holds the fixtures; TestMain removes it.
var fixturesDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if fixturesDir != "" {
		_ = os.RemoveAll(fixturesDir)
	}
	os.Exit(code)
}

// fixtures builds the two index files once per test binary.
var fixtures = sync.OnceValues(func() ([2]string, error) {
	dir, err := os.MkdirTemp("", "stationdex-node-test-")
	if err != nil {
		return [2]string{}, err
	}
	fixturesDir = dir
	lines := bytes.SplitAfter(demo.NDJSON, []byte("\n"))
	a, err := buildIndex(dir, "a.db", snapshotA, demo.NDJSON)
	if err != nil {
		return [2]string{}, err
	}
	b, err := buildIndex(dir, "b.db", snapshotB, bytes.Join(lines[:len(lines)/2], nil))
	return [2]string{a, b}, err
})

func buildIndex(dir, name string, at time.Time, ndjson []byte) (string, error) {
	path := filepath.Join(dir, name)
	opts := indexer.Options{SnapshotAt: at, Source: "node test " + name}
	_, err := indexer.Build(context.Background(), path, opts, indexer.Input{Name: name, R: bytes.NewReader(ndjson)})
	return path, err
}

func fixturePaths(t *testing.T) (a, b string) {
	t.Helper()
	p, err := fixtures()
	if err != nil {
		t.Fatalf("build fixtures: %v", err)
	}
	return p[0], p[1]
}

// publish copies src to dst the way a snapshot must be published: into a
// temporary file next to dst, then renamed over it.
func publish(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	publishBytes(t, data, dst)
}

func publishBytes(t *testing.T, data []byte, dst string) {
	t.Helper()
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		t.Fatal(err)
	}
}

// get fetches url and returns status and body.
func get(t testing.TB, c *http.Client, url string) (int, []byte, error) {
	resp, err := c.Get(url)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// snapshotOf reads snapshot_at from an API response body.
func snapshotOf(body []byte) (time.Time, error) {
	var env struct {
		SnapshotAt time.Time `json:"snapshot_at"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return time.Time{}, fmt.Errorf("decode %q: %w", clip(body), err)
	}
	return env.SnapshotAt, nil
}

func clip(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

package main

import (
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"stationdex/indexer/demo"
)

// TestSIGTERMUnderLoadDropsNothing stops a node with SIGTERM while clients
// keep searching: the node exits 0 after draining, no response is cut
// short, and every request the node answered with 200 (its access log
// says how many) reached a client whole. Requests sent after the listener
// closed fail to connect, which is the point of draining.
func TestSIGTERMUnderLoadDropsNothing(t *testing.T) {
	index := buildTestIndex(t, t.TempDir(), "demo.db", demo.SnapshotAt, demo.NDJSON)
	c := startChild(t, "serve", "-index", index, "-addr", "127.0.0.1:0", "-access-log",
		"-log-format", "json", "-drain-timeout", "10s")
	var load drainLoad
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { load.run(c.base+"/api/stations?q=radio&limit=20", stop) })
	}
	// Stop under load: once every client has had answers, so requests are
	// in flight on every connection when SIGTERM arrives.
	load.waitWhole(t, 64)
	c.stop(t) // SIGTERM, then exit status 0
	close(stop)
	wg.Wait()
	c.waitLog(t, "drained")
	served := c.count(func(l map[string]any) bool { return l["msg"] == "access" && l["status"] == float64(http.StatusOK) })
	t.Logf("%d answered whole, %d cut short, %d not connected; the node logged %d answers", load.whole.Load(), load.cut.Load(), load.refused.Load(), served)
	if load.whole.Load() == 0 {
		t.Fatal("no request was answered before the stop")
	}
	if n := load.cut.Load(); n > 0 {
		t.Errorf("%d responses cut short by the stop", n)
	}
	if served != int(load.whole.Load()) {
		t.Errorf("the node answered %d requests with 200, clients received %d whole", served, load.whole.Load())
	}
}

// drainLoad counts what clients saw.
type drainLoad struct {
	whole, cut, refused atomic.Int64
}

func (l *drainLoad) run(url string, stop <-chan struct{}) {
	client := &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	for {
		select {
		case <-stop:
			return
		default:
		}
		resp, err := client.Get(url)
		if err != nil {
			l.refused.Add(1)
			time.Sleep(5 * time.Millisecond)
			continue
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		var env struct{ Results []json.RawMessage }
		if err != nil || resp.StatusCode != http.StatusOK || json.Unmarshal(body, &env) != nil {
			l.cut.Add(1)
			continue
		}
		l.whole.Add(1)
	}
}

// waitWhole waits until clients have received n whole answers.
func (l *drainLoad) waitWhole(t *testing.T, n int64) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); l.whole.Load() < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d whole answers before the stop, want %d", l.whole.Load(), n)
		}
	}
}

// count is the number of log lines for which match holds.
func (c *child) count(match func(map[string]any) bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, l := range c.lines {
		if match(l) {
			n++
		}
	}
	return n
}

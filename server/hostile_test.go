package server_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"stationdex/server/node"
	"stationdex/server/node/nodetest"
)

// hostileTimeouts are the node's real limits, shortened only where a
// hostile request could make the test wait.
var hostileTimeouts = node.Timeouts{
	ReadHeader: 2 * time.Second, Read: 2 * time.Second,
	Write: 5 * time.Second, Idle: 5 * time.Second,
}

// TestHostileCorpus replays the committed corpus of hostile requests.
func TestHostileCorpus(t *testing.T) {
	cases := loadHostileCorpus(t)
	n := nodetest.Start(t, nodetest.Options{Timeouts: hostileTimeouts})
	replayAll(t, n.Addr().String(), cases, 2)
}

// TestHostileGenerated replays the generator's requests, more than 10,000
// of them over a few connections at a time, and checks that the node's
// memory and goroutines come back to where they were: the node neither
// crashes nor keeps anything of what it refused.
func TestHostileGenerated(t *testing.T) {
	cases := generateHostile(hostileSeed)
	if len(cases) < 10_000 {
		t.Fatalf("generator made %d requests, want at least 10,000", len(cases))
	}
	n := nodetest.Start(t, nodetest.Options{Timeouts: hostileTimeouts})
	before := settledHeap()
	goroutines := runtime.NumGoroutine()
	start := time.Now()
	replayAll(t, n.Addr().String(), cases, 4)
	t.Logf("%d hostile requests in %v", len(cases), time.Since(start).Round(time.Millisecond))
	if after := settledHeap(); after > before+hostileHeapGrowth {
		t.Errorf("live heap grew from %d to %d bytes over the replay; bound %d", before, after, hostileHeapGrowth)
	}
	// Refused connections close at once or within the 500ms net/http
	// waits after a 431 before its reset.
	waitGoroutines(t, goroutines+2)
}

// hostileHeapGrowth is a generous bound: the replay allocates hundreds of
// megabytes in total, and none of it may stay.
const hostileHeapGrowth = 16 << 20

func settledHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func waitGoroutines(t *testing.T, atMost int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > atMost && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > atMost {
		t.Errorf("%d goroutines after the replay, want at most %d", n, atMost)
	}
}

// maxReportedFailures keeps a broken server from flooding the test log.
const maxReportedFailures = 40

// replayAll replays cases on workers connections in parallel, each worker
// taking every workers-th case, and reports the failures.
func replayAll(t *testing.T, addr string, cases []hostileCase, workers int) {
	t.Helper()
	var mu sync.Mutex
	var failures []string
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			c := &hostileClient{addr: addr}
			defer c.close()
			for i := w; i < len(cases); i += workers {
				if err := c.replay(cases[i]); err != nil {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("%s: %v\n\trequest: %.300q", cases[i].name, err, cases[i].raw))
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	for i, f := range failures {
		if i == maxReportedFailures {
			t.Errorf("... and %d more", len(failures)-i)
			break
		}
		t.Error(f)
	}
}

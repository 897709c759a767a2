package server_test

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"stationdex/server/node/nodetest"
)

// TestReloadDamagedSnapshots publishes hundreds of randomly damaged copies
// of the served index (bytes flipped anywhere, or cut short) while clients
// search without pause. Each swap is refused, or accepted only if the file
// is sound enough to serve; either way every search keeps being answered,
// and the node never crashes. A damaged file is the way an operator's
// disk, copy or build can fail, and the swap must not turn it into an
// outage.
func TestReloadDamagedSnapshots(t *testing.T) {
	n := nodetest.Start(t, nodetest.Options{Timeouts: hostileTimeouts})
	good, err := os.ReadFile(n.Path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	var answered, failed atomic.Int64
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { searchUntil(ctx, n.Base, &answered, &failed) })
	}
	rng := rand.New(rand.NewPCG(hostileSeed, 7))
	refused := 0
	for range 300 {
		publishAt(t, n.Path, damaged(rng, good))
		if n.Reloader.Reload() != nil {
			refused++
		}
	}
	publishAt(t, n.Path, good)
	if err := n.Reloader.Reload(); err != nil {
		t.Fatalf("the sound file refused after the damaged ones: %v", err)
	}
	time.Sleep(50 * time.Millisecond)
	stop()
	wg.Wait()
	t.Logf("%d of 300 damaged files refused; %d searches answered meanwhile", refused, answered.Load())
	if failed.Load() > 0 {
		t.Errorf("%d searches failed while damaged files were offered", failed.Load())
	}
	if refused < 150 {
		t.Errorf("only %d of 300 damaged files refused", refused)
	}
}

// damaged flips a few random bytes of good, or cuts it short.
func damaged(rng *rand.Rand, good []byte) []byte {
	d := bytes.Clone(good)
	if rng.IntN(5) == 0 {
		return d[:rng.IntN(len(d))]
	}
	for range 1 + rng.IntN(16) {
		d[rng.IntN(len(d))] ^= byte(1 + rng.IntN(255))
	}
	return d
}

// publishAt replaces the file at path by data the way a snapshot is
// published: written beside it, then renamed over it.
func publishAt(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path+".tmp", data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
}

// searchUntil searches until ctx ends, counting answers and failures (any
// status but 200, or no answer).
func searchUntil(ctx context.Context, base string, answered, failed *atomic.Int64) {
	client := &http.Client{Timeout: 5 * time.Second}
	defer client.CloseIdleConnections()
	for ctx.Err() == nil {
		resp, err := client.Get(base + "/api/stations?q=radio&limit=5")
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		if err != nil || resp.StatusCode != http.StatusOK {
			failed.Add(1)
			continue
		}
		answered.Add(1)
	}
}

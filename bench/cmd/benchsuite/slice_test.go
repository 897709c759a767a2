package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"stationdex/indexer/realdata"
)

// TestWrkSliceSendsEachOnce runs wrk with scripts/wrk-slice.lua against a
// recording server: with more paths than wrk can send in a second, no path
// is requested twice and no wrap is reported; with few paths, the slices run
// out and the wraps are counted.
func TestWrkSliceSendsEachOnce(t *testing.T) {
	if _, err := exec.LookPath("wrk"); err != nil {
		realdata.Missing(t, "wrk (apt-get install wrk)")
	}
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.RequestURI()]++
		mu.Unlock()
		w.Write([]byte("{}"))
	}))
	defer srv.Close()
	wd, _ := os.Getwd()
	g := loadGen{threads: 2, conns: 4, benchDir: filepath.Dir(filepath.Dir(wd))}
	write := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "/p?i=%d\n", i)
		}
		path := filepath.Join(t.TempDir(), "paths.txt")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	o, err := g.run(srv.URL, time.Second, "wrk-slice.lua", nil, []string{write(400_000), "2"})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	for p, n := range seen {
		if n > 1 {
			t.Errorf("%s requested %d times", p, n)
		}
	}
	if int64(len(seen)) < o.Requests || o.Wraps != 0 {
		t.Errorf("%d requests, %d distinct paths, %d wraps", o.Requests, len(seen), o.Wraps)
	}
	// Each thread starts at its slice (wrk may generate a request that a
	// reconnecting connection never sends, so look at the first few).
	for _, start := range []int{0, 200_000} {
		n := 0
		for i := start; i < start+10; i++ {
			n += seen[fmt.Sprintf("/p?i=%d", i)]
		}
		if n < 8 {
			t.Errorf("only %d of the 10 paths from %d requested: a thread does not start at its slice", n, start)
		}
	}
	clear(seen)
	mu.Unlock()
	o, err = g.run(srv.URL, time.Second, "wrk-slice.lua", nil, []string{write(50), "2"})
	if err != nil {
		t.Fatal(err)
	}
	if want := o.Requests / 25; o.Wraps < want-4 || o.Wraps > want+4 { // two slices of 25
		t.Errorf("%d requests over two slices of 25 paths: %d wraps, want about %d", o.Requests, o.Wraps, want)
	}
}

package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pprofile "github.com/google/pprof/profile"
)

// stackProfile is a CPU profile with one sample per stack (leaf first),
// of the given nanoseconds.
func stackProfile(stacks [][]string, ns []int64) *pprofile.Profile {
	p := &pprofile.Profile{SampleType: []*pprofile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &pprofile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10_000_000}
	fns := map[string]*pprofile.Function{}
	for i, st := range stacks {
		var locs []*pprofile.Location
		for _, name := range st {
			f := fns[name]
			if f == nil {
				f = &pprofile.Function{ID: uint64(len(fns) + 1), Name: name}
				fns[name] = f
				p.Function = append(p.Function, f)
			}
			l := &pprofile.Location{ID: uint64(len(p.Location) + 1), Line: []pprofile.Line{{Function: f}}}
			p.Location = append(p.Location, l)
			locs = append(locs, l)
		}
		p.Sample = append(p.Sample, &pprofile.Sample{Location: locs, Value: []int64{1, ns[i]}})
	}
	return p
}

// TestCPUParts: a sample goes to the first part claiming any function on
// its stack (allocation before the index that allocates, kernel calls
// before the node code that made them), unclaimed ones to net/http and
// scheduling, and shares are of the cpu value, written and read back as
// a real profile file.
func TestCPUParts(t *testing.T) {
	p := stackProfile([][]string{
		{"runtime.mallocgc", "stationdex/query/core.(*Search).run", "net/http.(*conn).serve"},                // allocation
		{"internal/runtime/syscall/linux.Syscall6", "syscall.write", "stationdex/server/wire.(*Conn).Write"}, // kernel
		{"stationdex/query/pagetree.searchElems", "stationdex/server/pages.(*Server).SearchPage"},            // index
		{"stationdex/server/pages.appendText", "stationdex/server/pages.(*Server).servePage"},                // pages
		{"github.com/klauspost/compress/flate.(*compressor).deflate", "stationdex/server.(*Server).send"},    // compression
		{"stationdex/server.(*Server).send", "net/http.HandlerFunc.ServeHTTP"},                               // node
		{"net/http.Header.writeSubset", "net/http.(*conn).serve"},                                            // rest
		{"runtime.findRunnable", "runtime.schedule"},                                                         // rest
	}, []int64{10, 20, 30, 40, 50, 60, 70, 20})
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cpu.prof")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	parts, err := readCPUParts(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"allocation, GC": 10, "kernel calls": 20, "index, search, JSON": 30, "pages": 40,
		"compression": 50, "node per request": 60, restPart: 90}
	if len(parts) != len(want) {
		t.Fatalf("%d parts, want %d: %+v", len(parts), len(want), parts)
	}
	for i, pt := range parts {
		if pt.Part != cpuPartNames()[i] {
			t.Errorf("part %d is %q, want %q (report order)", i, pt.Part, cpuPartNames()[i])
		}
		if w := want[pt.Part] / 300; math.Abs(pt.Share-w) > 1e-9 {
			t.Errorf("%s: share %.4f, want %.4f", pt.Part, pt.Share, w)
		}
	}
}

// TestCPUPartsRefuses a profile that is not a CPU profile, or is empty.
func TestCPUPartsRefuses(t *testing.T) {
	heap := stackProfile([][]string{{"runtime.mallocgc"}}, []int64{1})
	heap.SampleType[1].Type = "alloc_space"
	if _, err := cpuParts(heap); err == nil || !strings.Contains(err.Error(), "not a CPU profile") {
		t.Errorf("heap profile: %v", err)
	}
	if _, err := cpuParts(stackProfile(nil, nil)); err == nil {
		t.Error("empty profile accepted")
	}
	if _, err := readCPUParts(filepath.Join(t.TempDir(), "missing.prof")); err == nil {
		t.Error("missing file accepted")
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{"hot, Accept-Encoding: gzip": "hot-accept-encoding-gzip", "cold": "cold", "--a  b--": "a-b"} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBudgets: the predicted ratio is the ceiling's CPU per request (server
// and wrk) over stationdex's, and the budget the goal's sum less wrk's
// part, at wrk's cost in either kind of round, the larger said against
// the floor.
func TestBudgets(t *testing.T) {
	floor := &HTTPMix{Name: "floor", Ours: Wrk{CPUUsPerReq: 13}}
	mixes := []HTTPMix{
		{Name: "crawl", ThroughputX: 0.37, Ceiling: Wrk{CPUUsPerReq: 10, WrkCPUUsPerReq: 14}, Ours: Wrk{CPUUsPerReq: 40, WrkCPUUsPerReq: 20}},
		{Name: "cold", ThroughputX: 0.45, Ceiling: Wrk{CPUUsPerReq: 6, WrkCPUUsPerReq: 14}, Ours: Wrk{CPUUsPerReq: 30, WrkCPUUsPerReq: 14}},
		{Name: "hot", ThroughputX: 1.05, Ceiling: Wrk{CPUUsPerReq: 10, WrkCPUUsPerReq: 10}, Ours: Wrk{CPUUsPerReq: 11, WrkCPUUsPerReq: 8}},
		{Name: "hot, Accept-Encoding: gzip", ThroughputX: 0.8, Ceiling: Wrk{CPUUsPerReq: 10, WrkCPUUsPerReq: 10}, Ours: Wrk{CPUUsPerReq: 13, WrkCPUUsPerReq: 9}},
	}
	var w strings.Builder
	budgets(&w, mixes, floor)
	out := w.String()
	for _, want := range []string{
		// crawl: 24/0.7 = 34.3; less wrk's 20 in stationdex's rounds: 14.3,
		// less its 14 in the ceiling's: 20.3, 7.3 above the floor of 13
		"crawl: measured 0.37x, predicted 0.40x (24.0 / 60.0 us); 0.7x allows stationdex 14.3 us per request (20.3), it spends 40.0: " +
			"25.7 us to take out (19.7 with wrk at the ceiling's cost) of the 27.0 above the floor (13.0, a static file from memory), " +
			"so the answers' own work beyond the floor may cost 7.3 us at most.",
		// cold: 20/0.75 - 14 = 12.7 either way, below the floor of 13
		"cold: measured 0.45x, predicted 0.45x (20.0 / 44.0 us); 0.75x allows stationdex 12.7 us per request (12.7), it spends 30.0, and the floor alone",
		"hot: measured 1.05x, predicted 1.05x (20.0 / 19.0 us); 1x allows stationdex 12.0 us per request (12.0), it spends 11.0: held.",
		// gzip: 20/0.85 - 9 = 14.5 >= 13: the model says it fits
		"hot, Accept-Encoding: gzip: measured 0.80x, predicted 0.91x (20.0 / 22.0 us); 0.85x allows stationdex 14.5 us per request (14.5), it spends 13.0: within it, so the miss",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("budgets lack %q:\n%s", want, out)
		}
	}
	// over the budget at wrk's cost in stationdex's rounds (18 - 10 = 8),
	// within it at its cost in the ceiling's (18 - 8 = 10)
	mixes = []HTTPMix{{Name: "hot", ThroughputX: 0.95, Ceiling: Wrk{CPUUsPerReq: 10, WrkCPUUsPerReq: 8}, Ours: Wrk{CPUUsPerReq: 9.5, WrkCPUUsPerReq: 10}}}
	w.Reset()
	budgets(&w, mixes, floor)
	if want := "1x allows stationdex 8.0 us per request (10.0), it spends 9.5: 1.5 us over it, within it at wrk's cost in the ceiling's rounds"; !strings.Contains(w.String(), want) {
		t.Errorf("budgets lack %q:\n%s", want, w.String())
	}
}

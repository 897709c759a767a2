package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"stationdex/bench/internal/engines"
	"stationdex/bench/internal/mix"
	"stationdex/indexer"
)

// timing says how hard to time one engine: each query runs once to warm up
// (when Warm), then repeatedly until Budget is spent (at most MaxReps, at
// least once); its time is the mean of those runs.
type timing struct {
	Warm    bool
	Budget  time.Duration
	MaxReps int
}

// timeEngine returns per-query times in microseconds and totals.
func timeEngine(e engines.Engine, qs []mix.Query, t timing) (times []float64, totals []int, err error) {
	if t.Warm {
		for _, q := range qs {
			if _, _, err := e.Search(q, false); err != nil {
				return nil, nil, fmt.Errorf("%s: %+v: %w", e.Name(), q, err)
			}
		}
	}
	times = make([]float64, len(qs))
	totals = make([]int, len(qs))
	for i, q := range qs {
		t0 := time.Now()
		n, _, err := e.Search(q, false)
		d := time.Since(t0)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %+v: %w", e.Name(), q, err)
		}
		totals[i] = n
		if reps := min(t.MaxReps, int(t.Budget/max(d, time.Nanosecond))); reps > 1 {
			t0 = time.Now()
			for range reps {
				e.Search(q, false)
			}
			d = time.Since(t0) / time.Duration(reps)
		}
		times[i] = float64(d.Nanoseconds()) / 1e3
	}
	return times, totals, nil
}

// stats groups per-query times by class.
func stats(qs []mix.Query, times []float64, totals []int) Stats {
	st := Stats{Summary: summarize(times), Classes: map[string]Summary{}, times: times}
	byClass := map[string][]float64{}
	zero := map[string]int{}
	for i, q := range qs {
		byClass[q.Class] = append(byClass[q.Class], times[i])
		if totals != nil && totals[i] == 0 {
			zero[q.Class]++
			st.ZeroTotals++
		}
	}
	for c, v := range byClass {
		s := summarize(v)
		s.ZeroTotals = zero[c]
		st.Classes[c] = s
	}
	return st
}

// allocs measures heap allocations per search, per class and over the mix,
// with the engine's own Search (no adapter).
func allocs(e *engines.Stationdex, qs []mix.Query, st *Stats) {
	var before, after runtime.MemStats
	measure := func(idx []int) (float64, float64) {
		runtime.GC()
		runtime.ReadMemStats(&before)
		for _, i := range idx {
			e.Ix.Search(engines.Query(qs[i]))
		}
		runtime.ReadMemStats(&after)
		n := float64(len(idx))
		return float64(after.Mallocs-before.Mallocs) / n, float64(after.TotalAlloc-before.TotalAlloc) / n
	}
	all := make([]int, len(qs))
	for i := range all {
		all[i] = i
	}
	st.AllocsPerOp, st.BytesPerOp = measure(all)
	for c, idx := range mix.ByClass(qs) {
		s := st.Classes[c]
		s.AllocsPerOp, s.BytesPerOp = measure(idx)
		st.Classes[c] = s
	}
}

// split returns the medians of the engine's own Bitmap/Decode timing.
func split(e *engines.Stationdex, qs []mix.Query) (bitmap, decode float64) {
	var b, d []float64
	for _, q := range qs {
		res, err := e.Ix.Search(engines.Query(q))
		if err != nil {
			continue
		}
		b = append(b, float64(res.Timing.Bitmap.Nanoseconds())/1e3)
		d = append(d, float64(res.Timing.Decode.Nanoseconds())/1e3)
	}
	return median(b), median(d)
}

// buildProfile builds data into a scratch index in process under the CPU
// profiler and returns the top of the profile by cumulative time.
func buildProfile(data, scratch, path string) (string, error) {
	in, err := os.Open(data)
	if err != nil {
		return "", err
	}
	defer in.Close()
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return "", err
	}
	_, err = indexer.Build(context.Background(), scratch, indexer.Options{}, indexer.Input{Name: data, R: in})
	pprof.StopCPUProfile()
	f.Close()
	os.Remove(scratch)
	if err != nil {
		return "", err
	}
	out, err := pprofCommand("-top", "-cum", "-nodecount=40", path).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go tool pprof: %w\n%s", err, out)
	}
	return string(out), nil
}

// profile runs the mix in a loop for d under the CPU profiler and returns
// the top of `go tool pprof -top`.
func profile(e *engines.Stationdex, qs []mix.Query, d time.Duration, path string) (string, error) {
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return "", err
	}
	for deadline := time.Now().Add(d); time.Now().Before(deadline); {
		for _, q := range qs {
			e.Ix.Search(engines.Query(q))
		}
	}
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		return "", err
	}
	flat, err := pprofCommand("-top", "-nodecount=25", path).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go tool pprof: %w\n%s", err, flat)
	}
	cum, err := pprofCommand("-top", "-cum", "-nodecount=40", path).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go tool pprof: %w\n%s", err, cum)
	}
	return string(flat) + "\n--- the same profile by cumulative time ---\n" + string(cum), nil
}

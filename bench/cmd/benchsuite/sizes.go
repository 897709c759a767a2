package main

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"stationdex/bench/internal/engines"
	"stationdex/bench/internal/mix"
	"stationdex/bench/internal/shape"
)

// dataset is one input of the suite.
type dataset struct {
	Label    string
	N        int    // stations asked for; 0: the real snapshot as is
	Path     string // NDJSON (or the snapshot's .ndjson.gz)
	Stations int    // stations indexed
}

// ensureData generates d.Path with gendata unless a finished copy exists.
func (s *suite) ensureData(d *dataset, sz *Size) error {
	if d.N == 0 {
		d.Path = s.snapshot
		return nil
	}
	d.Path = filepath.Join(s.work, "data", fmt.Sprintf("stations-%s.ndjson", d.Label))
	stamp := d.Path + ".done"
	// geo=jitter: generated positions move off their template's (2026-11-23);
	// addresses=own: each has stream and home addresses of its own, some
	// repeated as resubmissions (2026-11-26). A set written by an earlier
	// rule is written again.
	want := fmt.Sprintf("n=%d seed=1 snapshot=%s geo=jitter addresses=own\n", d.N, filepath.Base(s.snapshot))
	if b, err := os.ReadFile(stamp); err == nil && string(b) == want {
		s.logf("data %s: reusing %s", d.Label, d.Path)
		return s.checkShape(d, sz)
	}
	os.MkdirAll(filepath.Dir(d.Path), 0o755)
	t0 := time.Now()
	if _, err := s.run(s.bin("gendata"), "-data", s.snapshot, "-n", strconv.Itoa(d.N), "-o", d.Path); err != nil {
		return err
	}
	sz.GenSec = time.Since(t0).Seconds()
	if err := os.WriteFile(stamp, []byte(want), 0o644); err != nil {
		return err
	}
	return s.checkShape(d, sz)
}

// ShapeCheck compares a generated set with the real snapshot (package
// shape): the generated stations only (those after the copied snapshot),
// at most shapeSample of them.
type ShapeCheck struct {
	Compared int          `json:"stations_compared"`
	Lines    []shape.Line `json:"lines"`
	Failed   int          `json:"lines_out_of_tolerance"`
	MaxDiff  float64      `json:"max_abs_diff_pp"`
}

const shapeSample = 200_000

func (s *suite) checkShape(d *dataset, sz *Size) error {
	if s.realShape == nil {
		p, err := shape.OfFile(s.snapshot, 0, 0)
		if err != nil {
			return err
		}
		s.realShape = p
	}
	skip := 0
	if d.N > s.realShape.Stations {
		skip = s.realShape.Stations
	}
	gen, err := shape.OfFile(d.Path, skip, shapeSample)
	if err != nil {
		return err
	}
	c := &ShapeCheck{Compared: gen.Stations, Lines: shape.Compare(s.realShape, gen, 10)}
	for _, l := range c.Lines {
		c.MaxDiff = max(c.MaxDiff, math.Abs(l.Real-l.Generated))
	}
	c.Failed = len(shape.Failed(c.Lines))
	sz.Shape = c
	s.logf("   data %s: distributions of %d generated stations against the snapshot: %d of %d lines out of tolerance, largest difference %.2f points",
		d.Label, c.Compared, c.Failed, len(c.Lines), c.MaxDiff)
	return nil
}

// run executes a program, returning its resource use; output goes to the log.
func (s *suite) run(prog string, args ...string) (Process, error) {
	cmd := exec.Command(prog, args...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	var hwm uint64
	err := cmd.Start()
	if err == nil {
		// Registered as a child so that an interrupt stops it too.
		s.mu.Lock()
		s.children = append(s.children, &server{cmd: cmd, out: &out})
		s.mu.Unlock()
		stop := watchHighWater(cmd.Process.Pid, &hwm)
		err = cmd.Wait()
		stop()
	}
	p := Process{WallSec: time.Since(t0).Seconds()}
	if cmd.ProcessState == nil {
		return p, fmt.Errorf("%s: %w", filepath.Base(prog), err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru != nil {
		p.UserSec = time.Duration(ru.Utime.Nano()).Seconds()
		p.SysSec = time.Duration(ru.Stime.Nano()).Seconds()
		p.MaxRSSMB = float64(ru.Maxrss) / 1024 // KiB on Linux
	}
	if hwm > 0 {
		p.MaxRSSMB = float64(hwm) / 1024
	}
	s.logRaw(fmt.Sprintf("$ %s %s\n%s", filepath.Base(prog), strings.Join(args, " "), out.String()))
	if err != nil {
		return p, fmt.Errorf("%s %s: %w\n%s", filepath.Base(prog), strings.Join(args, " "), err, lastLines(out.String(), 20))
	}
	return p, nil
}

// watchHighWater polls the peak resident set (VmHWM, KiB) of process pid
// into *kib until stop is called. The rusage of a child is no measure of its
// own peak on Linux: Go starts children with vfork, and exec folds the
// parent's high-water mark (the whole suite's) into the child's ru_maxrss.
// VmHWM belongs to the child's own address space. It only grows, so the
// last reading is the peak up to the last poll before the child exits.
func watchHighWater(pid int, kib *uint64) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	path := fmt.Sprintf("/proc/%d/status", pid)
	go func() {
		defer close(finished)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			if v, ok := statusKiB(path, "VmHWM:"); ok && v > *kib {
				*kib = v
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}

// statusKiB reads one "Name:   123 kB" line of a /proc status file.
func statusKiB(path, field string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, field); ok {
			var v uint64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &v); err == nil {
				return v, true
			}
		}
	}
	return 0, false
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// repeatBuildUnder: a build shorter than this is timed buildRuns times, so
// that one slow run on a shared machine does not stand for the build.
const repeatBuildUnder = 10 * time.Second

// medianBuild is the build of median wall time, and every run's wall time
// in the order run.
func medianBuild(builds []Process) (Process, []float64) {
	walls := make([]float64, len(builds))
	for i, b := range builds {
		walls[i] = b.WallSec
	}
	sorted := slices.Clone(builds)
	slices.SortFunc(sorted, func(a, b Process) int { return cmp.Compare(a.WallSec, b.WallSec) })
	return sorted[len(sorted)/2], walls
}

// buildIndex runs `stationdex index` on d and records time, memory, size;
// a quick build is run buildRuns times and the median kept.
func (s *suite) buildIndex(d *dataset, sz *Size) (string, error) {
	idx := filepath.Join(s.work, "index", d.Label+".db")
	os.MkdirAll(filepath.Dir(idx), 0o755)
	var builds []Process
	for len(builds) < max(s.cfg.buildRuns, 1) {
		os.Remove(idx)
		p, err := s.run(s.bin("stationdex"), "index", "-o", idx, d.Path)
		if err != nil {
			return "", err
		}
		builds = append(builds, p)
		if p.WallSec >= repeatBuildUnder.Seconds() {
			break // a build this long is timed once
		}
	}
	sz.Build, sz.BuildRuns = medianBuild(builds)
	fi, err := os.Stat(idx)
	if err != nil {
		return "", err
	}
	sz.IndexBytes = fi.Size()
	// The server verifies the whole file before it serves (node.OpenChecked);
	// timing `stationdex check` separately shows how much of the start-up that is.
	chk, err := s.run(s.bin("stationdex"), "check", idx)
	if err != nil {
		return "", err
	}
	sz.CheckSec = chk.WallSec
	if fi, err := os.Stat(d.Path); err == nil {
		sz.DataBytes = fi.Size()
	}
	return idx, nil
}

// openEngine opens the index in process, timing Open plus the first search.
func (s *suite) openEngine(idx string, sz *Size, first mix.Query) (*engines.Stationdex, error) {
	t0 := time.Now()
	e, err := engines.OpenStationdex(idx)
	if err != nil {
		return nil, err
	}
	if _, _, err := e.Search(first, false); err != nil {
		e.Close()
		return nil, err
	}
	sz.OpenMs = float64(time.Since(t0).Microseconds()) / 1e3
	sz.Stations = e.Ix.Meta().Stations
	// What the server's query.Holder does in the background for every
	// index it serves: facet columns, typo dictionary, facet memo, key
	// filters.
	t1 := time.Now()
	if err := e.Ix.Warm(); err != nil {
		e.Close()
		return nil, fmt.Errorf("warm-up: %w", err)
	}
	sz.WarmMs = float64(time.Since(t1).Microseconds()) / 1e3
	s.logf("   %s: warm-up (facet columns, dictionary, facet memo, key filters) %.0f ms", sz.Label, sz.WarmMs)
	return e, nil
}

// server is a child HTTP server.
type server struct {
	cmd  *exec.Cmd
	addr string
	out  *strings.Builder
}

func (s *suite) startServer(prog string, args ...string) (*server, error) {
	cmd := exec.Command(prog, args...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	srv := &server{cmd: cmd, out: &out}
	s.mu.Lock()
	s.children = append(s.children, srv)
	s.mu.Unlock()
	return srv, nil
}

// stop ends the child (SIGTERM, then SIGKILL after 10 s).
func (srv *server) stop() {
	if srv.cmd.Process == nil || srv.cmd.ProcessState != nil {
		return
	}
	srv.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { srv.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		srv.cmd.Process.Kill()
		<-done
	}
}

// startOurs starts `stationdex serve` on a free loopback port and waits for
// the first answered search; it returns the time from exec to that answer.
func (s *suite) startOurs(idx string, extra ...string) (*server, time.Duration, error) {
	port, err := freePort()
	if err != nil {
		return nil, 0, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	t0 := time.Now()
	args := append([]string{"serve", "-index", idx, "-addr", addr, "-base-url", "http://" + addr}, extra...)
	srv, err := s.startServer(s.bin("stationdex"), args...)
	if err != nil {
		return nil, 0, err
	}
	srv.addr = addr
	d, err := waitFirst(srv, "http://"+addr+"/api/stations?q=radio&limit=20", t0, 15*time.Minute)
	if err != nil {
		srv.stop()
		return nil, 0, fmt.Errorf("stationdex serve: %w\n%s", err, lastLines(srv.out.String(), 20))
	}
	return srv, d, nil
}

var pollClient = &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

// waitFirst polls url until it answers 200, returning the time since t0.
func waitFirst(srv *server, url string, t0 time.Time, limit time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
		resp, err := pollClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return time.Since(t0), nil
			}
		}
		if srv.cmd.ProcessState != nil {
			return 0, fmt.Errorf("server exited")
		}
		if ctx.Err() != nil {
			return 0, fmt.Errorf("no answer within %s (last: %v)", limit, err)
		}
		time.Sleep(500 * time.Microsecond)
	}
}

// startup measures exec-to-first-answer several times (fewer when one
// start-up takes seconds: the median of many is then not worth the wait).
func (s *suite) startup(idx string, sz *Size, runs int) error {
	var err error
	if sz.FirstAnswerMs, sz.StartRuns, err = s.startRuns(idx, sz, runs); err != nil {
		return err
	}
	if !s.hasServeFlag("check-on-start") {
		return nil
	}
	sz.FirstAnswerFullCheckMs, sz.StartRunsFullCheck, err = s.startRuns(idx, nil, runs, "-check-on-start")
	return err
}

func (s *suite) startRuns(idx string, sz *Size, runs int, extra ...string) (float64, []float64, error) {
	var out []float64
	t0 := time.Now()
	for i := 0; i < runs && (i == 0 || time.Since(t0) < 20*time.Second); i++ {
		srv, d, err := s.startOurs(idx, extra...)
		if err != nil {
			return 0, nil, err
		}
		out = append(out, float64(d.Microseconds())/1e3)
		if i == 0 && sz != nil {
			sz.StartRSSMB = rssMB(srv.cmd.Process.Pid)
		}
		srv.stop()
	}
	v := append([]float64(nil), out...)
	sort.Float64s(v)
	return v[len(v)/2], out, nil
}

// hasServeFlag reports whether `stationdex serve` knows a flag.
func (s *suite) hasServeFlag(name string) bool {
	out, _ := exec.Command(s.bin("stationdex"), "serve", "-h").CombinedOutput()
	return strings.Contains(string(out), "-"+name)
}

// rssMB reads a process's resident set size from /proc.
func rssMB(pid int) float64 {
	kib, _ := statusKiB(fmt.Sprintf("/proc/%d/status", pid), "VmRSS:")
	return float64(kib) / 1024
}

func removeAll(d string) { os.RemoveAll(d) }
func mkdirAll(d string)  { os.MkdirAll(d, 0o755) }

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"stationdex/bench/internal/mix"
)

// wrkOut is the summary wrk prints (scripts/*.lua: a WRKJSON line).
type wrkOut struct {
	Requests   int64 `json:"requests"`
	DurationUs int64 `json:"duration_us"`
	Connect    int64 `json:"errors_connect"`
	Read       int64 `json:"errors_read"`
	Write      int64 `json:"errors_write"`
	Status     int64 `json:"errors_status"`
	Timeout    int64 `json:"errors_timeout"`
	P50        int64 `json:"p50_us"`
	P90        int64 `json:"p90_us"`
	P99        int64 `json:"p99_us"`
	P999       int64 `json:"p999_us"`
	Wraps      int64 `json:"wraps"` // wrk-slice.lua: slices that ran out
	// Command is the wrk command line, for the report, and CPUSec the
	// CPU time wrk itself used (it shares the cores with the server).
	Command string  `json:"-"`
	CPUSec  float64 `json:"-"`
}

// loadGen is wrk as the run uses it: the same threads and connections
// for every system loaded, a script of scripts/, every run logged.
type loadGen struct {
	threads, conns int
	dur            time.Duration // a round of a mix cycled (cycle)
	benchDir       string        // where scripts/ is
	lg             *logger
}

// cycle loads base for the configured duration, cycling through paths.
func (g loadGen) cycle(base, paths string) (wrkOut, error) {
	return g.run(base, g.dur, "wrk-mix.lua", nil, []string{paths})
}

// run runs wrk against base for dur with a script of scripts/, extra
// wrk flags (headers) and the script's arguments.
func (g loadGen) run(base string, dur time.Duration, script string, flags, scriptArgs []string) (wrkOut, error) {
	args := []string{"-t", strconv.Itoa(g.threads), "-c", strconv.Itoa(g.conns), "-d", fmt.Sprintf("%.0fs", dur.Seconds()),
		"--timeout", "5s", "-s", filepath.Join(g.benchDir, "scripts", script)}
	args = append(append(args, flags...), base, "--")
	args = append(args, scriptArgs...)
	cmd := exec.Command("wrk", args...)
	out, err := cmd.CombinedOutput()
	g.lg.raw("$ wrk " + strings.Join(args, " ") + "\n" + string(out))
	if err != nil {
		return wrkOut{}, fmt.Errorf("wrk: %w\n%s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if j, ok := strings.CutPrefix(l, "WRKJSON "); ok {
			var w wrkOut
			if err := json.Unmarshal([]byte(j), &w); err != nil {
				return wrkOut{}, fmt.Errorf("wrk summary %q: %w", j, err)
			}
			if w.Requests == 0 {
				return w, fmt.Errorf("wrk made no requests against %s:\n%s", base, out)
			}
			w.Command = "wrk " + strings.Join(args, " ")
			w.CPUSec = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
			return w, nil
		}
	}
	return wrkOut{}, fmt.Errorf("wrk printed no WRKJSON line:\n%s", out)
}

// add adds one of rounds wrk rounds to w: its requests and errors
// summed, its rate and percentiles a rounds-th of the mean.
func (w *Wrk) add(o wrkOut, rounds int) {
	rps := float64(o.Requests) / (float64(o.DurationUs) / 1e6)
	w.Requests += o.Requests
	w.RoundsRPS = append(w.RoundsRPS, rps)
	w.RPS += rps / float64(rounds)
	w.P50Us += float64(o.P50) / float64(rounds)
	w.P90Us += float64(o.P90) / float64(rounds)
	w.P99Us += float64(o.P99) / float64(rounds)
	w.P999Us += float64(o.P999) / float64(rounds)
	w.Errors += o.Connect + o.Read + o.Write + o.Status + o.Timeout
}

// round runs one wrk round of a mix against url, adding it to w.
func (g loadGen) round(m *HTTPMix, url string, w *Wrk, pid int, script, paths string, extra ...string) (wrkOut, error) {
	var hdr []string
	if m.Encoding != "" {
		hdr = []string{"-H", "Accept-Encoding: " + m.Encoding}
	}
	cpu0 := cpuSeconds(pid)
	o, err := g.run(url, time.Duration(m.DurationSec*float64(time.Second)), script, hdr, append([]string{paths}, extra...))
	if err != nil {
		return o, err
	}
	w.add(o, m.Rounds)
	w.Wraps += o.Wraps
	if w == &m.Ours {
		m.Command = o.Command
	}
	if pid > 0 {
		w.CPUUsPerReq += (cpuSeconds(pid) - cpu0) * 1e6 / float64(o.Requests) / float64(m.Rounds)
	}
	w.WrkCPUUsPerReq += o.CPUSec * 1e6 / float64(o.Requests) / float64(m.Rounds)
	g.lg.logf("  wrk %s (%s): %.0f req/s, p50 %d us, p99 %d us, errors %d, wraps %d", url, m.Name,
		float64(o.Requests)/(float64(o.DurationUs)/1e6), o.P50, o.P99, o.Connect+o.Read+o.Write+o.Status+o.Timeout, o.Wraps)
	return o, nil
}

func wrkVersion() string {
	out, _ := exec.Command("wrk", "-v").CombinedOutput()
	first := strings.SplitN(string(out), "\n", 2)[0]
	if f := strings.Fields(first); len(f) >= 2 {
		return "wrk " + f[1]
	}
	return "wrk"
}

// httpBench is the committed mix over HTTP: our server against the
// ceiling, then each peer behind peerhttp, under the same wrk load.
type httpBench struct {
	sv     servers
	load   loadGen
	rounds int
	lg     *logger
}

// run compares our server with the ceiling under the same wrk load,
// alternating ceiling and ours for the configured number of rounds.
func (hb httpBench) run(idx string, qs []mix.Query, totals []int) (*HTTP, error) {
	admin, err := freeAddr()
	if err != nil {
		return nil, err
	}
	ours, _, err := hb.sv.ours(idx, "-admin-addr", admin)
	if err != nil {
		return nil, err
	}
	defer ours.stop()
	base := "http://" + ours.addr
	body, err := verifyHTTP(base, qs, totals)
	if err != nil {
		return nil, err
	}
	ceil, ceilURL, err := hb.sv.ceiling(body)
	if err != nil {
		return nil, err
	}
	defer ceil.stop()
	paths, err := hb.sv.dir.writeLines("paths.txt", mixPaths(qs))
	if err != nil {
		return nil, err
	}
	h := &HTTP{Tool: wrkVersion(), Threads: hb.load.threads, Conns: hb.load.conns, DurationSec: hb.load.dur.Seconds(), Rounds: hb.rounds, BodyBytes: body, Checked: len(qs)}
	targets := []wrkTarget{{ceilURL, &h.Ceiling, ceil.cmd.Process.Pid, ""}, {base, &h.Ours, ours.cmd.Process.Pid, admin}}
	for r := 0; r < hb.rounds; r++ {
		for _, t := range targets {
			if err := hb.round(h, t, paths, r); err != nil {
				return nil, err
			}
		}
	}
	h.ServingRSSMB = rssMB(ours.cmd.Process.Pid)
	if h.Ours.Errors > 0 || h.Ceiling.Errors > 0 {
		return h, fmt.Errorf("wrk saw errors: stationdex %d, ceiling %d (non-2xx, timeouts or socket errors)", h.Ours.Errors, h.Ceiling.Errors)
	}
	h.ThroughputX = h.Ours.RPS / h.Ceiling.RPS
	h.P50X = h.Ours.P50Us / h.Ceiling.P50Us
	h.P99X = h.Ours.P99Us / h.Ceiling.P99Us
	return h, nil
}

// verifyHTTP requests every query of the mix once from our server: each must
// answer 200 with a JSON envelope whose total equals the in-process engine's.
// It returns the median body size (the ceiling's body size).
func verifyHTTP(base string, qs []mix.Query, totals []int) (int, error) {
	client := &http.Client{Timeout: 10 * time.Second}
	var sizes []int
	for i, q := range qs {
		resp, body, err := get(client, base+q.Path(), nil)
		if err != nil {
			return 0, err
		}
		if resp.StatusCode != 200 {
			return 0, fmt.Errorf("GET %s: status %d: %.200s", q.Path(), resp.StatusCode, body)
		}
		var env struct {
			Total   *int              `json:"total"`
			Results []json.RawMessage `json:"results"`
		}
		if err := json.Unmarshal(body, &env); err != nil || env.Total == nil {
			return 0, fmt.Errorf("GET %s: not a search envelope: %v", q.Path(), err)
		}
		if *env.Total != totals[i] {
			return 0, fmt.Errorf("GET %s: total %d over HTTP, %d in process", q.Path(), *env.Total, totals[i])
		}
		sizes = append(sizes, len(body))
	}
	sort.Ints(sizes)
	return sizes[len(sizes)/2], nil
}

// mixPaths are the request targets of the mix, for the wrk script.
func mixPaths(qs []mix.Query) []string {
	paths := make([]string, len(qs))
	for i, q := range qs {
		paths[i] = q.Path()
	}
	return paths
}

// wrkTarget is one server under wrk: its URL, where its figures go, its
// process (for CPU time) and, for ours, the admin address to profile.
type wrkTarget struct {
	url   string
	w     *Wrk
	pid   int
	admin string
}

// round runs wrk once against t and adds the round to its figures. In
// the last round our server is profiled while it serves.
func (hb httpBench) round(h *HTTP, t wrkTarget, paths string, round int) error {
	cpu0 := cpuSeconds(t.pid)
	var prof chan error
	if t.admin != "" && round == hb.rounds-1 {
		prof = make(chan error, 1)
		go func() {
			var err error
			h.Profile, err = hb.sv.profile(t.admin, int(hb.load.dur.Seconds())-1, "server-cpu.prof")
			prof <- err
		}()
	}
	o, err := hb.load.cycle(t.url, paths)
	if err != nil {
		return err
	}
	if prof != nil {
		if err := <-prof; err != nil {
			return err
		}
	}
	t.w.add(o, hb.rounds)
	t.w.CPUUsPerReq += (cpuSeconds(t.pid) - cpu0) * 1e6 / float64(o.Requests) / float64(hb.rounds)
	hb.lg.logf("  wrk %s round %d: %.0f req/s, p50 %d us, p99 %d us, errors %d", t.url, round+1,
		float64(o.Requests)/(float64(o.DurationUs)/1e6), o.P50, o.P99, o.Connect+o.Read+o.Write+o.Status+o.Timeout)
	return nil
}

// peer starts cmd/peerhttp with one peer on the base data and loads it
// with the same wrk mix as h for one round.
func (hb httpBench) peer(h *HTTP, name, data string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	t0 := time.Now()
	dir := hb.sv.dir
	srv, err := hb.sv.procs.start(dir.bin("peerhttp"), "-engine", name, "-data", data, "-addr", addr, "-dir", freshDir(filepath.Join(dir.work, "peers"), "http-"+name))
	if err != nil {
		return err
	}
	defer srv.stop()
	if _, err := waitFirst(srv, "http://"+addr+"/api/stations?q=radio&limit=20", t0, 5*time.Minute); err != nil {
		return fmt.Errorf("peerhttp %s: %w\n%s", name, err, lastLines(srv.out.String(), 20))
	}
	p := PeerHTTP{Name: name, LoadSec: time.Since(t0).Seconds()}
	cpu0 := cpuSeconds(srv.cmd.Process.Pid)
	o, err := hb.load.cycle("http://"+addr, filepath.Join(dir.raw, "paths.txt"))
	if err != nil {
		return err
	}
	p.Wrk.add(o, 1)
	p.Wrk.CPUUsPerReq = (cpuSeconds(srv.cmd.Process.Pid) - cpu0) * 1e6 / float64(o.Requests)
	if p.Wrk.Errors > 0 {
		// The peer's own output says why (a crashed peer shows up in wrk
		// only as write errors).
		return fmt.Errorf("wrk saw %d errors against the %s peer; its output:\n%s", p.Wrk.Errors, name, lastLines(srv.out.String(), 20))
	}
	p.VsCeil = p.Wrk.RPS / h.Ceiling.RPS
	p.OursOver = h.Ours.RPS / p.Wrk.RPS
	hb.lg.logf("  wrk %s peer: %.0f req/s, p50 %.0f us, p99 %.0f us", name, p.Wrk.RPS, p.Wrk.P50Us, p.Wrk.P99Us)
	h.Peers = append(h.Peers, p)
	return nil
}

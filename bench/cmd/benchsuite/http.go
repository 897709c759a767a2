package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"stationdex/bench/internal/mix"
)

// get asks for url with the given request headers and reads the whole
// body.
func get(client *http.Client, url string, header http.Header) (*http.Response, []byte, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return nil, nil, err
	}
	maps.Copy(req.Header, header)
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

// freeAddr is a free loopback address, for a listener of a child.
func freeAddr() (string, error) {
	port, err := freePort()
	return fmt.Sprintf("127.0.0.1:%d", port), err
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
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

// wrk loads base for the configured duration, cycling through paths.
func (s *suite) wrk(base, paths string) (wrkOut, error) {
	return s.wrkRun(base, s.cfg.wrkDur, "wrk-mix.lua", nil, []string{paths})
}

// wrkRun runs wrk against base for dur with a script of scripts/, extra
// wrk flags (headers) and the script's arguments.
func (s *suite) wrkRun(base string, dur time.Duration, script string, flags, scriptArgs []string) (wrkOut, error) {
	args := []string{"-t", strconv.Itoa(s.cfg.threads), "-c", strconv.Itoa(s.cfg.conns), "-d", fmt.Sprintf("%.0fs", dur.Seconds()),
		"--timeout", "5s", "-s", filepath.Join(s.benchDir, "scripts", script)}
	args = append(append(args, flags...), base, "--")
	args = append(args, scriptArgs...)
	cmd := exec.Command("wrk", args...)
	out, err := cmd.CombinedOutput()
	s.logRaw("$ wrk " + strings.Join(args, " ") + "\n" + string(out))
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

// httpStage compares our server with the ceiling under the same wrk load,
// alternating ceiling and ours for the configured number of rounds.
func (s *suite) httpStage(idx string, qs []mix.Query, totals []int) (*HTTP, error) {
	admin, err := freeAddr()
	if err != nil {
		return nil, err
	}
	ours, _, err := s.startOurs(idx, "-admin-addr", admin)
	if err != nil {
		return nil, err
	}
	defer ours.stop()
	base := "http://" + ours.addr
	body, err := verifyHTTP(base, qs, totals)
	if err != nil {
		return nil, err
	}
	ceil, ceilURL, err := s.startCeiling(body)
	if err != nil {
		return nil, err
	}
	defer ceil.stop()
	paths, err := s.writePaths(qs)
	if err != nil {
		return nil, err
	}
	h := &HTTP{Tool: wrkVersion(), Threads: s.cfg.threads, Conns: s.cfg.conns, DurationSec: s.cfg.wrkDur.Seconds(), Rounds: s.cfg.rounds, BodyBytes: body, Checked: len(qs)}
	targets := []wrkTarget{{ceilURL, &h.Ceiling, ceil.cmd.Process.Pid, ""}, {base, &h.Ours, ours.cmd.Process.Pid, admin}}
	for r := 0; r < s.cfg.rounds; r++ {
		for _, t := range targets {
			if err := s.wrkRound(h, t, paths, r); err != nil {
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

// startCeiling starts the do-nothing server answering a fixed body of size
// bytes, and returns its base URL once it answers.
func (s *suite) startCeiling(size int) (*server, string, error) {
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	ceil, err := s.startServer(s.bin("ceiling"), "-addr", strings.TrimPrefix(url, "http://"), "-size", strconv.Itoa(size))
	if err != nil {
		return nil, "", err
	}
	if _, err := waitFirst(ceil, url+"/", time.Now(), 10*time.Second); err != nil {
		ceil.stop()
		return nil, "", fmt.Errorf("ceiling: %w", err)
	}
	return ceil, url, nil
}

// writePaths writes the request targets of the mix, one a line, for the
// wrk script.
func (s *suite) writePaths(qs []mix.Query) (string, error) {
	paths := filepath.Join(s.raw, "paths.txt")
	var b strings.Builder
	for _, q := range qs {
		b.WriteString(q.Path() + "\n")
	}
	return paths, os.WriteFile(paths, []byte(b.String()), 0o644)
}

// wrkTarget is one server under wrk: its URL, where its figures go, its
// process (for CPU time) and, for ours, the admin address to profile.
type wrkTarget struct {
	url   string
	w     *Wrk
	pid   int
	admin string
}

// wrkRound runs wrk once against t and adds the round to its figures. In
// the last round our server is profiled while it serves.
func (s *suite) wrkRound(h *HTTP, t wrkTarget, paths string, round int) error {
	cpu0 := cpuSeconds(t.pid)
	var prof chan error
	if t.admin != "" && round == s.cfg.rounds-1 {
		prof = make(chan error, 1)
		go func() {
			var err error
			h.Profile, err = s.serverProfile(t.admin, int(s.cfg.wrkDur.Seconds())-1, "server-cpu.prof")
			prof <- err
		}()
	}
	o, err := s.wrk(t.url, paths)
	if err != nil {
		return err
	}
	if prof != nil {
		if err := <-prof; err != nil {
			return err
		}
	}
	t.w.add(o, s.cfg.rounds)
	t.w.CPUUsPerReq += (cpuSeconds(t.pid) - cpu0) * 1e6 / float64(o.Requests) / float64(s.cfg.rounds)
	s.logf("  wrk %s round %d: %.0f req/s, p50 %d us, p99 %d us, errors %d", t.url, round+1,
		float64(o.Requests)/(float64(o.DurationUs)/1e6), o.P50, o.P99, o.Connect+o.Read+o.Write+o.Status+o.Timeout)
	return nil
}

func wrkVersion() string {
	out, _ := exec.Command("wrk", "-v").CombinedOutput()
	first := strings.SplitN(string(out), "\n", 2)[0]
	if f := strings.Fields(first); len(f) >= 2 {
		return "wrk " + f[1]
	}
	return "wrk"
}

// serverProfile takes a CPU profile of our server through its admin
// listener for secs seconds (at least one) while wrk loads it, keeps it in
// raw/file and returns the top of `go tool pprof -top -cum`.
func (s *suite) serverProfile(admin string, secs int, file string) (string, error) {
	secs = max(1, secs)
	client := &http.Client{Timeout: time.Duration(secs+30) * time.Second}
	resp, err := client.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", admin, secs))
	if err != nil {
		return "", fmt.Errorf("server profile: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		return "", fmt.Errorf("server profile: status %d, %v", resp.StatusCode, err)
	}
	path := filepath.Join(s.raw, file)
	if err := os.WriteFile(path, body, 0o644); err != nil {
		return "", err
	}
	out, err := exec.Command("go", "tool", "pprof", "-top", "-cum", "-nodecount=35", s.bin("stationdex"), path).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go tool pprof: %w\n%s", err, out)
	}
	return string(out), nil
}

// cpuSeconds is the user+system CPU time a process has used so far.
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // USER_HZ is 100 on Linux
}

// httpPeer starts cmd/peerhttp with one peer on the base data and loads it
// with the same wrk mix for one round.
func (s *suite) httpPeer(name, data string) error {
	h := s.res.HTTP
	port, err := freePort()
	if err != nil {
		return err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	t0 := time.Now()
	srv, err := s.startServer(s.bin("peerhttp"), "-engine", name, "-data", data, "-addr", addr, "-dir", freshDir(filepath.Join(s.work, "peers"), "http-"+name))
	if err != nil {
		return err
	}
	defer srv.stop()
	if _, err := waitFirst(srv, "http://"+addr+"/api/stations?q=radio&limit=20", t0, 5*time.Minute); err != nil {
		return fmt.Errorf("peerhttp %s: %w\n%s", name, err, lastLines(srv.out.String(), 20))
	}
	p := PeerHTTP{Name: name, LoadSec: time.Since(t0).Seconds()}
	cpu0 := cpuSeconds(srv.cmd.Process.Pid)
	o, err := s.wrk("http://"+addr, filepath.Join(s.raw, "paths.txt"))
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
	s.logf("  wrk %s peer: %.0f req/s, p50 %.0f us, p99 %.0f us", name, p.Wrk.RPS, p.Wrk.P50Us, p.Wrk.P99Us)
	h.Peers = append(h.Peers, p)
	return nil
}

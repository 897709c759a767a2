package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"stationdex/bench/internal/engines"
	"stationdex/bench/internal/raw"
	"stationdex/bench/internal/traffic"
)

// RBAPICosts is what issue #27 asks of the Radio Browser API under
// /json/ (results.json keeps the key "upstream"): a mix of upstream-style
// requests against a static server of the same response size, the same
// questions asked of our own API, and the upstream statement in MariaDB.
type RBAPICosts struct {
	Label    string `json:"label"`
	Stations int    `json:"stations"`
	// Build is `stationdex index -compat` of the base set, once; Bytes its
	// file, beside the default build's.
	Build        Process `json:"compat_build"`
	Bytes        int64   `json:"compat_index_bytes"`
	DefaultBytes int64   `json:"default_index_bytes"`
	Kinds        string  `json:"requests_per_kind"`
	// Mix is the whole mix against its ceiling on a node as served by
	// default; Uncached the same mix, same rounds, on a node with the
	// response cache off, and UncachedX its throughput over the
	// ceiling's: wrk cycles the mix, so the default node answers most
	// requests from its cache after the first pass.
	Mix       HTTPMix `json:"mix"`
	Uncached  Wrk     `json:"mix_uncached"`
	UncachedX float64 `json:"mix_uncached_throughput_ratio"`
	// Pairs: the searches that /api can ask too, each sent as /json/ and
	// as /api on the node with the response cache off, rounds alternating.
	Pairs        int     `json:"pairs"`
	JSON         Wrk     `json:"json"`
	API          Wrk     `json:"api"`
	PairsX       float64 `json:"pairs_throughput_ratio"`
	PairsP99X    float64 `json:"pairs_p99_ratio"`
	PairsCommand string  `json:"pairs_wrk_command"`
	// JSONBodyBytes and APIBodyBytes are the pairs' median answers.
	JSONBodyBytes int         `json:"pairs_json_body_bytes"`
	APIBodyBytes  int         `json:"pairs_api_body_bytes"`
	Maria         *RBAPIMaria `json:"mariadb,omitempty"`
	// Probe is each kind's answers in the probe, one request at a time:
	// where the mix's time goes.
	Probe map[string]RBAPIProbe `json:"probe_by_kind"`
}

// RBAPIProbe is one kind of request as the probe saw it: the second
// of two requests, one at a time over loopback, the answer read whole,
// on the node with the response cache off (both are computed).
type RBAPIProbe struct {
	N           int     `json:"n"`
	MedianUs    float64 `json:"median_us"`
	P99Us       float64 `json:"p99_us"`
	MaxUs       float64 `json:"max_us"`
	MedianBytes int     `json:"median_bytes"`
	// Share is the kind's part of the probe's whole time.
	Share float64 `json:"time_share"`
}

// RBAPIMaria is a sample of the mix's searches answered by a node (one
// request at a time over loopback HTTP, the answer read whole) and by the
// upstream statement in MariaDB (through its client over loopback TCP,
// every row read): what a client waits for against what upstream's
// database alone takes.
type RBAPIMaria struct {
	Searches    int                  `json:"searches"`
	PerKind     int                  `json:"most_per_kind"`
	LoadSec     float64              `json:"load_s"`
	Ours        Summary              `json:"stationdex_http"`
	Maria       Summary              `json:"mariadb_statement"`
	RatioMedian float64              `json:"ratio_median"`
	RatioGeo    float64              `json:"ratio_geomean"`
	RowsAgree   string               `json:"rows_agree"`
	Kinds       map[string]RBAPIKind `json:"kinds"`
}

// RBAPIKind is one kind of search in the MariaDB comparison.
type RBAPIKind struct {
	N             int     `json:"n"`
	OursMedianUs  float64 `json:"stationdex_median_us"`
	MariaMedianUs float64 `json:"mariadb_median_us"`
}

// Goals of the upstream stage: the against the same-size static
// server; the suite's own for the other two (the issue names those
// comparisons without a number).
const (
	rbapiCeilingGoal = 0.7
	rbapiAPIGoal     = 0.7
	rbapiMariaGoal   = 100
)

// rbapiBench is the Radio Browser API stage on the base set: a -compat
// build of it, the mix of upstream-style requests against a ceiling, the
// same questions as /api, and MariaDB's upstream statement; it fills
// res.RBAPI.
type rbapiBench struct {
	b            *base
	sv           servers
	load         loadGen
	rounds       int
	distinct     int // requests in the mix
	mariaPerKind int // searches of each kind asked of MariaDB
	res          *Results
	lg           *logger
}

// run builds the base set with -compat, generates the mix and runs the
// three comparisons.
func (rb *rbapiBench) run(maria bool) error {
	b := rb.b
	u := &RBAPICosts{Label: b.data.Label, Stations: rb.res.Sizes[0].Stations, DefaultBytes: rb.res.Sizes[0].IndexBytes}
	rb.res.RBAPI = u
	idx, err := rb.buildCompat(b.data.Path, u)
	if err != nil {
		return err
	}
	all, err := raw.ReadAll(b.data.Path)
	if err != nil {
		return err
	}
	reqs, err := traffic.Upstream(all, trafficSeed, rb.distinct)
	if err != nil {
		return err
	}
	u.Kinds = rbapiKinds(reqs)
	admin, err := freeAddr()
	if err != nil {
		return err
	}
	ours, _, err := rb.sv.ours(idx, "-admin-addr", admin)
	if err != nil {
		return err
	}
	defer ours.stop()
	// the probe, the pairs and the MariaDB comparison time the work of
	// each request, not the response cache: a node without one
	uncached, _, err := rb.sv.ours(idx, "-cache-bytes", "0")
	if err != nil {
		return err
	}
	defer uncached.stop()
	probes, err := rb.probe("http://"+uncached.addr, reqs)
	if err != nil {
		return err
	}
	u.Probe = probeByKind(reqs, probes)
	if err := rb.mix(u, ours, uncached, admin, reqs, probes); err != nil {
		return err
	}
	if err := rb.pairs(u, uncached, reqs); err != nil {
		return fmt.Errorf("pairs: %w", err)
	}
	if !maria {
		rb.res.Notes = append(rb.res.Notes, "Upstream stage: the MariaDB comparison not run (not installed or -skip-mariadb).")
		return nil
	}
	return rb.maria(u, all, reqs, probes)
}

// buildCompat builds the base set with -compat into a file of its own:
// the other stages keep measuring the default build.
func (rb *rbapiBench) buildCompat(data string, u *RBAPICosts) (string, error) {
	idx := filepath.Join(rb.sv.dir.work, "index", u.Label+"-compat.db")
	os.Remove(idx)
	p, err := rb.sv.procs.run(rb.sv.dir.bin("stationdex"), "index", "-compat", "-o", idx, data)
	if err != nil {
		return "", err
	}
	u.Build = p
	fi, err := os.Stat(idx)
	if err != nil {
		return "", err
	}
	u.Bytes = fi.Size()
	rb.lg.logf("   %s -compat: built in %.2f s, %.1f MB (default build %.1f MB)", u.Label, p.WallSec, mb(u.Bytes), mb(u.DefaultBytes))
	return idx, nil
}

func rbapiKinds(reqs []traffic.UpRequest) string {
	n := map[string]int{}
	for _, r := range reqs {
		n[r.Kind]++
	}
	parts := make([]string, 0, len(traffic.UpKinds))
	for _, k := range traffic.UpKinds {
		parts = append(parts, fmt.Sprintf("%s %d", k.Name, n[k.Name]))
	}
	return strings.Join(parts, ", ")
}

// rbapiAnswer is what one request of the mix answered.
type rbapiAnswer struct {
	bytes int
	rows  int     // stations or values in the answer; -1 for an object
	us    float64 // the second of two requests, one at a time
}

// probe asks for every request twice, one at a time: each must
// answer 200 with JSON (an array, or the object of url/{uuid}); the
// second answer's time is kept (the first may build an order's
// permutation, which a node does once per snapshot).
func (rb *rbapiBench) probe(base string, reqs []traffic.UpRequest) ([]rbapiAnswer, error) {
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableCompression: true}}
	out := make([]rbapiAnswer, len(reqs))
	for pass := range 2 {
		for i, r := range reqs {
			t0 := time.Now()
			resp, body, err := get(client, base+r.Path, nil)
			if err != nil {
				return nil, err
			}
			us := float64(time.Since(t0).Nanoseconds()) / 1e3
			if resp.StatusCode != 200 {
				return nil, fmt.Errorf("GET %s: status %d: %.200s", r.Path, resp.StatusCode, body)
			}
			p := rbapiAnswer{bytes: len(body), us: us, rows: -1}
			var arr []json.RawMessage
			if err := json.Unmarshal(body, &arr); err == nil {
				p.rows = len(arr)
			} else if !json.Valid(body) || r.Kind != "url" {
				return nil, fmt.Errorf("GET %s: not a JSON array: %.200s", r.Path, body)
			}
			if pass == 1 {
				out[i] = p
			}
		}
	}
	return out, nil
}

// probeByKind summarises the probe per kind of request.
func probeByKind(reqs []traffic.UpRequest, probes []rbapiAnswer) map[string]RBAPIProbe {
	times, sizes := map[string][]float64{}, map[string][]int{}
	total := 0.0
	for i, r := range reqs {
		times[r.Kind], sizes[r.Kind] = append(times[r.Kind], probes[i].us), append(sizes[r.Kind], probes[i].bytes)
		total += probes[i].us
	}
	out := map[string]RBAPIProbe{}
	for k, v := range times {
		sum := 0.0
		for _, x := range v {
			sum += x
		}
		sm := summarize(v)
		out[k] = RBAPIProbe{N: len(v), MedianUs: sm.MedianUs, P99Us: sm.P99Us, MaxUs: slices.Max(v), MedianBytes: medianOf(sizes[k]), Share: sum / total}
	}
	return out
}

// mix loads the node, the node without a response cache and a
// ceiling of the mix's median answer with the whole mix, cycled, rounds
// alternating.
func (rb *rbapiBench) mix(u *RBAPICosts, ours, uncached *server, admin string, reqs []traffic.UpRequest, probes []rbapiAnswer) error {
	sizes := make([]int, len(probes))
	for i, p := range probes {
		sizes[i] = p.bytes
	}
	m := &u.Mix
	*m = HTTPMix{Name: "upstream", Distinct: len(reqs), Sequence: len(reqs), Checked: len(reqs), Rounds: rb.rounds,
		BodyBytes: medianOf(sizes), Encodings: "identity", DurationSec: rb.load.dur.Seconds(),
		What: fmt.Sprintf("%d distinct upstream-style requests generated from the base set (%s), cycled, each wrk thread "+
			"from its own point; every one answered 200 with JSON twice before the load", len(reqs), u.Kinds)}
	paths, _ := traffic.UpPaths(reqs, false)
	file, err := rb.sv.dir.writeLines("paths-upstream.txt", paths)
	if err != nil {
		return err
	}
	ceil, ceilURL, err := rb.sv.ceiling(m.BodyBytes)
	if err != nil {
		return err
	}
	defer ceil.stop()
	for r := 0; r < m.Rounds; r++ {
		if _, err := rb.load.round(m, ceilURL, &m.Ceiling, ceil.cmd.Process.Pid, "wrk-mix.lua", file); err != nil {
			return err
		}
		if err := rb.round(m, ours, admin, r == m.Rounds-1, file); err != nil {
			return err
		}
		if _, err := rb.load.round(m, "http://"+uncached.addr, &u.Uncached, uncached.cmd.Process.Pid, "wrk-mix.lua", file); err != nil {
			return err
		}
	}
	if m.Ours.Errors > 0 || m.Ceiling.Errors > 0 || u.Uncached.Errors > 0 {
		return fmt.Errorf("wrk saw errors: stationdex %d, without cache %d, ceiling %d (non-2xx, timeouts or socket errors)",
			m.Ours.Errors, u.Uncached.Errors, m.Ceiling.Errors)
	}
	m.ThroughputX, m.P50X, m.P99X = m.Ours.RPS/m.Ceiling.RPS, m.Ours.P50Us/m.Ceiling.P50Us, m.Ours.P99Us/m.Ceiling.P99Us
	u.UncachedX = u.Uncached.RPS / m.Ceiling.RPS
	rb.lg.logf("   upstream mix: throughput %.2fx of the ceiling, p99 %.2fx; body %d bytes", m.ThroughputX, m.P99X, m.BodyBytes)
	return nil
}

// round is one round of the mix on the node, profiled through
// its admin listener when last.
func (rb *rbapiBench) round(m *HTTPMix, ours *server, admin string, last bool, file string) error {
	var prof chan error
	if last {
		prof = make(chan error, 1)
		go func() {
			var err error
			m.Profile, err = rb.sv.profile(admin, int(m.DurationSec)-1, "server-cpu-upstream.prof")
			prof <- err
		}()
	}
	_, err := rb.load.round(m, "http://"+ours.addr, &m.Ours, ours.cmd.Process.Pid, "wrk-mix.lua", file)
	if prof != nil {
		if perr := <-prof; err == nil {
			err = perr
		}
	}
	return err
}

// pairs sends the searches /api can ask too, as /json/ and as
// /api, to the node with the response cache off (both would be served
// from it), rounds alternating.
func (rb *rbapiBench) pairs(u *RBAPICosts, node *server, reqs []traffic.UpRequest) error {
	jsonPaths, apiPaths := traffic.UpPaths(reqs, true)
	u.Pairs = len(jsonPaths)
	base := "http://" + node.addr
	var err error
	if u.JSONBodyBytes, err = probeSizes(base, jsonPaths); err != nil {
		return err
	}
	if u.APIBodyBytes, err = probeSizes(base, apiPaths); err != nil {
		return err
	}
	jf, err := rb.sv.dir.writeLines("paths-upstream-pairs-json.txt", jsonPaths)
	if err != nil {
		return err
	}
	af, err := rb.sv.dir.writeLines("paths-upstream-pairs-api.txt", apiPaths)
	if err != nil {
		return err
	}
	m := &HTTPMix{Name: "upstream pairs", Rounds: rb.rounds, DurationSec: rb.load.dur.Seconds()}
	pid := node.cmd.Process.Pid
	for r := 0; r < m.Rounds; r++ {
		o, err := rb.load.round(m, base, &u.JSON, pid, "wrk-mix.lua", jf)
		if err != nil {
			return err
		}
		u.PairsCommand = o.Command
		if _, err := rb.load.round(m, base, &u.API, pid, "wrk-mix.lua", af); err != nil {
			return err
		}
	}
	if u.JSON.Errors > 0 || u.API.Errors > 0 {
		return fmt.Errorf("wrk saw errors: /json/ %d, /api %d", u.JSON.Errors, u.API.Errors)
	}
	u.PairsX, u.PairsP99X = u.JSON.RPS/u.API.RPS, u.JSON.P99Us/u.API.P99Us
	rb.lg.logf("   upstream pairs: /json/ %.0f req/s, /api %.0f req/s (%.2fx); p99 %.2fx", u.JSON.RPS, u.API.RPS, u.PairsX, u.PairsP99X)
	return nil
}

// probeSizes asks for every path once, wanting 200, and returns the
// median body size.
func probeSizes(base string, paths []string) (int, error) {
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableCompression: true}}
	sizes := make([]int, len(paths))
	for i, p := range paths {
		resp, body, err := get(client, base+p, nil)
		if err != nil {
			return 0, err
		}
		if resp.StatusCode != 200 {
			return 0, fmt.Errorf("GET %s: status %d: %.200s", p, resp.StatusCode, body)
		}
		sizes[i] = len(body)
	}
	return medianOf(sizes), nil
}

// maria loads MariaDB with the base set's raw stations and runs
// the upstream statement of a sample of the mix's searches (a few per
// kind, once each, as the engine-level MariaDB peer does), beside the
// node's time for the same request in the probe.
func (rb *rbapiBench) maria(u *RBAPICosts, all []raw.Station, reqs []traffic.UpRequest, probes []rbapiAnswer) error {
	t0 := time.Now()
	db, err := engines.StartMariaDB(context.Background(), all, rb.lg.logf)
	if err != nil {
		return err
	}
	closed := false
	rb.sv.procs.onCleanup(func() {
		if !closed {
			db.Close()
		}
	})
	defer func() { closed = true; db.Close() }()
	c := &RBAPIMaria{LoadSec: time.Since(t0).Seconds(), PerKind: rb.mariaPerKind, Kinds: map[string]RBAPIKind{}}
	var ours, theirs, ratios []float64
	oursOf, theirsOf := map[string][]float64{}, map[string][]float64{}
	agree := 0
	for i, r := range reqs {
		if r.Search == nil || len(oursOf[r.Kind]) >= c.PerKind {
			continue
		}
		t1 := time.Now()
		rows, err := db.UpstreamSearch(*r.Search)
		if err != nil {
			return err
		}
		us := float64(time.Since(t1).Nanoseconds()) / 1e3
		ours, theirs, ratios = append(ours, probes[i].us), append(theirs, us), append(ratios, us/probes[i].us)
		oursOf[r.Kind], theirsOf[r.Kind] = append(oursOf[r.Kind], probes[i].us), append(theirsOf[r.Kind], us)
		if rows == probes[i].rows {
			agree++
		}
	}
	for k, o := range oursOf {
		c.Kinds[k] = RBAPIKind{N: len(o), OursMedianUs: median(o), MariaMedianUs: median(theirsOf[k])}
	}
	c.Searches, c.Ours, c.Maria = len(ours), summarize(ours), summarize(theirs)
	c.RatioMedian, c.RatioGeo = c.Maria.MedianUs/c.Ours.MedianUs, geomean(ratios)
	c.RowsAgree = fmt.Sprintf("%d/%d", agree, len(ours))
	u.Maria = c
	rb.lg.logf("   upstream vs mariadb: %d searches, node median %.0f us over HTTP, statement median %.0f us: %.0fx; rows agree %s",
		c.Searches, c.Ours.MedianUs, c.Maria.MedianUs, c.RatioMedian, c.RowsAgree)
	return nil
}

// rbapiTargets are the goals of the Radio Browser API stage.
func rbapiTargets(u *RBAPICosts) []Target {
	if u == nil {
		return nil
	}
	var ts []Target
	if m := u.Mix; m.Ceiling.RPS > 0 {
		t := atLeast("HTTP upstream mix (/json/) throughput vs same-size ceiling", fmt.Sprintf(">= %gx", rbapiCeilingGoal), "x", m.ThroughputX, rbapiCeilingGoal)
		t.Measured += fmt.Sprintf(" (%.0f vs %.0f req/s)", m.Ours.RPS, m.Ceiling.RPS)
		ts = append(ts, t)
	}
	if u.API.RPS > 0 {
		t := atLeast(fmt.Sprintf("HTTP /json/ searches vs the same %d searches on /api, throughput (cache off)", u.Pairs),
			fmt.Sprintf(">= %gx", rbapiAPIGoal), "x", u.PairsX, rbapiAPIGoal)
		t.Measured += fmt.Sprintf(" (%.0f vs %.0f req/s)", u.JSON.RPS, u.API.RPS)
		ts = append(ts, t)
	}
	if c := u.Maria; c != nil && c.Ours.MedianUs > 0 {
		ts = append(ts, atLeast(fmt.Sprintf("upstream searches: node over HTTP faster than the upstream statement in mariadb (ratio of medians, same %d searches)", c.Searches),
			fmt.Sprintf(">= %dx", rbapiMariaGoal), "x", c.RatioMedian, rbapiMariaGoal))
	}
	return ts
}

// rbapiSection: the Radio Browser API under load (issue #27).
func rbapiSection(w *strings.Builder, u *RBAPICosts) {
	if u == nil || u.Mix.Ceiling.RPS == 0 {
		return
	}
	fmt.Fprintf(w, "\n## The Radio Browser compatible API under /json/ at %s (%d stations; issue #27)\n\n", u.Label, u.Stations)
	fmt.Fprintf(w, "The base set built with `stationdex index -compat` (once, %.2f s wall, %.1f MB against %.1f MB for the default build, "+
		"which the other stages measure). The mix (`internal/traffic/upstream.go`, seed %d): %s.\n\n", u.Build.WallSec, mb(u.Bytes), mb(u.DefaultBytes), trafficSeed, u.Mix.What)
	m := u.Mix
	fmt.Fprintf(w, "**Against a same-size static server.** A `stationdex serve` as run by default, the ceiling answering a fixed %d-byte "+
		"body (the median answer of the mix), %d round(s) of %.0f s alternating, wrk cycling through the mix. Goal (the issue's): >= %gx. "+
		"An answer of up to a thousand stations is cached as /api's are, and wrk asks each request of the mix again and again, so the "+
		"default node answers most from its cache; the same mix on a node with `-cache-bytes 0`, in the same rounds, shows the "+
		"work of each request.\n\n",
		m.BodyBytes, m.Rounds, m.DurationSec, rbapiCeilingGoal)
	w.WriteString("| system | requests/s | p50 us | p99 us | server CPU us/request | errors |\n|---|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(w, "| ceiling | %.0f | %.0f | %.0f | %.0f | %d |\n", m.Ceiling.RPS, m.Ceiling.P50Us, m.Ceiling.P99Us, m.Ceiling.CPUUsPerReq, m.Ceiling.Errors)
	fmt.Fprintf(w, "| stationdex /json/ | %.0f | %.0f | %.0f | %.0f | %d |\n", m.Ours.RPS, m.Ours.P50Us, m.Ours.P99Us, m.Ours.CPUUsPerReq, m.Ours.Errors)
	fmt.Fprintf(w, "| stationdex /json/, response cache off | %.0f | %.0f | %.0f | %.0f | %d |\n", u.Uncached.RPS, u.Uncached.P50Us, u.Uncached.P99Us, u.Uncached.CPUUsPerReq, u.Uncached.Errors)
	fmt.Fprintf(w, "| **stationdex / ceiling** | **%.2fx** %s | %.2fx | %.2fx | | |\n", m.ThroughputX, verdict(m.ThroughputX >= rbapiCeilingGoal), m.P50X, m.P99X)
	fmt.Fprintf(w, "| stationdex without cache / ceiling | %.2fx | %.2fx | %.2fx | | |\n\n", u.UncachedX, u.Uncached.P50Us/m.Ceiling.P50Us, u.Uncached.P99Us/m.Ceiling.P99Us)
	fmt.Fprintf(w, "stationdex's wrk command (last round): `%s`.\n\n", m.Command)
	rbapiProbeTable(w, u.Probe)
	if m.Profile != "" {
		fmt.Fprintf(w, "CPU profile of the node during the mix's last round (admin listener's /debug/pprof; wrk shares the 2 cores; "+
			"by cumulative time):\n\n```\n%s```\n\n", m.Profile)
	}
	if u.API.RPS > 0 {
		fmt.Fprintf(w, "**Against our own API on the same searches.** The %d searches of the mix that /api can ask too (a name word as `q`, "+
			"`tagExact` as `genre`, `countrycode` as `country`, `languageExact` as `language`, `codec`; same offset and limit; not those "+
			"with `hidebroken`, an order or a page over 50), each as /json/ and as /api, on one node started with `-cache-bytes 0` "+
			"(the cache would answer both), %d round(s) of %.0f s alternating. "+
			"Upstream's name is a substring and /api's q a word prefix of name and place, so the totals differ; the question is the same. "+
			"Median answers: /json/ %d bytes (every field of the upstream object), /api %d bytes. Goal (this suite's; the issue names "+
			"the comparison without a number): >= %gx.\n\n",
			u.Pairs, u.Mix.Rounds, u.Mix.DurationSec, u.JSONBodyBytes, u.APIBodyBytes, rbapiAPIGoal)
		w.WriteString("| path | requests/s | p50 us | p99 us | server CPU us/request | errors |\n|---|---:|---:|---:|---:|---:|\n")
		fmt.Fprintf(w, "| /json/stations/search | %.0f | %.0f | %.0f | %.0f | %d |\n", u.JSON.RPS, u.JSON.P50Us, u.JSON.P99Us, u.JSON.CPUUsPerReq, u.JSON.Errors)
		fmt.Fprintf(w, "| /api/stations | %.0f | %.0f | %.0f | %.0f | %d |\n", u.API.RPS, u.API.P50Us, u.API.P99Us, u.API.CPUUsPerReq, u.API.Errors)
		fmt.Fprintf(w, "| **/json/ / /api** | **%.2fx** %s | %.2fx | %.2fx | %.2fx | |\n\n", u.PairsX, verdict(u.PairsX >= rbapiAPIGoal),
			u.JSON.P50Us/u.API.P50Us, u.PairsP99X, u.JSON.CPUUsPerReq/u.API.CPUUsPerReq)
		fmt.Fprintf(w, "The /json/ side's wrk command (last round): `%s`.\n\n", u.PairsCommand)
	}
	rbapiMariaSection(w, u.Maria)
}

func rbapiMariaSection(w *strings.Builder, c *RBAPIMaria) {
	if c == nil {
		return
	}
	fmt.Fprintf(w, "**Against the upstream statement in MariaDB.** %d searches of the mix (up to %d of each search kind, in mix order), each "+
		"timed once as the upstream statement (`engines.MariaDB.UpstreamSearch`: all columns, `Name LIKE '%%x%%'`, `UPPER(CountryCode)`, "+
		"the exact comma-list test for `tagExact` and `languageExact`, `LIKE` for `tag`, `LOWER(Codec)`, `LastCheckOK` for `hidebroken`, "+
		"`ORDER BY` the order's column with no tie-breaker, `LIMIT offset, limit`; mariadbd 10.11 defaults on loopback, loaded in %.1f s "+
		"from the raw records), against the node's time for the same request over loopback HTTP, one at a time, the answer read whole "+
		"(the second of two probes, on the node with the response cache off). The node's side includes HTTP and the JSON of every station; "+
		"MariaDB's is the statement alone, without upstream's HTTP server. Rows sent agree on %s (upstream matches tags and "+
		"languages case-sensitively and a substring across the comma list). Goal (this suite's): >= %dx.\n\n",
		c.Searches, c.PerKind, c.LoadSec, c.RowsAgree, rbapiMariaGoal)
	w.WriteString("| kind | searches | stationdex median us (HTTP) | mariadb median us (statement) | ratio |\n|---|---:|---:|---:|---:|\n")
	for _, k := range traffic.UpKinds {
		if x, ok := c.Kinds[k.Name]; ok {
			fmt.Fprintf(w, "| %s | %d | %.0f | %.0f | %.0fx |\n", k.Name, x.N, x.OursMedianUs, x.MariaMedianUs, x.MariaMedianUs/x.OursMedianUs)
		}
	}
	fmt.Fprintf(w, "| **all** | %d | %.0f (p99 %.0f) | %.0f (p99 %.0f) | **%.0fx** %s (geomean of per-search ratios %.0fx) |\n",
		c.Searches, c.Ours.MedianUs, c.Ours.P99Us, c.Maria.MedianUs, c.Maria.P99Us, c.RatioMedian, verdict(c.RatioMedian >= rbapiMariaGoal), c.RatioGeo)
}

// rbapiProbeTable: each kind's time in the probe, where the mix's
// throughput goes.
func rbapiProbeTable(w *strings.Builder, p map[string]RBAPIProbe) {
	if len(p) == 0 {
		return
	}
	w.WriteString("Where the time goes: each kind in the probe (every request of the mix twice before the load, one at a time over loopback, " +
		"the answer read whole; the second request's time):\n\n")
	w.WriteString("| kind | requests | median us | p99 us | max us | median bytes | share of the probe's time |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, k := range traffic.UpKinds {
		if x, ok := p[k.Name]; ok {
			fmt.Fprintf(w, "| %s | %d | %.0f | %.0f | %.0f | %d | %.1f%% |\n", k.Name, x.N, x.MedianUs, x.P99Us, x.MaxUs, x.MedianBytes, 100*x.Share)
		}
	}
	w.WriteString("\n")
}

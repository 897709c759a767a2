package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"stationdex/bench/internal/mix"
	"stationdex/bench/internal/traffic"
)

// HTTPMix is one generated load mix (issue #10) against stationdex and, in
// the same run, a ceiling answering a fixed body of the mix's median
// response size.
type HTTPMix struct {
	Name        string  `json:"name"`
	What        string  `json:"what"`
	Distinct    int     `json:"distinct_searches"`
	Sequence    int     `json:"requests_in_sequence"`
	Encoding    string  `json:"accept_encoding,omitempty"`
	BodyBytes   int     `json:"ceiling_body_bytes"`
	Checked     int     `json:"responses_checked"`
	Encodings   string  `json:"content_encodings_seen"`
	DurationSec float64 `json:"duration_s_per_round"`
	Rounds      int     `json:"rounds"`
	Ceiling     Wrk     `json:"ceiling"`
	Ours        Wrk     `json:"stationdex"`
	ThroughputX float64 `json:"throughput_ratio"`
	P50X        float64 `json:"p50_ratio"`
	P99X        float64 `json:"p99_ratio"`
	// Cold only: the distinct searches stationdex was sent (at most a
	// round's slice per round), requests per distinct search sent (1.0:
	// each once), and how often a thread's slice ran out.
	DistinctSent   int     `json:"distinct_searches_sent,omitempty"`
	SentPerSearch  float64 `json:"requests_per_distinct_search,omitempty"`
	CalibrationRPS float64 `json:"calibration_rps,omitempty"`
	Wraps          int64   `json:"slice_wraps,omitempty"`
	// ZeroShare (cold): the share of the distinct searches made to find
	// nothing (misspelt words, words with an excluding filter).
	ZeroShare float64 `json:"zero_result_share,omitempty"`
	// Command is the wrk command of the mix's last stationdex round;
	// Profile is the top of a CPU profile of the node taken during it, and
	// Parts that profile split by what the time went to (see cpuparts.go).
	Command string    `json:"wrk_command,omitempty"`
	Profile string    `json:"server_cpu_profile_top,omitempty"`
	Parts   []CPUPart `json:"server_cpu_parts,omitempty"`
	// NodeP99Us is the upper bound of the node's own histogram bucket
	// that holds the 99th percentile of the last round (nodelatency.go).
	NodeP99Us float64 `json:"node_p99_at_most_us,omitempty"`
}

const (
	trafficSeed = 20250227
	hotZipfS    = 1.1
)

// mixBench is the generated HTTP mixes on the base set (cold, crawl,
// hot, hot with gzip, then the floor), each against a ceiling of its own
// body size, on one node started for them; it fills res.Mixes and
// res.Floor.
type mixBench struct {
	b      *base
	sv     servers
	load   loadGen
	res    *Results
	lg     *logger
	rounds int
	// Cold searches per round (each sent about once) and cold probes
	// (checked and sized, never loaded); hot distinct searches and the
	// length of the hot request sequence.
	coldPerRound, coldProbes int
	hotDistinct, hotRequests int
	// calibrateRounds sizes the rounds of the mixes sent once (cold,
	// crawl, search page cold) by a calibration run; else each round
	// takes the configured duration.
	calibrateRounds bool
}

// run probes the crawl on a node of its own, then loads one freshly
// started node with the cold mix and its search pages, the crawl, the
// hot mix and its search pages, the hot mix with gzip and the floor, in
// that order (nothing is cached before the cold mix; a page's key is not
// its search's, so the search page mixes meet a cache without them).
func (mb *mixBench) run(src *traffic.Source) error {
	crawl, err := mb.crawlPages()
	if err != nil {
		return fmt.Errorf("crawl mix: %w", err)
	}
	admin, err := freeAddr()
	if err != nil {
		return err
	}
	ours, _, err := mb.sv.ours(mb.b.idx, "-admin-addr", admin)
	if err != nil {
		return err
	}
	defer ours.stop()
	cold, err := mb.cold(ours, admin, src)
	if err != nil {
		return fmt.Errorf("cold mix: %w", err)
	}
	if err := mb.searchPageCold(ours, admin, cold); err != nil {
		return fmt.Errorf("search page cold mix: %w", err)
	}
	if err := mb.crawl(ours, admin, crawl); err != nil {
		return fmt.Errorf("crawl mix: %w", err)
	}
	hot, err := traffic.NewHot(src, trafficSeed, mb.hotDistinct, mb.hotRequests, hotZipfS)
	if err != nil {
		return err
	}
	if err := mb.hot(ours, admin, hot, ""); err != nil {
		return fmt.Errorf("hot mix: %w", err)
	}
	if err := mb.searchPageHot(ours, admin, hot); err != nil {
		return fmt.Errorf("search page hot mix: %w", err)
	}
	if err := mb.hot(ours, admin, hot, "gzip"); err != nil {
		return fmt.Errorf("hot mix %q: %w", "gzip", err)
	}
	if err := mb.floor(ours, admin); err != nil {
		return fmt.Errorf("floor: %w", err)
	}
	return nil
}

// floorPath is the smallest answer the node has: a static file held in
// memory, with no index read, search or page behind it.
const floorPath = "/robots.txt"

// floor loads floorPath alone against a ceiling of its size: what the
// node's handling of a request costs by itself (routing, limits, headers,
// deadlines, metrics), which bounds the ratio any mix of small answers
// can reach. It has no target; the report shows it beside the mixes.
func (mb *mixBench) floor(ours *server, admin string) error {
	base := "http://" + ours.addr
	size, err := bodySize(base + floorPath)
	if err != nil {
		return err
	}
	m := &HTTPMix{Name: "floor", Distinct: 1, Sequence: 1, Checked: 1, BodyBytes: size, Encodings: "identity",
		Rounds: mb.rounds, DurationSec: mb.load.dur.Seconds(),
		What: "one static file (" + floorPath + ", " + strconv.Itoa(size) + " bytes, from memory) requested over and over: the node's per-request cost alone, no target"}
	paths, err := mb.sv.dir.writeLines("paths-floor.txt", []string{floorPath})
	if err != nil {
		return err
	}
	if err := mb.alternate(m, ours, admin, paths); err != nil {
		return err
	}
	if err := mb.ratios(m); err != nil {
		return err
	}
	mb.res.Floor = m
	return nil
}

// bodySize fetches url, which must answer 200, and returns its length.
func bodySize(url string) (int, error) {
	resp, body, err := get(&http.Client{Timeout: 10 * time.Second}, url, nil)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s: status %d", url, resp.StatusCode)
	}
	return len(body), nil
}

// coldSearches are the cold mix's searches: probes (checked and sized,
// never loaded), calibration and load.
type coldSearches struct {
	probes, calibration, load []mix.Query
}

// cold draws the cold searches (each of a zero-result kind checked to
// find nothing in process), checks and sizes the probes (same
// distribution, never part of the load), then loads each round with its
// own slice of never-sent searches. It returns the searches, which the
// search page cold mix asks of the page.
func (mb *mixBench) cold(ours *server, admin string, src *traffic.Source) (*coldSearches, error) {
	zero := func(q mix.Query) bool {
		n, _, err := mb.b.e.Search(q, false)
		return err == nil && n == 0
	}
	calib := mb.coldPerRound / 4
	all, err := traffic.Cold(src, trafficSeed, mb.coldProbes+calib+mb.rounds*mb.coldPerRound, zero)
	if err != nil {
		return nil, err
	}
	cold := &coldSearches{probes: all[:mb.coldProbes], calibration: all[mb.coldProbes : mb.coldProbes+calib], load: all[mb.coldProbes+calib:]}
	sizes, encs, err := mb.probe("http://"+ours.addr, cold.probes, "")
	if err != nil {
		return nil, err
	}
	load := cold.load
	m := &HTTPMix{Name: "cold", Distinct: len(load), Sequence: len(load), Checked: len(cold.probes), Rounds: mb.rounds,
		BodyBytes: medianOf(sizes), Encodings: encs, ZeroShare: zeroShare(load),
		What: fmt.Sprintf("%d distinct searches generated from the snapshot's words, prefixes, filters and offsets, %.1f%% of them "+
			"made to find nothing (a name word misspelt by one or two edits, or a name word with a country or language none of its "+
			"stations has; each checked to find nothing in process), a separate slice per round, each thread walking its part of "+
			"the slice in order", len(load), 100*zeroShare(load))}
	return cold, mb.slicedLoad(m, ours, admin, traffic.Paths(cold.calibration), traffic.Paths(load))
}

// zeroShare is the share of qs of a zero-result kind.
func zeroShare(qs []mix.Query) float64 {
	n := 0
	for _, q := range qs {
		if traffic.IsZero(q.Class) {
			n++
		}
	}
	return float64(n) / float64(max(len(qs), 1))
}

// slicedLoad loads ours and the mix's ceiling with paths each sent once:
// a separate slice of load per round. With calibrateRounds (not in the
// smoke run, whose rounds are a second and whose slices may run out) the
// round's duration is sized so that stationdex does not run out: its rate on the calibration paths
// (same generator, never loaded again), 80% of what that rate would take,
// whole seconds (wrk's unit), at most twice the configured duration. With
// admin set, the node is profiled during its last round.
func (mb *mixBench) slicedLoad(m *HTTPMix, ours *server, admin string, calibration, load []string) error {
	base := "http://" + ours.addr
	perRound := len(load) / m.Rounds
	m.DurationSec = mb.load.dur.Seconds()
	if mb.calibrateRounds {
		var err error
		if m.CalibrationRPS, err = mb.calibrate(m.Name, base, calibration); err != nil {
			return err
		}
		dur := time.Duration(float64(perRound) / m.CalibrationRPS * 0.8 * float64(time.Second)).Truncate(time.Second)
		// Up to twice the configured duration: on a slow machine the run still
		// sends the 30,000 distinct searches the issue asks for.
		m.DurationSec = min(max(dur, time.Second), 2*mb.load.dur).Seconds()
		mb.lg.logf("  %s calibration: %.0f req/s on %d other paths: %.0f s per round for %d paths", m.Name, m.CalibrationRPS, len(calibration), m.DurationSec, perRound)
	}
	ceil, ceilURL, err := mb.sv.ceiling(m.BodyBytes)
	if err != nil {
		return err
	}
	defer ceil.stop()
	var sent int64
	for r := 0; r < m.Rounds; r++ {
		paths, err := mb.sv.dir.writeLines(fmt.Sprintf("paths-%s-%d.txt", slug(m.Name), r+1), load[r*perRound:(r+1)*perRound])
		if err != nil {
			return err
		}
		if _, err := mb.load.round(m, ceilURL, &m.Ceiling, ceil.cmd.Process.Pid, "wrk-slice.lua", paths, strconv.Itoa(mb.load.threads)); err != nil {
			return err
		}
		o, err := mb.profiledRound(m, ours, admin, r == m.Rounds-1, "wrk-slice.lua", paths, strconv.Itoa(mb.load.threads))
		if err != nil {
			return err
		}
		sent += o.Requests
		m.Wraps += o.Wraps
		m.DistinctSent += min(int(o.Requests), perRound)
	}
	m.SentPerSearch = float64(sent) / float64(max(m.DistinctSent, 1))
	return mb.finish(m)
}

// calibrate is stationdex's rate on the second half of the calibration
// paths, for a second, after a second on the first half: the first second
// of a mix on a fresh node is slower (the crawl's by a third), and sizing
// the rounds by it would let the slices run out.
func (mb *mixBench) calibrate(name, base string, calibration []string) (float64, error) {
	half := len(calibration) / 2
	var rps float64
	for i, part := range [][]string{calibration[:half], calibration[half:]} {
		path, err := mb.sv.dir.writeLines(fmt.Sprintf("paths-%s-calibration-%d.txt", slug(name), i+1), part)
		if err != nil {
			return 0, err
		}
		o, err := mb.load.run(base, time.Second, "wrk-slice.lua", nil, []string{path, strconv.Itoa(mb.load.threads)})
		if err != nil {
			return 0, err
		}
		rps = float64(o.Requests) / (float64(o.DurationUs) / 1e6)
	}
	return rps, nil
}

// profiledRound is one stationdex round of a mix, profiled through the
// admin listener when asked: the profile's top and its parts go in m.
func (mb *mixBench) profiledRound(m *HTTPMix, ours *server, admin string, last bool, script, paths string, extra ...string) (wrkOut, error) {
	var prof chan error
	var before latencyCounts
	if admin != "" && last {
		var err error
		if before, err = scrapeLatency(admin); err != nil {
			return wrkOut{}, err
		}
		prof = make(chan error, 1)
		go func() {
			file := "server-cpu-" + slug(m.Name) + ".prof"
			var err error
			if m.Profile, err = mb.sv.profile(admin, int(m.DurationSec)-1, file); err == nil {
				m.Parts, err = readCPUParts(filepath.Join(mb.sv.dir.raw, file))
			}
			prof <- err
		}()
	}
	o, err := mb.load.round(m, "http://"+ours.addr, &m.Ours, ours.cmd.Process.Pid, script, paths, extra...)
	if prof != nil {
		if perr := <-prof; err == nil {
			err = perr
		}
		if err == nil {
			err = nodeP99(m, admin, before)
		}
	}
	return o, err
}

// hot checks every distinct search, sizes the ceiling by the median
// response over the request sequence (popular searches weigh more), and
// loads both with the sequence.
func (mb *mixBench) hot(ours *server, admin string, hot *traffic.Hot, enc string) error {
	base := "http://" + ours.addr
	sizes, encs, err := mb.probe(base, hot.Queries, enc)
	if err != nil {
		return err
	}
	weighted := make([]int, len(hot.Seq))
	for i, k := range hot.Seq {
		weighted[i] = sizes[k]
	}
	m := &HTTPMix{Name: "hot", Distinct: len(hot.Queries), Sequence: len(hot.Seq), Encoding: enc, Checked: len(hot.Queries),
		BodyBytes: medianOf(weighted), Encodings: encs, Rounds: mb.rounds, DurationSec: mb.load.dur.Seconds(),
		What: fmt.Sprintf("%d distinct searches requested under a Zipf law (s = %.1f), a sequence of %d requests cycled through; "+
			"the 10 most requested searches are %.1f%% of it", len(hot.Queries), hot.S, len(hot.Seq), 100*topShare(hot, 10))}
	if enc != "" {
		m.Name = "hot, Accept-Encoding: " + enc
	}
	paths, err := mb.sv.dir.writeLines("paths-hot.txt", hot.Paths())
	if err != nil {
		return err
	}
	if err := mb.alternate(m, ours, admin, paths); err != nil {
		return err
	}
	return mb.finish(m)
}

// nodeP99 sets m.NodeP99Us from the node's histogram, before being its
// counts at the start of the round.
func nodeP99(m *HTTPMix, admin string, before latencyCounts) error {
	after, err := scrapeLatency(admin)
	if err != nil {
		return err
	}
	if b, ok := after.since(before).boundOf(0.99); ok {
		m.NodeP99Us = b * 1e6
	}
	return nil
}

// alternate loads m's paths (wrk-mix.lua) on a ceiling of m's body size
// and on ours, round after round, profiling ours in the last round when
// admin is set.
func (mb *mixBench) alternate(m *HTTPMix, ours *server, admin, paths string) error {
	ceil, ceilURL, err := mb.sv.ceiling(m.BodyBytes)
	if err != nil {
		return err
	}
	defer ceil.stop()
	for r := 0; r < m.Rounds; r++ {
		if _, err := mb.load.round(m, ceilURL, &m.Ceiling, ceil.cmd.Process.Pid, "wrk-mix.lua", paths); err != nil {
			return err
		}
		if _, err := mb.profiledRound(m, ours, admin, r == m.Rounds-1, "wrk-mix.lua", paths); err != nil {
			return err
		}
	}
	return nil
}

func (mb *mixBench) finish(m *HTTPMix) error {
	if err := mb.ratios(m); err != nil {
		return err
	}
	mb.res.Mixes = append(mb.res.Mixes, *m)
	return nil
}

// ratios sets m's ratios to its ceiling, refusing a run with errors.
func (mb *mixBench) ratios(m *HTTPMix) error {
	if m.Ours.Errors > 0 || m.Ceiling.Errors > 0 {
		return fmt.Errorf("wrk saw errors: stationdex %d, ceiling %d (non-2xx, timeouts or socket errors)", m.Ours.Errors, m.Ceiling.Errors)
	}
	m.ThroughputX = m.Ours.RPS / m.Ceiling.RPS
	m.P50X = m.Ours.P50Us / m.Ceiling.P50Us
	m.P99X = m.Ours.P99Us / m.Ceiling.P99Us
	mb.lg.logf("   mix %s: throughput %.2fx of the ceiling, p99 %.2fx; body %d bytes; encodings %s", m.Name, m.ThroughputX, m.P99X, m.BodyBytes, m.Encodings)
	return nil
}

// probe requests every query once, as the load will (with Accept-Encoding
// when enc is set, the body counted as sent), checks status and total
// against the in-process engine, and returns the body sizes and a summary
// of the Content-Encoding answers.
func (mb *mixBench) probe(base string, qs []mix.Query, enc string) ([]int, string, error) {
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableCompression: true}}
	sizes := make([]int, len(qs))
	encs := map[string]int{}
	for i, q := range qs {
		want, _, err := mb.b.e.Search(q, false)
		if err != nil {
			return nil, "", err
		}
		header := http.Header{}
		if enc != "" {
			header.Set("Accept-Encoding", enc)
		}
		resp, body, err := get(client, base+q.Path(), header)
		if err != nil {
			return nil, "", err
		}
		if resp.StatusCode != 200 {
			return nil, "", fmt.Errorf("GET %s: status %d", q.Path(), resp.StatusCode)
		}
		ce := resp.Header.Get("Content-Encoding")
		encs[ce]++
		sizes[i] = len(body)
		if err := checkTotal(q, body, ce, want); err != nil {
			return nil, "", err
		}
	}
	return sizes, encodingSummary(encs), nil
}

// checkTotal compares the envelope's total with the engine's; a compressed
// body is checked only for being non-empty (the load generator does not
// decode it either).
func checkTotal(q mix.Query, body []byte, ce string, want int) error {
	if ce != "" && ce != "identity" {
		if len(body) == 0 {
			return fmt.Errorf("GET %s: empty %s body", q.Path(), ce)
		}
		return nil
	}
	var env struct {
		Total *int `json:"total"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Total == nil {
		return fmt.Errorf("GET %s: not a search envelope: %v", q.Path(), err)
	}
	if *env.Total != want {
		return fmt.Errorf("GET %s: total %d over HTTP, %d in process", q.Path(), *env.Total, want)
	}
	return nil
}

func encodingSummary(m map[string]int) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		name := k
		if k == "" {
			name = "identity"
		}
		parts = append(parts, fmt.Sprintf("%s %d", name, m[k]))
	}
	return strings.Join(parts, ", ")
}

func medianOf[T int | float64](v []T) T {
	if len(v) == 0 {
		return 0
	}
	s := append([]T(nil), v...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// topShare is the share of the sequence taken by its n most requested
// searches (ranks 0..n-1 by construction).
func topShare(h *traffic.Hot, n int) float64 {
	top := 0
	for _, k := range h.Seq {
		if k < n {
			top++
		}
	}
	return float64(top) / float64(max(len(h.Seq), 1))
}

package main

import (
	"math"
	"sort"
)

// Results is everything one run measured; results.json is this, indented.
type Results struct {
	Date      string         `json:"date"`
	Mode      string         `json:"mode"`
	Machine   Machine        `json:"machine"`
	Commit    string         `json:"commit"`
	Command   string         `json:"command,omitempty"` // the benchsuite invocation
	MixFile   string         `json:"mix_file"`
	MixCount  int            `json:"mix_queries"`
	Sizes     []Size         `json:"sizes"`
	Peers     []Peer         `json:"peers"`
	HTTP      *HTTP          `json:"http,omitempty"`
	Mixes     []HTTPMix      `json:"http_mixes,omitempty"`
	Floor     *HTTPMix       `json:"http_floor,omitempty"` // no target: see mixBench.floor
	Facets    *FacetCosts    `json:"discovery,omitempty"`  // the key older results use
	Distinct  *DistinctCosts `json:"distinct,omitempty"`
	RBAPI     *RBAPICosts    `json:"upstream,omitempty"` // the Radio Browser API stage
	Targets   []Target       `json:"targets"`
	Profile   string         `json:"cpu_profile_top,omitempty"`
	ProfileAt string         `json:"cpu_profile_at,omitempty"`
	// SearchPage is the search page's default search in process.
	SearchPage *SearchPageSearches `json:"search_page,omitempty"`
	// BuildProfile is the index build of the base set, in process.
	BuildProfile string   `json:"build_cpu_profile_top,omitempty"`
	Notes        []string `json:"notes"`
	Missing      []string `json:"missing,omitempty"`
	Elapsed      float64  `json:"elapsed_s"`
}

// Machine describes where the run happened.
type Machine struct {
	CPU       string `json:"cpu"`
	Cores     int    `json:"cores"`
	GoVersion string `json:"go"`
	Load1     string `json:"loadavg_at_start"`
}

// Size is what was measured for one data size.
type Size struct {
	Label     string  `json:"label"`
	Stations  int     `json:"stations"`
	DataFile  string  `json:"data_file"`
	DataBytes int64   `json:"data_bytes"`
	GenSec    float64 `json:"generate_s,omitempty"`
	// Build is the median build (by wall time) of BuildRuns.
	Build      Process   `json:"build"`
	BuildRuns  []float64 `json:"build_runs_s"`
	IndexBytes int64     `json:"index_bytes"`
	CheckSec   float64   `json:"check_s"` // `stationdex check FILE`, wall
	// OpenMs is query.Open plus the first search, in process.
	OpenMs float64 `json:"open_first_search_ms"`
	// WarmMs is query.Index.Warm, which the server runs in the background
	// after every open.
	WarmMs float64 `json:"warm_ms"`
	// FirstAnswerMs: from exec of `stationdex serve` to the first 200 of
	// a search, median of StartRuns.
	FirstAnswerMs float64   `json:"first_answer_ms"`
	StartRuns     []float64 `json:"first_answer_runs_ms"`
	StartRSSMB    float64   `json:"rss_after_first_answer_mb"`
	// The same with `serve -check-on-start` (the whole file decoded and
	// cross-checked before serving; the default verifies its checksums
	// only); 0 when the binary has no such flag.
	FirstAnswerFullCheckMs float64   `json:"first_answer_full_check_ms"`
	StartRunsFullCheck     []float64 `json:"first_answer_full_check_runs_ms"`
	Engine                 Stats     `json:"engine"`
	BitmapMedUs            float64   `json:"timing_bitmap_median_us"`
	DecodeMedUs            float64   `json:"timing_decode_median_us"`
	// Broadest: no words, no filter, all three facets (issue #11).
	Broadest Summary `json:"broadest_all_facets"`
	// Shape compares the generated stations with the real snapshot.
	Shape *ShapeCheck `json:"data_shape,omitempty"`
}

// Process is the resource use of one child process.
type Process struct {
	WallSec  float64 `json:"wall_s"`
	UserSec  float64 `json:"user_s"`
	SysSec   float64 `json:"sys_s"`
	MaxRSSMB float64 `json:"max_rss_mb"`
}

// Stats summarises per-query engine times (microseconds) over the mix and
// per class.
type Stats struct {
	Summary
	Classes map[string]Summary `json:"classes"`
	times   []float64          // per query, in mix order
}

// Summary is one row of a latency table.
type Summary struct {
	N           int     `json:"n"`
	MedianUs    float64 `json:"median_us"`
	P90Us       float64 `json:"p90_us"`
	P99Us       float64 `json:"p99_us"`
	MeanUs      float64 `json:"mean_us"`
	AllocsPerOp float64 `json:"allocs_per_op,omitempty"`
	BytesPerOp  float64 `json:"bytes_per_op,omitempty"`
	ZeroTotals  int     `json:"zero_totals"`
}

// Peer is one peer engine against ours on the same queries.
type Peer struct {
	Name        string  `json:"name"`
	LoadSec     float64 `json:"load_s"`
	Queries     int     `json:"queries"`
	Stats       Stats   `json:"stats"`
	Ours        Stats   `json:"stationdex_same_queries"`
	RatioMedian float64 `json:"ratio_median"`   // peer median / our median
	RatioGeo    float64 `json:"ratio_geomean"`  // geometric mean of per-query ratios
	TotalsAgree string  `json:"totals_agree"`   // "n/m", or "" when the peer does not count
	PagesAgree  string  `json:"page_ids_agree"` // "n/m" first pages with identical ids in order
	Semantics   string  `json:"semantics"`
}

// HTTP is the load-generator comparison.
type HTTP struct {
	Tool         string  `json:"tool"`
	Threads      int     `json:"threads"`
	Conns        int     `json:"connections"`
	DurationSec  float64 `json:"duration_s_per_round"`
	Rounds       int     `json:"rounds"`
	BodyBytes    int     `json:"ceiling_body_bytes"`
	Ceiling      Wrk     `json:"ceiling"`
	Ours         Wrk     `json:"stationdex"`
	ThroughputX  float64 `json:"throughput_ratio"`
	P50X         float64 `json:"p50_ratio"`
	P99X         float64 `json:"p99_ratio"`
	ServingRSSMB float64 `json:"stationdex_rss_after_load_mb"`
	Checked      int     `json:"responses_checked"`
	Profile      string  `json:"server_cpu_profile_top,omitempty"`
	// Peers behind a bare Go HTTP front (cmd/peerhttp), one round each.
	Peers []PeerHTTP `json:"peers,omitempty"`
}

// PeerHTTP is one peer under the same wrk load.
type PeerHTTP struct {
	Name     string  `json:"name"`
	LoadSec  float64 `json:"load_s"`
	Wrk      Wrk     `json:"wrk"`
	VsCeil   float64 `json:"throughput_vs_ceiling"`
	OursOver float64 `json:"stationdex_throughput_over_peer"`
}

// Wrk is one system under wrk, summed over rounds (latencies: the mean of
// the rounds' percentiles).
type Wrk struct {
	Requests  int64     `json:"requests"`
	RPS       float64   `json:"rps"`
	P50Us     float64   `json:"p50_us"`
	P90Us     float64   `json:"p90_us"`
	P99Us     float64   `json:"p99_us"`
	P999Us    float64   `json:"p999_us"`
	Errors    int64     `json:"errors"`
	RoundsRPS []float64 `json:"rounds_rps"`
	// CPUUsPerReq is the server process's CPU time per request (from
	// /proc/PID/stat, 10 ms ticks) while wrk loaded it.
	CPUUsPerReq float64 `json:"server_cpu_us_per_request"`
	// WrkCPUUsPerReq is the load generator's CPU time per request in the
	// same rounds: the two share the machine's cores.
	WrkCPUUsPerReq float64 `json:"wrk_cpu_us_per_request"`
	Wraps          int64   `json:"slice_wraps,omitempty"`
}

// Target is one performance goal of the suite and whether this run holds it.
type Target struct {
	Name     string  `json:"name"`
	Goal     string  `json:"goal"`
	Measured string  `json:"measured"`
	Value    float64 `json:"value"`
	Held     bool    `json:"held"`
	Margin   string  `json:"margin"`
}

func summarize(v []float64) Summary {
	if len(v) == 0 {
		return Summary{}
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	return Summary{N: len(s), MedianUs: quantile(s, 0.5), P90Us: quantile(s, 0.9), P99Us: quantile(s, 0.99), MeanUs: sum / float64(len(s))}
}

// quantile of sorted s, linear interpolation.
func quantile(s []float64, q float64) float64 {
	if len(s) == 1 {
		return s[0]
	}
	pos := q * float64(len(s)-1)
	i := int(pos)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (s[i+1]-s[i])*(pos-float64(i))
}

func median(v []float64) float64 { return summarize(v).MedianUs }

func geomean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(v)))
}

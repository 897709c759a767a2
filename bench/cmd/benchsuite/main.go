// Command benchsuite runs the stationdex benchmark suite and writes
// a report: report.md, results.json and SVG plots.
//
//	benchsuite -mode full    # everything, minutes: 50k real, 1M and 5M scaled
//	benchsuite -mode smoke   # the whole pipeline on tiny data, < 3 min; fails loudly
//
// It installs nothing. It needs wrk (Debian package wrk) and, for the
// MariaDB peer, mariadb-install-db and mariadbd (Debian mariadb-server); it
// says what is missing. Every server it starts listens on 127.0.0.1 only,
// every load run is bounded in time, and all children are stopped at the
// end, also on failure or interrupt.
//
// File map:
//   - main.go: this comment; the modes and flags, the suite (the run's
//     shared state) with its set-up, clean-up and stages, the tools it
//     checks for, the committed mix, the report rendered again
//   - run.go: the order of the stages: each data size, then on the base
//     set the peers, HTTP, the generated mixes, facets, distinct searches
//     and the Radio Browser API
//   - procs.go: where the run reads and writes (dirs), its log, and the
//     children it starts and stops (procs), with what each process used
//   - nodes.go: the HTTP servers a stage loads (servers: the node, the
//     ceiling) and its profile of the node, and the HTTP helpers
//   - sizes.go: one data size (sizer): the data set, generated and checked
//     against the snapshot's shape, the index builds, start-up, the engine
//     opened in process
//   - engine.go: the engine timed in process: times per class,
//     allocations, the bitmap and decode split, CPU profiles
//   - peers.go: the peers in process on the base set (peerBench)
//   - http.go: wrk (loadGen) and the committed mix over HTTP (httpBench):
//     our server against a ceiling of the same body size, the HTTP peers,
//     the answers checked against the engine's
//   - mixes.go: the generated HTTP mixes (mixBench: floor, cold, hot):
//     their probes, calibration, sliced load and rounds alternating with
//     the ceiling
//   - crawl.go: the crawl mix: every page of the base set probed, then
//     loaded a slice per round
//   - searchpage.go: the search page mixes: the cold and hot searches
//     asked of the HTML search page with its defaults, probed against the
//     engine, then loaded like the cold and hot mixes; and the page's
//     default search timed in process (the 5M goals)
//   - facets.go: the cost of facets per class, per search and at the
//     broadest, and the suggestions of typo searches
//   - distinct.go: the cost of a distinct search beside the same search
//     listing every entry, its goals and its report section
//   - rbapi.go: the Radio Browser API stage (rbapiBench): its mix against
//     a ceiling, the same questions as /api, and MariaDB's upstream
//     statement; its goals and its report section
//   - nodelatency.go: the node's own request-duration histogram, scraped
//     before and after a round for its p99
//   - cpuparts.go: a CPU profile split into named parts of the node's work
//   - results.go: Results, what results.json holds, and the statistics
//     over it
//   - report.go: the report (results.json, report.md, the plots and the
//     results block of bench/README.md), the targets and the main tables
//   - report_more.go: the goals of the issues and the report's sections on
//     the mixes, the scales and the facets
//   - report_cpu.go: the report's section on where each mix's CPU went and
//     what a missed throughput target would take
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"stationdex/indexer/realdata"
	"strconv"
	"strings"
	"syscall"
	"time"

	"stationdex/bench/internal/engines"
	"stationdex/bench/internal/mix"
)

type config struct {
	sizes      []dataset
	mixPerCl   int // 0: the whole mix
	mariaPerCl int // queries per class for MariaDB
	threads    int
	conns      int
	wrkDur     time.Duration
	rounds     int
	startRuns  int
	// buildRuns: builds of a size whose first build takes under
	// repeatBuildUnder, or whose build has a goal (goaledBuild), the
	// median reported (one build of the other sizes).
	buildRuns  int
	profileDur time.Duration
	ours       timing
	peer       timing
	// The HTTP load mixes (issue #10): cold searches per wrk round (each
	// sent about once), cold probes (checked and sized, never loaded), hot
	// distinct searches and the length of the hot request sequence.
	coldPerRound, coldProbes int
	hotDistinct, hotRequests int
	// Facets and suggestions (issue #11): zero-result typo searches, and how hard to time
	// the facet and suggestion searches.
	typos       int
	facetTiming timing
	// pageSearches: the cold searches whose search pages are timed in
	// process (searchpage.go)
	pageSearches int
	// The upstream mix (issue #27): distinct requests.
	upDistinct int
	// parts left out (-skip): see skipParts.
	skip map[string]bool
}

func configFor(mode string) (config, error) {
	switch mode {
	case "full":
		return config{
			sizes:    []dataset{{Label: "50k"}, {Label: "1m", N: 1_000_000}, {Label: "5m", N: 5_000_000}},
			mixPerCl: 0, mariaPerCl: 12, threads: 2, conns: 16, wrkDur: 15 * time.Second, rounds: 2,
			startRuns: 5, buildRuns: 3, profileDur: 10 * time.Second,
			ours:         timing{Warm: true, Budget: time.Millisecond, MaxReps: 200},
			peer:         timing{Warm: true, Budget: 2 * time.Millisecond, MaxReps: 3},
			coldPerRound: 200_000, coldProbes: 1000, hotDistinct: 1000, hotRequests: 200_000,
			typos: 400, facetTiming: timing{Warm: true, Budget: 2 * time.Millisecond, MaxReps: 50},
			upDistinct: 2000, pageSearches: 2000,
		}, nil
	case "smoke":
		return config{
			sizes:    []dataset{{Label: "2k", N: 2000}, {Label: "60k", N: 60_000}},
			mixPerCl: 3, mariaPerCl: 2, threads: 2, conns: 8, wrkDur: time.Second, rounds: 1,
			startRuns: 2, buildRuns: 1, profileDur: time.Second,
			ours:         timing{Warm: true, Budget: 200 * time.Microsecond, MaxReps: 20},
			peer:         timing{Warm: true, Budget: time.Millisecond, MaxReps: 3},
			coldPerRound: 2000, coldProbes: 100, hotDistinct: 100, hotRequests: 5000,
			typos: 20, facetTiming: timing{Warm: true, Budget: 200 * time.Microsecond, MaxReps: 5},
			upDistinct: 200, pageSearches: 100,
		}, nil
	}
	return config{}, fmt.Errorf("unknown mode %q (full or smoke)", mode)
}

// skipParts are the parts -skip can leave out, each with what it is.
var skipParts = []string{
	"peers (SQLite, Bleve, MariaDB)",
	"http (the mix against the ceiling and the peers over HTTP)",
	"mixes (cold, crawl and hot HTTP mixes, and the search page cold and hot)",
	"facets (facet counts and suggestions)",
	"distinct (one result per group against every entry)",
	"pages (the search page's default search in process: issue #43's 5M goals, with -sizes 5m)",
	"upstream (the Radio Browser compatible API under /json/ on a -compat build: against a ceiling, /api and MariaDB)",
}

// suite is the run's shared state and its sequence (run.go): the mode and
// configuration, where it reads and writes, the results every stage
// fills, the children to stop and the stages that failed. The stages are
// types and functions of their own, given what they need.
type suite struct {
	mode string
	cfg  config
	dir  dirs
	res  Results
	// partial: a run with -skip or -out, whose report does not replace the
	// README's table.
	partial bool
	lg      *logger
	procs   *procs
	sv      servers // starts the node and the ceiling
	load    loadGen // wrk
	failed  []string
}

func main() {
	mode := flag.String("mode", "smoke", "full or smoke")
	sizes := flag.String("sizes", "", "comma-separated sizes to run, the first being the base set (default: all of the mode; full: 50k,1m,5m; any count such as 200k is generated)")
	out := flag.String("out", "", "results directory (default: full: results/DATE, smoke: work/smoke-results)")
	snapshot := flag.String("data", realdata.Path(), "station data (default: the full snapshot in ../shared/data beside the repository or $"+realdata.EnvPath+
		", else the sample "+realdata.SampleName+", on which the smoke run passes and a full run's figures mean little)")
	mixFile := flag.String("mix", "queries/mix.tsv", "query mix")
	skipMaria := flag.Bool("skip-mariadb", false, "leave the MariaDB peer out even when installed")
	wrkDur := flag.Duration("wrk-duration", 0, "wrk duration per round (default: by mode)")
	skip := flag.String("skip", "", "comma-separated parts to leave out: "+strings.Join(skipParts, ", "))
	rerender := flag.String("rerender", "", "only rewrite report.md, plots (and, for a full run, the README table) of a results `DIR` from its results.json")
	flag.Parse()
	if *rerender != "" {
		if err := rerenderDir(*rerender); err != nil {
			fatal(err)
		}
		return
	}
	cfg, err := configFor(*mode)
	if err != nil {
		fatal(err)
	}
	if *wrkDur > 0 {
		cfg.wrkDur = *wrkDur
	}
	if *sizes != "" {
		cfg.sizes = pickSizes(cfg.sizes, *sizes)
	}
	cfg.skip = map[string]bool{}
	for _, p := range strings.Split(*skip, ",") {
		switch {
		case p == "":
		case slices.ContainsFunc(skipParts, func(part string) bool { return strings.HasPrefix(part, p+" ") }):
			cfg.skip[p] = true
		default:
			fatal(fmt.Errorf("unknown part %q for -skip (%s)", p, strings.Join(skipParts, ", ")))
		}
	}
	s := &suite{mode: *mode, cfg: cfg, partial: *skip != "" || *out != ""}
	s.setup(*out, *snapshot)
	defer s.cleanup()
	go s.onSignal()
	start := time.Now()
	s.runAll(*mixFile, *skipMaria)
	s.res.Elapsed = time.Since(start).Seconds()
	s.stage("report", func() error { return s.writeReport() })
	s.lg.logf("done in %s: %s", time.Since(start).Round(time.Second), s.dir.out)
	if len(s.failed) > 0 {
		s.cleanup()
		fmt.Fprintf(os.Stderr, "\nBENCHMARK SUITE FAILED: %s\n", strings.Join(s.failed, "; "))
		os.Exit(1)
	}
}

func pickSizes(all []dataset, labels string) []dataset {
	var out []dataset
	for _, l := range strings.Split(labels, ",") {
		found := false
		for _, d := range all {
			if d.Label == l {
				out, found = append(out, d), true
			}
		}
		if !found {
			n, err := parseSize(l)
			if err != nil {
				fatal(err)
			}
			out = append(out, dataset{Label: l, N: n})
		}
	}
	return out
}

// parseSize reads a size label beyond the mode's own: a count of stations
// with an optional k or m suffix (200k, 500k, 2m), generated from the
// snapshot like 1m and 5m.
func parseSize(l string) (int, error) {
	mult := 1
	num := l
	switch {
	case strings.HasSuffix(l, "k"):
		mult, num = 1000, strings.TrimSuffix(l, "k")
	case strings.HasSuffix(l, "m"):
		mult, num = 1_000_000, strings.TrimSuffix(l, "m")
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("unknown size %q (the mode's labels, or a count such as 200k or 2m)", l)
	}
	return n * mult, nil
}

func fatal(err error) {
	fmt.Fprintf(os.Stderr, "benchsuite: %v\n", err)
	os.Exit(2)
}

func (s *suite) setup(out, snapshot string) {
	wd, _ := os.Getwd()
	if _, err := os.Stat(filepath.Join(wd, "queries")); err != nil {
		fatal(fmt.Errorf("run from the bench directory (found no queries/ in %s)", wd))
	}
	d := dirs{benchDir: wd, repo: filepath.Dir(wd), work: filepath.Join(wd, "work")}
	d.snapshot, _ = filepath.Abs(snapshot)
	if out == "" {
		out = filepath.Join(wd, "results", time.Now().UTC().Format("2006-01-02"))
		if s.mode == "smoke" {
			out = filepath.Join(d.work, "smoke-results")
		}
	}
	d.out, _ = filepath.Abs(out)
	d.raw = filepath.Join(d.out, "raw")
	for _, dir := range []string{d.raw, filepath.Join(d.work, "bin")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fatal(err)
		}
	}
	f, err := os.Create(filepath.Join(d.raw, "suite.log"))
	if err != nil {
		fatal(err)
	}
	s.dir, s.lg = d, &logger{f: f}
	s.procs = &procs{lg: s.lg}
	s.sv = servers{procs: s.procs, dir: d}
	s.load = loadGen{threads: s.cfg.threads, conns: s.cfg.conns, dur: s.cfg.wrkDur, benchDir: d.benchDir, lg: s.lg}
	s.res = Results{Date: time.Now().UTC().Format(time.RFC3339), Mode: s.mode, Machine: machine(), Commit: gitCommit(d.repo), Notes: []string{},
		Command: "cd bench && " + strings.Join(append([]string{"work/bin/benchsuite"}, os.Args[1:]...), " ")}
}

func (s *suite) onSignal() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGINT, syscall.SIGTERM)
	sig := <-c
	s.lg.logf("interrupted (%v): stopping servers", sig)
	s.cleanup()
	os.Exit(130)
}

// cleanup stops every child and closes what the stages left open.
func (s *suite) cleanup() { s.procs.stopAll() }

// stage runs fn. In smoke mode any failure ends the run at once with a
// non-zero exit; in full mode it is recorded, the run goes on with what can
// still be measured, and the exit status is non-zero at the end.
func (s *suite) stage(name string, fn func() error) bool {
	s.lg.logf("== %s", name)
	t0 := time.Now()
	if err := fn(); err != nil {
		msg := fmt.Sprintf("stage %q: %v", name, err)
		s.lg.logf("FAILED %s", msg)
		s.failed = append(s.failed, fmt.Sprintf("stage %q", name))
		s.res.Missing = append(s.res.Missing, msg)
		if s.mode == "smoke" {
			s.cleanup()
			fmt.Fprintf(os.Stderr, "\nBENCHMARK SMOKE RUN FAILED in %s\n", msg)
			os.Exit(1)
		}
		return false
	}
	s.lg.logf("   %s: %s", name, time.Since(t0).Round(time.Millisecond))
	return true
}

// preflight checks the tools the suite needs and says what is missing.
func (s *suite) preflight(skipMaria bool) (maria bool) {
	var missing []string
	if _, err := exec.LookPath("wrk"); err != nil {
		missing = append(missing, "wrk (apt-get install wrk): the HTTP stage cannot run")
	}
	maria = !skipMaria
	if !skipMaria {
		if err := engines.MariaDBAvailable(); err != nil {
			missing = append(missing, fmt.Sprintf("%v: the MariaDB peer is left out", err))
			maria = false
		}
	}
	if _, err := os.Stat(s.dir.snapshot); err != nil {
		missing = append(missing, "the station data "+s.dir.snapshot)
	}
	for _, m := range missing {
		s.lg.logf("MISSING: %s", m)
		s.res.Missing = append(s.res.Missing, m)
	}
	if _, err := os.Stat(s.dir.snapshot); err != nil {
		s.stage("preflight", func() error {
			return fmt.Errorf("no station data at %s: name a Radio Browser dump with -data, or set %s", s.dir.snapshot, realdata.EnvPath)
		})
		s.cleanup()
		os.Exit(1)
	}
	if abs, _ := filepath.Abs(realdata.SamplePath()); abs == s.dir.snapshot {
		note := "data: the sample " + realdata.SampleName + " (no full snapshot at " + realdata.FullPath() + "): the figures are the sample's, not the snapshot's"
		s.lg.logf("%s", note)
		s.res.Notes = append(s.res.Notes, note)
	}
	if _, err := exec.LookPath("wrk"); err != nil {
		s.stage("preflight", func() error { return fmt.Errorf("wrk is not installed (apt-get install wrk)") })
	}
	return maria
}

func (s *suite) buildBinaries() error {
	steps := [][]string{
		{s.dir.repo, "build", "-o", s.dir.bin("stationdex"), "./cmd/stationdex"},
		{s.dir.benchDir, "build", "-o", s.dir.bin("ceiling"), "./cmd/ceiling"},
		{s.dir.benchDir, "build", "-o", s.dir.bin("gendata"), "./cmd/gendata"},
		{s.dir.benchDir, "build", "-o", s.dir.bin("peerhttp"), "./cmd/peerhttp"},
		{s.dir.benchDir, "build", "-o", s.dir.bin("pprof"), "cmd/pprof"},
	}
	for _, st := range steps {
		cmd := exec.Command("go", st[1:]...)
		cmd.Dir = st[0]
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go %s (in %s): %w\n%s", strings.Join(st[1:], " "), st[0], err, out)
		}
	}
	pprofBin = s.dir.bin("pprof")
	return nil
}

// pprofBin is the toolchain's pprof built with the binaries: run
// directly, it reads a profile in a tenth of the time `go tool pprof`
// takes to start on a busy machine, and the suite reads one per mix.
var pprofBin string

// pprofCommand is pprof with args: the one built with the binaries, or
// before they are built, the go command's.
func pprofCommand(args ...string) *exec.Cmd {
	if pprofBin != "" {
		return exec.Command(pprofBin, args...)
	}
	return exec.Command("go", append([]string{"tool", "pprof"}, args...)...)
}

func machine() Machine {
	m := Machine{Cores: runtime.NumCPU(), GoVersion: runtime.Version()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "model name"); ok {
				m.CPU = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		m.Load1 = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	return m
}

func gitCommit(dir string) string {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, _ := exec.Command("git", "-C", dir, "status", "--porcelain", "--", ".").Output(); len(st) > 0 {
		c += " (with uncommitted changes in the working tree)"
	}
	return c
}

// loadMix reads the committed mix, sampled in smoke mode.
func (s *suite) loadMix(path string) ([]mix.Query, error) {
	qs, err := mix.Load(path)
	if err != nil {
		return nil, err
	}
	s.res.MixFile = path
	if s.cfg.mixPerCl > 0 {
		qs = mix.Sample(qs, s.cfg.mixPerCl)
	}
	s.res.MixCount = len(qs)
	return qs, nil
}

// rerenderDir rewrites the report of an earlier run from its raw numbers
// (after a change to the report's layout, or to link an analysis).
func rerenderDir(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		return err
	}
	var res Results
	if err := json.Unmarshal(b, &res); err != nil {
		return err
	}
	wd, _ := os.Getwd()
	r := report{res: &res, benchDir: wd}
	r.out, _ = filepath.Abs(dir)
	// A partial run's report must not replace the README's table when
	// rendered again either: its command says what main decided from.
	r.partial = strings.Contains(res.Command, " -skip") || strings.Contains(res.Command, " -out")
	return r.write()
}

func (s *suite) writeReport() error {
	return report{res: &s.res, out: s.dir.out, benchDir: s.dir.benchDir, partial: s.partial}.write()
}

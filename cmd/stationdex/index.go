package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
	"time"

	"golang.org/x/term"

	"stationdex/indexer"
	"stationdex/internal/format"
)

// runIndex implements `stationdex index`. Exit status 0: index written;
// 1: the build failed (nothing is left at FILE); 2: usage error.
func runIndex(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runIndexTo(ctx, args, stdout, stderr, term.IsTerminal(int(os.Stderr.Fd())))
}

// indexArgs are the parsed command line of `stationdex index`.
type indexArgs struct {
	out        string
	cpuProfile string
	opts       indexer.Options
	inputs     []string
}

func runIndexTo(ctx context.Context, args []string, stdout, stderr io.Writer, interactive bool) int {
	ia, err := parseIndexArgs(args, stdout, stderr)
	if err != nil {
		return exitStatus(err)
	}
	if os.Getenv("GOGC") == "" {
		// The build's live heap is mostly its long-lived buffers, while
		// decoding the input makes garbage at a high rate; the default
		// GOGC of 100 would let that garbage double the footprint.
		defer debug.SetGCPercent(debug.SetGCPercent(50))
	}
	ia.opts.Warnings = stderr
	if interactive {
		ia.opts.Progress = stderr
	}
	if e := ia.outputError(); e != nil {
		e.print(stderr, "index")
		return 1
	}
	stopProfile, err := startCPUProfile(ia.cpuProfile)
	if err != nil {
		fmt.Fprintf(stderr, "stationdex index: %v\n", err)
		return 1
	}
	start := time.Now()
	sum, err := buildIndex(ctx, ia)
	if perr := stopProfile(); perr != nil && err == nil {
		err = perr
	}
	if err != nil {
		var ae *adviceError
		switch {
		case ctx.Err() != nil:
			fmt.Fprintf(stderr, "stationdex index: interrupted: %s was not written.\n", ia.out)
		case errors.As(err, &ae):
			ae.print(stderr, "index")
		case errors.Is(err, indexer.ErrNoSnapshotTime):
			fmt.Fprintf(stderr, "stationdex index: %v\n", err)
			fmt.Fprintln(stderr, "Pass the time the dump was taken with -snapshot-at, e.g. -snapshot-at 2025-02-27T12:40:00Z.")
		default:
			fmt.Fprintf(stderr, "stationdex index: %v\n", err)
		}
		return 1
	}
	printIndexSummary(stdout, ia, sum, time.Since(start))
	return 0
}

func parseIndexArgs(args []string, stdout, stderr io.Writer) (indexArgs, error) {
	var ia indexArgs
	var snapshot string
	fs := newFlagSet("index", stderr)
	fs.StringVar(&ia.out, "o", "", "index `FILE` to write (required)")
	fs.StringVar(&snapshot, "snapshot-at", "", "snapshot time, `RFC3339` (default: the newest check or change time in the records)")
	fs.StringVar(&ia.opts.Source, "source", indexer.DefaultSource, "data source `NAME` stored in the index")
	fs.StringVar(&ia.opts.BaseURL, "base-url", indexer.DefaultBaseURL,
		"public base `URL` the index will be served at; the data dumps' station URLs are built on it")
	memory := fs.Int("memory", indexer.DefaultMemoryBudget>>20, "`MiB` of records and posting lists buffered before spilling to -tmpdir (at least 4)")
	rbapi := fs.Bool("compat", false, "also index what the Radio Browser compatible API under /json/ serves (about doubles the file and adds a third to the build time; without it /json/ answers 404 compat_not_indexed)")
	fs.StringVar(&ia.cpuProfile, "cpuprofile", "", "write a CPU profile of the build to `FILE` (go tool pprof)")
	fs.StringVar(&ia.opts.TempDir, "tmpdir", "", "`DIR` for spilled runs and data dumps during the build (default: the directory of -o)")
	if err := parseCommand(fs, indexHelp, args, stdout, stderr); err != nil {
		return ia, err
	}
	if *rbapi {
		ia.opts.Sections |= format.SectionRBAPI
	}
	if *memory > 0 && *memory <= 1<<20 { // 1 TiB; beyond, the shift could overflow
		ia.opts.MemoryBudget = *memory << 20
	}
	ia.inputs = fs.Args()
	if msg := ia.check(snapshot); msg != "" {
		indexHelp.usageError(stderr, fs, msg)
		return ia, errors.New(msg)
	}
	return ia, nil
}

// check validates the arguments, filling in the snapshot time; it returns
// a message for the user, or "".
func (ia *indexArgs) check(snapshot string) string {
	switch {
	case ia.out == "":
		return "-o FILE is required"
	case len(ia.inputs) == 0:
		return "no INPUT given"
	case ia.opts.Source == "":
		return "-source must not be empty"
	case ia.opts.MemoryBudget < indexer.MinMemoryBudget:
		return fmt.Sprintf("-memory must be between %d and %d MiB", indexer.MinMemoryBudget>>20, 1<<20)
	}
	if _, err := parseBaseURL(ia.opts.BaseURL); err != nil {
		return err.Error()
	}
	if snapshot != "" {
		t, err := time.Parse(time.RFC3339, snapshot)
		if err != nil {
			return fmt.Sprintf("-snapshot-at %q is not an RFC 3339 time such as 2025-02-27T12:40:00Z", snapshot)
		}
		ia.opts.SnapshotAt = t
	}
	return ""
}

// outputError says what stops the build writing -o (and -tmpdir) before
// minutes of work: a folder that is missing, not a folder or not
// writable, named as the user named it; or -o naming a folder.
func (ia *indexArgs) outputError() *adviceError {
	if isDir(ia.out) {
		return &adviceError{fmt.Sprintf("-o %s is a folder: name the index file to write", ia.out),
			fmt.Sprintf("For example: -o %s", filepath.Join(ia.out, "stations.db"))}
	}
	if e := folderError("-o", ia.out, filepath.Dir(ia.out)); e != nil {
		return e
	}
	if ia.opts.TempDir != "" {
		return folderError("-tmpdir", ia.opts.TempDir, ia.opts.TempDir)
	}
	return nil
}

// startCPUProfile starts a CPU profile into path ("": none) and returns
// the function that ends it.
func startCPUProfile(path string) (func() error, error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close() // the start error is the one worth reporting
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		return nil
	}, nil
}

// buildIndex opens every input before building, so that a missing file or
// an unreachable URL fails at once rather than after minutes of work.
func buildIndex(ctx context.Context, ia indexArgs) (indexer.Summary, error) {
	var inputs []indexer.Input
	for _, arg := range ia.inputs {
		in, c, err := indexer.OpenInput(ctx, arg)
		if errors.Is(err, fs.ErrNotExist) {
			return indexer.Summary{}, &adviceError{fmt.Sprintf("no input file at %s", arg),
				"Name a Radio Browser dump: a file, - for standard input, or a URL such as https://de1.api.radio-browser.info/json/stations."}
		}
		if err != nil {
			return indexer.Summary{}, err
		}
		defer func() { _ = c.Close() }() // read only: the build reports any read error
		inputs = append(inputs, in)
	}
	return indexer.Build(ctx, ia.out, ia.opts, inputs...)
}

func printIndexSummary(w io.Writer, ia indexArgs, sum indexer.Summary, elapsed time.Duration) {
	size := "?"
	if st, err := os.Stat(ia.out); err == nil {
		size = fmt.Sprintf("%.1f MB", float64(st.Size())/1e6)
	}
	sk := sum.Skipped
	fmt.Fprintf(w, "indexed %d stations into %s (%s) in %s\n", sum.Stations, ia.out, size, elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "skipped %d of %d records: %d invalid uuid, %d empty name, %d duplicate uuid, %d malformed\n",
		sk.Total(), sum.Read, sk.InvalidUUID, sk.EmptyName, sk.DuplicateUUID, sk.Malformed)
	fmt.Fprintf(w, "snapshot_at %s, source %q\n", sum.SnapshotAt.Format(time.RFC3339), ia.opts.Source)
	printPhases(w, sum.Phases)
}

// printPhases writes a table of the build's phases: wall time, and the
// process's CPU time meanwhile (on every core, so it can exceed the wall
// time; background work counts in the phases it overlaps).
func printPhases(w io.Writer, phases []indexer.Phase) {
	if len(phases) == 0 {
		return
	}
	var wall, cpu time.Duration
	fmt.Fprintf(w, "%-18s %9s %9s\n", "phase", "wall", "cpu")
	for _, p := range phases {
		fmt.Fprintf(w, "%-18s %8.1fs %8.1fs\n", p.Name, p.Wall.Seconds(), p.CPU.Seconds())
		wall, cpu = wall+p.Wall, cpu+p.CPU
	}
	fmt.Fprintf(w, "%-18s %8.1fs %8.1fs\n", "total", wall.Seconds(), cpu.Seconds())
}

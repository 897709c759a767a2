// Package follow keeps a node's snapshot current by itself: every period
// it checks a source, and when the source has a new snapshot it downloads
// or builds it into a temporary file beside the live index, verifies it,
// and hands it to the node's Reloader, which checks it in full and swaps
// it in as SIGHUP does. A source is a published directory's manifest
// (…/latest.json, written by stationdex publish, package
// internal/snapshot) or one or more dumps (files or http(s) URLs, tried in
// turn) that are built into an index.
//
// Nothing lost on failure: an attempt that fails for any reason leaves the
// served snapshot alone and removes its temporaries; the reason is logged
// and counted (one of Results), and the next attempt comes after a backoff
// that doubles up to the period.
//
// File map:
//   - follow.go: this comment; Config, Follower, the loop with its
//     backoff, and the results an attempt ends with
//   - published.go: following a published directory: the manifest fetched
//     conditionally, its signature and format version, the file
//     downloaded and verified
//   - dump.go: following dumps: fetched conditionally from the first
//     source that answers, then built by Config.Build
//   - fetch.go: opening a location (file or http(s) URL) with the
//     validators of the last fetch, the stall timeout, the free-space
//     check and the attempt's temporary directory
package follow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"aead.dev/minisign"

	"stationdex/internal/format"
)

// Results of an attempt, the values of the result label of the metrics.
const (
	ResultSwapped       = "swapped"        // a new snapshot is served
	ResultUnchanged     = "unchanged"      // the source has the snapshot served (a 304, or the same file)
	ResultUnreachable   = "unreachable"    // no connection, or the file is missing
	ResultTimeout       = "timeout"        // no answer, or no bytes, within Config.Timeout
	ResultHTTPStatus    = "http_status"    // an answer other than 200 or 304
	ResultBadManifest   = "bad_manifest"   // the manifest is not one stationdex publish writes
	ResultSignature     = "signature"      // unsigned, another key, or not matching (with -follow-key)
	ResultFormatVersion = "format_version" // the snapshot is of another index format version
	ResultDiskFull      = "disk_full"      // not enough free space beside the live file
	ResultTruncated     = "truncated"      // the download ended short of (or past) the manifest's size
	ResultChecksum      = "checksum"       // the download's SHA-256 differs from the manifest's
	ResultBuild         = "build_failed"   // building an index from the dump failed
	ResultInvalidIndex  = "invalid_index"  // the full check refused the file
	ResultLocal         = "local_error"    // a temporary file could not be written
)

// Results lists every result, for the metrics to make their series at once.
var Results = []string{
	ResultSwapped, ResultUnchanged, ResultUnreachable, ResultTimeout, ResultHTTPStatus,
	ResultBadManifest, ResultSignature, ResultFormatVersion, ResultDiskFull, ResultTruncated,
	ResultChecksum, ResultBuild, ResultInvalidIndex, ResultLocal,
}

// Installer is the node's side: node.Reloader.
type Installer interface {
	// Install checks the file at tmp in full, renames it over Path and
	// swaps it in; a refused file is removed.
	Install(tmp string) error
	// Path is the live index file.
	Path() string
	// Serving is the served snapshot's meta document, false while none.
	Serving() (format.Meta, bool)
}

// BuildFunc builds an index at dst from a dump (JSON array or NDJSON,
// plain or gzip), with scratch space in tmpDir.
type BuildFunc func(ctx context.Context, dst, tmpDir string, dump io.Reader) error

// Observer is told how attempts end; metrics.Follow implements it.
type Observer interface {
	Attempted(result string, failures int, success bool)
	Downloaded(d time.Duration)
	Built(d time.Duration)
}

// Defaults of Config.
const (
	DefaultEvery   = time.Hour
	MinEvery       = time.Minute
	DefaultTimeout = time.Minute
	defaultRetry   = 10 * time.Second
)

// Config describes what a Follower follows and how.
type Config struct {
	// Source is a manifest (a location whose last element is latest.json)
	// or dumps, comma-separated, tried in order until one answers. A
	// location is an http(s) URL or a file path.
	Source string
	// Every is the period between checks; 0: DefaultEvery.
	Every time.Duration
	// Key, when set, is the only key a manifest may be signed with; an
	// unsigned manifest is then refused.
	Key *minisign.PublicKey
	// Installer swaps a verified file in (node.Reloader).
	Installer Installer
	// Build builds a dump into an index; required for dumps.
	Build BuildFunc
	// UserAgent is sent with every request.
	UserAgent string
	// Timeout bounds the wait for an answer and any pause in a body; 0:
	// DefaultTimeout. A long download that keeps moving is not cut.
	Timeout time.Duration
	// RetryMin is the first wait after a failure, doubled after each one
	// up to Every; 0: ten seconds.
	RetryMin time.Duration
	// FreeSpace reports the bytes free for an unprivileged writer in dir;
	// nil: statfs. Tests inject a small figure.
	FreeSpace func(dir string) (uint64, error)
	Observer  Observer
	Log       *slog.Logger
	// Client makes the requests; nil: one without proxies' surprises
	// beyond the environment's, and without an overall timeout.
	Client *http.Client
}

// A Follower checks a source and installs its new snapshots.
type Follower struct {
	cfg      Config
	manifest string   // the manifest's location, or ""
	dumps    []string // the dumps' locations
	dir      string   // the live file's directory: temporaries go here
	// validators of the last fetch that ended with the source's snapshot
	// served, by location: a conditional request sends them back.
	seen     map[string]validators
	sha      string // SHA-256 of the last installed published file
	failures int
}

// New checks cfg and returns a Follower; it does not start it, but it
// removes the temporaries an earlier process left beside the live file.
func New(cfg Config) (*Follower, error) {
	if cfg.Every == 0 {
		cfg.Every = DefaultEvery
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.RetryMin <= 0 {
		cfg.RetryMin = defaultRetry
	}
	if cfg.FreeSpace == nil {
		cfg.FreeSpace = freeSpace
	}
	if cfg.Observer == nil {
		cfg.Observer = nopObserver{}
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment}}
	}
	if cfg.Installer == nil {
		return nil, errors.New("follow: no Installer")
	}
	f := &Follower{cfg: cfg, dir: filepath.Dir(cfg.Installer.Path()), seen: map[string]validators{}}
	manifest, dumps, err := ParseSource(cfg.Source)
	if err != nil {
		return nil, err
	}
	if manifest == "" && cfg.Build == nil {
		return nil, errors.New("follow: dumps need a Build")
	}
	f.manifest, f.dumps = manifest, dumps
	f.sweep()
	return f, nil
}

// ParseSource splits a source into a manifest location or dump locations.
func ParseSource(src string) (manifest string, dumps []string, err error) {
	for part := range strings.SplitSeq(src, ",") {
		if part = strings.TrimSpace(part); part != "" {
			dumps = append(dumps, part)
		}
	}
	switch {
	case len(dumps) == 0:
		return "", nil, errors.New("-follow: no source given")
	case len(dumps) == 1 && isManifest(dumps[0]):
		return dumps[0], nil, nil
	}
	for _, d := range dumps {
		if isManifest(d) {
			return "", nil, fmt.Errorf("-follow: a manifest (%s) is followed alone, not among dumps", d)
		}
		if d == "-" {
			return "", nil, errors.New("-follow: standard input cannot be followed")
		}
	}
	return "", dumps, nil
}

func isManifest(loc string) bool {
	if i := strings.IndexAny(loc, "?#"); i >= 0 && isURL(loc) {
		loc = loc[:i]
	}
	return strings.HasSuffix(loc, "/latest.json") || loc == "latest.json"
}

// Run checks the source at once, then every period, until ctx is done;
// after a failure the next check comes sooner (backoff), never later than
// a period.
func (f *Follower) Run(ctx context.Context) {
	for {
		result, err := f.Once(ctx)
		if ctx.Err() != nil {
			return
		}
		wait := f.cfg.Every
		if err != nil {
			wait = f.backoff()
		}
		f.cfg.Log.Debug("follow: next check", "in", wait, "last_result", result)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// backoff is RetryMin doubled per failure in a row, capped at the period,
// with up to a fifth of jitter so a fleet does not retry in step.
func (f *Follower) backoff() time.Duration {
	d := f.cfg.RetryMin
	for i := 1; i < f.failures && d < f.cfg.Every; i++ {
		d *= 2
	}
	d = min(d, f.cfg.Every)
	return d - time.Duration(rand.Int64N(int64(d)/5+1))
}

// Once makes one attempt and returns its result; the error is nil for
// swapped and unchanged. It logs and counts the outcome.
func (f *Follower) Once(ctx context.Context) (string, error) {
	var err error
	if f.manifest != "" {
		err = f.published(ctx)
	} else {
		err = f.dump(ctx)
	}
	result := resultOf(err)
	if ctx.Err() != nil && result != ResultSwapped {
		// A stop, not a failure of the source: neither counted nor an error.
		f.cfg.Log.Info("follow: check cut short by the stop", "source", f.cfg.Source)
		return result, ctx.Err()
	}
	success := result == ResultSwapped || result == ResultUnchanged
	if success {
		f.failures = 0
	} else {
		f.failures++
	}
	f.cfg.Observer.Attempted(result, f.failures, success)
	switch {
	case result == ResultSwapped:
		f.cfg.Log.Info("follow: new snapshot served", "source", f.cfg.Source)
		return result, nil
	case result == ResultUnchanged:
		f.cfg.Log.Debug("follow: source unchanged", "source", f.cfg.Source)
		return result, nil
	}
	still := "none"
	if m, ok := f.cfg.Installer.Serving(); ok {
		still = m.SnapshotAt.UTC().Format(time.RFC3339)
	}
	f.cfg.Log.Error("follow: snapshot not updated", "source", f.cfg.Source, "reason", result,
		"err", err, "failures_in_a_row", f.failures, "still_serving_snapshot_at", still)
	return result, err
}

// errSwapped and errUnchanged end an attempt that did not fail.
var (
	errSwapped   = &attemptError{result: ResultSwapped}
	errUnchanged = &attemptError{result: ResultUnchanged}
)

// attemptError is an attempt's end with its result.
type attemptError struct {
	result string
	err    error
}

func (e *attemptError) Error() string {
	if e.err == nil {
		return e.result
	}
	return e.err.Error()
}

func (e *attemptError) Unwrap() error { return e.err }

func fail(result string, err error) error { return &attemptError{result: result, err: err} }

func resultOf(err error) string {
	var ae *attemptError
	if errors.As(err, &ae) {
		return ae.result
	}
	return ResultLocal
}

// sweep removes temporaries a killed process left beside the live file.
func (f *Follower) sweep() {
	entries, err := os.ReadDir(f.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			p := filepath.Join(f.dir, e.Name())
			if err := os.RemoveAll(p); err == nil {
				f.cfg.Log.Info("follow: removed a temporary left by an earlier run", "path", p)
			}
		}
	}
}

type nopObserver struct{}

func (nopObserver) Attempted(string, int, bool) {}
func (nopObserver) Downloaded(time.Duration)    {}
func (nopObserver) Built(time.Duration)         {}

package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"aead.dev/minisign"
	"github.com/prometheus/client_golang/prometheus"

	"stationdex/indexer"
	"stationdex/internal/snapshot"
	"stationdex/metrics"
	"stationdex/server/follow"
	"stationdex/server/node"
)

// followFlags are serve's options for following a source (-follow).
type followFlags struct {
	source  string
	every   time.Duration
	key     string
	timeout time.Duration
	compat  bool
	memory  int
	pub     *minisign.PublicKey // parsed from key by check
}

func (ff *followFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&ff.source, "follow", "", "keep -index current from `SOURCE`: a published manifest (URL or path ending in /latest.json, see stationdex publish), "+
		"or dumps (files or http(s) URLs such as the upstream /json/stations, comma-separated, tried in turn) built in the background")
	fs.DurationVar(&ff.every, "every", follow.DefaultEvery, "with -follow, how often the source is checked (at least 1m); after a failure, sooner, with backoff")
	fs.StringVar(&ff.key, "follow-key", "", "with a published -follow, the minisign public `KEY` (file or RW... line) the manifest must be signed with; unsigned or other-key manifests are refused")
	fs.DurationVar(&ff.timeout, "follow-timeout", follow.DefaultTimeout, "with -follow, give up on a source that sends no answer or no bytes for this long")
	fs.BoolVar(&ff.compat, "follow-compat", false, "with -follow of dumps, also build what the Radio Browser API under /json/ serves (as index -compat)")
	fs.IntVar(&ff.memory, "follow-memory", followMemory, "with -follow of dumps, the build's -memory in `MiB`")
}

// followMemory is the default -follow-memory, in MiB. It is smaller than
// index -memory's default: the build runs beside a node that is serving,
// often in a container whose memory limit must also hold the pages of the
// index it serves, and a background build has time to spare.
const followMemory = 16

func (ff followFlags) on() bool { return ff.source != "" }

// check refuses follow flags no node can run with, and reads the key.
func (ff *followFlags) check(index string) error {
	if !ff.on() {
		if ff.key != "" {
			return errors.New("-follow-key needs -follow")
		}
		return nil
	}
	switch {
	case index == "":
		return errors.New("-follow needs -index FILE: where the live snapshot is kept and new ones are swapped in")
	case ff.every < follow.MinEvery:
		return fmt.Errorf("-every must be at least %s; got %s", follow.MinEvery, ff.every)
	case ff.timeout <= 0:
		return errors.New("-follow-timeout must be positive")
	case ff.memory < indexer.MinMemoryBudget>>20:
		return fmt.Errorf("-follow-memory must be at least %d MiB", indexer.MinMemoryBudget>>20)
	}
	if st, err := os.Stat(filepath.Dir(index)); err != nil || !st.IsDir() {
		return fmt.Errorf("-follow keeps snapshots beside -index, but %s is not a directory: create it first", filepath.Dir(index))
	}
	manifest, _, err := follow.ParseSource(ff.source)
	if err != nil {
		return err
	}
	if ff.key != "" {
		if manifest == "" {
			return errors.New("-follow-key applies to a published manifest (…/latest.json), not to dumps")
		}
		k, err := snapshot.ReadPublicKey(ff.key)
		if err != nil {
			return fmt.Errorf("-follow-key: %w", err)
		}
		ff.pub = &k
	}
	return nil
}

// startFollowing runs the follower beside the node until ctx is done; its
// swaps go through the Reloader, as SIGHUP's do. The function it returns
// waits (a few seconds at most) for the follower to stop, so a download or
// build cut by the stop has its temporaries removed before the process
// exits.
func startFollowing(ctx context.Context, ff followFlags, r *node.Reloader, reg prometheus.Registerer, base *url.URL, log *slog.Logger) (func(), error) {
	if !ff.on() {
		return func() {}, nil
	}
	m, err := metrics.NewFollow(reg, ff.every, follow.Results)
	if err != nil {
		return nil, err
	}
	fw, err := follow.New(follow.Config{
		Source: ff.source, Every: ff.every, Key: ff.pub, Installer: r,
		Build: childBuild(ff, base), UserAgent: userAgent(), Timeout: ff.timeout,
		Observer: m, Log: log,
	})
	if err != nil {
		return nil, err
	}
	log.Info("following", "source", ff.source, "every", ff.every, "signed", ff.pub != nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		fw.Run(ctx)
	}()
	return func() {
		select {
		case <-done:
		case <-time.After(followStopWait):
			log.Warn("follow: still stopping; its temporaries are removed at the next start")
		}
	}, nil
}

// followStopWait bounds the wait for the follower at a stop: a build child
// is killed at once, a download cut at once.
const followStopWait = 5 * time.Second

// userAgent names the project and its version to the source.
func userAgent() string {
	v, _, _ := strings.Cut(version(), " ")
	v = strings.Trim(v, "()")
	return "stationdex/" + v + " (+stationdex, a Radio Browser directory node)"
}

// buildNice is the niceness of a background build: serving comes first.
const buildNice = 10

// childBuild builds an index from a dump in a child process, this very
// binary's `stationdex index` reading the dump on standard input. A child,
// not a goroutine, because a goroutine cannot be given a lower priority: Go
// moves goroutines between threads, and setpriority works on one thread.
// The child runs niced (buildNice), with GOMAXPROCS half this process's
// (at least 1) so serving keeps a core on a small machine, within the
// -follow-memory budget, and its memory is returned when it exits.
func childBuild(ff followFlags, base *url.URL) follow.BuildFunc {
	return func(ctx context.Context, dst, tmpDir string, dump io.Reader) error {
		args := []string{"index", "-o", dst, "-tmpdir", tmpDir, "-memory", strconv.Itoa(ff.memory), "-base-url", base.String()}
		if ff.compat {
			args = append(args, "-compat")
		}
		cmd, err := selfCommand(ctx, append(args, "-"))
		if err != nil {
			return err
		}
		cmd.Stdin = dump
		var stderr bytes.Buffer
		cmd.Stderr = &limitedBuffer{b: &stderr, n: 8 << 10}
		cmd.Env = append(cmd.Environ(), "GOMAXPROCS="+strconv.Itoa(max(1, runtime.GOMAXPROCS(0)/2)))
		if err := cmd.Start(); err != nil {
			return err
		}
		_ = syscall.Setpriority(syscall.PRIO_PROCESS, cmd.Process.Pid, buildNice) // best effort
		if err := cmd.Wait(); err != nil {
			return fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
		}
		return nil
	}
}

// selfCommand runs this binary with args; the tests run themselves.
var selfCommand = func(ctx context.Context, args []string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return exec.CommandContext(ctx, exe, args...), nil
}

// limitedBuffer keeps the first n bytes written to it.
type limitedBuffer struct {
	b *bytes.Buffer
	n int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

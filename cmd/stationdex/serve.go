package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"stationdex/indexer/demo"
	"stationdex/indexer/format"
	"stationdex/metrics"
	"stationdex/query"
	"stationdex/server"
	"stationdex/server/node"
)

// serveFlags are the options of `stationdex serve`.
type serveFlags struct {
	index, addr, base, adminAddr string
	maxInFlight                  int
	drainTimeout, watch          time.Duration
	logFormat, logLevel          string
	accessLog, allowUnready      bool
	checkOnStart                 bool
	cacheBytes                   int64
	cacheMinUses                 int
}

func parseServeFlags(args []string, stderr io.Writer) (serveFlags, error) {
	var f serveFlags
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.index, "index", "", "index file to serve; SIGHUP reloads it (default: build and serve the embedded demo snapshot)")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "public listen address")
	fs.StringVar(&f.base, "base-url", "", "public base URL of the service (default: http://ADDR)")
	fs.StringVar(&f.adminAddr, "admin-addr", "", "admin listen address for /metrics, /healthz, /readyz, /debug/pprof/ (default: none)")
	fs.IntVar(&f.maxInFlight, "max-inflight", node.DefaultMaxInFlight, "requests answered at once before more are refused with 503 (negative: no bound)")
	fs.DurationVar(&f.drainTimeout, "drain-timeout", node.DefaultDrainTimeout, "on SIGTERM/SIGINT, how long in-flight requests get to finish")
	fs.DurationVar(&f.watch, "watch", 0, "also reload -index when the file changes, polling at this interval (0: only on SIGHUP)")
	fs.StringVar(&f.logFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.BoolVar(&f.accessLog, "access-log", false, "log every public request")
	fs.Int64Var(&f.cacheBytes, "cache-bytes", server.DefaultCacheBytes, "bound of the response cache (encoded and compressed answers, emptied on a snapshot swap), in bytes; 0 disables it")
	fs.IntVar(&f.cacheMinUses, "cache-min-uses", server.DefaultCacheMinUses, "store an answer in the response cache on its Nth request: 2 keeps one-off requests (crawlers, cold traffic) from evicting what repeats, 1 stores every answer")
	fs.BoolVar(&f.checkOnStart, "check-on-start", false, "also decode and cross-check the whole index (as stationdex check does) before serving it; "+
		"without it the file is still verified against its checksums, which refuses a damaged, truncated or foreign file, in one linear read")
	fs.BoolVar(&f.allowUnready, "allow-unready", false, "start even when -index cannot be served, answering 503 (and /readyz 503) until SIGHUP or -watch loads a good file")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if f.maxInFlight == 0 {
		f.maxInFlight = node.DefaultMaxInFlight // what node.Config does with 0, said once here for the metric
	}
	if f.watch < 0 || f.drainTimeout <= 0 {
		return f, errors.New("-watch must not be negative and -drain-timeout must be positive")
	}
	if f.cacheBytes < 0 {
		return f, errors.New("-cache-bytes must not be negative (0 disables the cache)")
	}
	if f.cacheMinUses != 1 && f.cacheMinUses != 2 {
		return f, fmt.Errorf("-cache-min-uses must be 1 or 2; got %d", f.cacheMinUses)
	}
	return f, nil
}

// runServe implements `stationdex serve`: 0 after a stop by SIGTERM/SIGINT,
// 1 when serving fails, 2 on bad flags.
func runServe(args []string) int {
	f, err := parseServeFlags(args, os.Stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "stationdex serve:", err)
		}
		return 2
	}
	log, err := newLogger(os.Stderr, f.logFormat, f.logLevel)
	if err != nil {
		fmt.Fprintln(os.Stderr, "stationdex serve:", err)
		return 2
	}
	slog.SetDefault(log)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	// After the first signal, restore the default action: a second Ctrl-C
	// or SIGTERM during the drain ends the process at once.
	context.AfterFunc(ctx, stop)
	if err := serve(ctx, f, log); err != nil {
		log.Error("serve failed", "err", err)
		return 1
	}
	log.Info("stopped")
	return 0
}

// newLogger builds the structured logger: text for people, JSON for log
// pipelines.
func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("-log-level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("-log-format %q: want text or json", format)
}

// serve runs the node until ctx is done.
func serve(ctx context.Context, f serveFlags, log *slog.Logger) error {
	baseURL, err := parseBaseURL(f.base, f.addr)
	if err != nil {
		return err
	}
	path, cleanup, err := indexFile(f.index)
	if err != nil {
		return err
	}
	defer cleanup()
	ix, err := openIndex(path, f.checkOnStart)
	if err != nil && !f.allowUnready {
		return err
	}
	var meta format.Meta // zero while unready
	if ix == nil {
		log.Error("index not loaded: answering 503 until a reload succeeds (-allow-unready)", "path", path, "err", err)
	} else {
		meta = ix.Meta()
	}
	holder := query.NewHolder(ix)
	defer holder.Close()
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		return err
	}
	if ix != nil {
		m.SetIndex(meta)
	}
	m.SetInFlightLimit(f.maxInFlight)
	api := server.New(server.Config{BaseURL: baseURL, Observer: m, Logger: log, CacheBytes: configCacheBytes(f.cacheBytes), CacheMinUses: f.cacheMinUses}, holder)
	m.SetResponseCache(func() metrics.CacheStats { return metrics.CacheStats(api.CacheStats()) })
	defer func() {
		if err := api.Close(); err != nil {
			log.Warn("remove rewritten dumps", "err", err)
		}
	}()
	n := node.New(node.Config{
		Addr: f.addr, AdminAddr: f.adminAddr,
		Handler: api.Handler(), Shed: server.Shed(), Source: holder, Gatherer: reg, Load: m,
		MaxInFlight: f.maxInFlight, DrainTimeout: f.drainTimeout,
		AccessLog: f.accessLog, Logger: log,
	})
	if err := n.Listen(); err != nil {
		return err
	}
	logStartup(log, f, n, baseURL, path, meta)
	startReloading(ctx, f, node.NewReloader(path, holder, purgeOnSwap{m, api}, log), log)
	return n.Serve(ctx)
}

// purgeOnSwap empties the response cache after a successful swap, so the
// old snapshot's answers are freed at once, then tells the metrics.
type purgeOnSwap struct {
	node.SwapObserver
	api *server.Server
}

func (p purgeOnSwap) SwapSucceeded(meta format.Meta) {
	p.api.PurgeCache()
	p.SwapObserver.SwapSucceeded(meta)
}

// configCacheBytes maps the flag (0: disabled) to server.Config's
// convention (0: the default, negative: disabled).
func configCacheBytes(flagValue int64) int64 {
	if flagValue == 0 {
		return -1
	}
	return flagValue
}

// startReloading swaps the snapshot on SIGHUP and, with -watch, when the
// file changes. The embedded demo has no file anyone can replace, so there
// SIGHUP is only logged.
func startReloading(ctx context.Context, f serveFlags, r *node.Reloader, log *slog.Logger) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				onHangup(f, r, log)
			}
		}
	}()
	if f.watch > 0 && f.index != "" {
		go r.Watch(ctx, f.watch)
	}
}

func onHangup(f serveFlags, r *node.Reloader, log *slog.Logger) {
	if f.index == "" {
		log.Warn("SIGHUP ignored: serving the embedded demo, there is no -index file to reload")
		return
	}
	log.Info("SIGHUP: reloading the index", "path", f.index)
	_ = r.Reload() // the outcome is logged and counted inside
}

func logStartup(log *slog.Logger, f serveFlags, n *node.Node, base *url.URL, path string, meta format.Meta) {
	admin := "none"
	if a := n.AdminAddr(); a != nil {
		admin = a.String()
	}
	index := path
	if f.index == "" {
		index = "embedded demo"
	}
	log.Info("serving",
		"version", version(),
		"addr", n.Addr().String(), "admin_addr", admin, "base_url", base.String(),
		"index", index, "snapshot_at", meta.SnapshotAt.UTC().Format(time.RFC3339),
		"source", meta.Source, "stations", meta.Stations, "format_version", format.Version,
		"max_inflight", f.maxInFlight, "drain_timeout", f.drainTimeout,
		"watch", f.watch, "access_log", f.accessLog, "cache_bytes", f.cacheBytes, "cache_min_uses", f.cacheMinUses)
}

// indexFile returns the index to serve: the given file, or a freshly built
// demo index in a temporary directory that cleanup removes.
func indexFile(path string) (string, func(), error) {
	if path != "" {
		return path, func() {}, nil
	}
	return demo.BuildTemp(context.Background())
}

// parseBaseURL checks -base-url, defaulting to the listen address.
func parseBaseURL(raw, addr string) (*url.URL, error) {
	if raw == "" {
		raw = "http://" + addr
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("-base-url %q: want an absolute http(s) URL such as https://radio.example.org", raw)
	}
	return u, nil
}

// openIndex opens the index to serve first. query.Open verifies the page
// tree and every bucket's checksum, which refuses any damaged file in one
// read of it (milliseconds for the real snapshot, under a second at 5M
// stations); -check-on-start adds the full decode of stationdex check,
// which at millions of stations takes longer than a restart should.
func openIndex(path string, check bool) (*query.Index, error) {
	if check {
		return node.OpenChecked(path)
	}
	return query.Open(path)
}

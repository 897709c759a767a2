package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"stationdex/indexer"
	"stationdex/internal/format"
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
	follow                       followFlags
}

func parseServeFlags(args []string, stdout, stderr io.Writer) (serveFlags, error) {
	var f serveFlags
	fs := newFlagSet("serve", stderr)
	fs.StringVar(&f.index, "index", "", "index file to serve; SIGHUP reloads it (default: build and serve the embedded demo snapshot)")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "public listen address")
	fs.StringVar(&f.base, "base-url", "", "public base URL of the service (default: http://ADDR, with 127.0.0.1 for an -addr without a host or with every interface)")
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
		"without it the page tree and the checksums of the buckets the engine reads are verified before the first answer, which refuses a damaged, truncated or foreign file, "+
		"and those of the buckets only copied to clients (station JSON, data files) right after, withdrawing the index (503) if they fail")
	f.follow.register(fs)
	fs.BoolVar(&f.allowUnready, "allow-unready", false, "start even when -index cannot be served, answering 503 (and /readyz 503) until SIGHUP or -watch loads a good file")
	if err := parseCommand(fs, serveHelp, args, stdout, stderr); err != nil {
		return f, err
	}
	if f.maxInFlight == 0 {
		f.maxInFlight = node.DefaultMaxInFlight // what node.Config does with 0, said once here for the metric
	}
	if err := f.check(fs.Args()); err != nil {
		serveHelp.usageError(stderr, fs, err.Error())
		return f, err
	}
	return f, nil
}

// check refuses values no node can run with; the arguments left after
// the flags must be none.
func (f *serveFlags) check(rest []string) error {
	switch {
	case len(rest) > 0:
		return fmt.Errorf("unexpected argument %q", rest[0])
	case f.watch < 0 || f.drainTimeout <= 0:
		return errors.New("-watch must not be negative and -drain-timeout must be positive")
	case f.cacheBytes < 0:
		return errors.New("-cache-bytes must not be negative (0 disables the cache)")
	case f.cacheMinUses != 1 && f.cacheMinUses != 2:
		return fmt.Errorf("-cache-min-uses must be 1 or 2; got %d", f.cacheMinUses)
	}
	if err := f.follow.check(f.index); err != nil {
		return err
	}
	_, err := newBaseURLPlan(f.base, f.addr)
	return err
}

// runServe implements `stationdex serve`: 0 after a stop by SIGTERM/SIGINT,
// 1 when serving fails, 2 on bad flags.
func runServe(args []string, stdout, stderr io.Writer) int {
	f, err := parseServeFlags(args, stdout, stderr)
	if err != nil {
		return exitStatus(err)
	}
	log, err := newLogger(stderr, f.logFormat, f.logLevel)
	if err != nil {
		fmt.Fprintln(stderr, "stationdex serve:", err)
		return 2
	}
	slog.SetDefault(log)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	// After the first signal, restore the default action: a second Ctrl-C
	// or SIGTERM during the drain ends the process at once.
	context.AfterFunc(ctx, stop)
	if err := serve(ctx, f, log); err != nil {
		reportServeError(ctx, stderr, f, log, err)
		return 1
	}
	log.Info("stopped")
	return 0
}

// reportServeError tells why serve stopped: a failure the user can act on
// as a sentence and the next step (also logged for a JSON log pipeline),
// a Ctrl-C as "interrupted", anything else as a log line.
func reportServeError(ctx context.Context, stderr io.Writer, f serveFlags, log *slog.Logger, err error) {
	var ae *adviceError
	switch {
	case errors.As(err, &ae):
		if f.logFormat == "json" {
			log.Error("serve failed", "err", ae.msg, "advice", ae.advice)
		}
		ae.print(stderr, "serve")
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "stationdex serve: interrupted before it served")
	default:
		log.Error("serve failed", "err", err)
	}
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
	base, err := newBaseURLPlan(f.base, f.addr)
	if err != nil {
		return err
	}
	path, cleanup, err := indexFile(f.index)
	if err != nil {
		return err
	}
	defer cleanup()
	ix, err := openIndex(path, f.checkOnStart)
	if err != nil && !f.allowUnready && !f.follow.on() {
		if f.index != "" {
			return indexFileError(f.index, "-index", err)
		}
		return err
	}
	var meta format.Meta // zero while unready
	if ix == nil {
		log.Error("index not loaded: answering 503 until a reload succeeds (-allow-unready)", "path", path, "err", err)
	} else {
		meta = ix.Meta()
	}
	holder := query.NewHolder(nil) // ix goes in once the metrics can hear of it (serveOn)
	defer holder.Close()
	// Bound before the handler is built: with -addr :0 (or any port the
	// system picks) the base URL's port is known only now.
	ln, err := net.Listen("tcp", f.addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return &adviceError{fmt.Sprintf("the address %s (-addr) is in use by another program", f.addr),
			"Pick another: pass another -addr, e.g. -addr 127.0.0.1:8081 (make run ADDR=127.0.0.1:8081)."}
	}
	if err != nil {
		return &adviceError{fmt.Sprintf("cannot listen on %s (-addr): %s", f.addr, reason(err, "")),
			"Pass another -addr, e.g. -addr 127.0.0.1:8081."}
	}
	baseURL := base.resolve(ln.Addr())
	if base.everyInterface {
		log.Warn("listening on every interface; links name the loopback address: pass -base-url with the address clients use",
			"addr", ln.Addr().String(), "base_url", baseURL.String())
	}
	return serveOn(ctx, f, log, ln, baseURL, servedIndex{path, holder, meta, ix})
}

// servedIndex is the index a node starts with: its file, the holder that
// reloads swap, and its meta (zero while unready).
type servedIndex struct {
	path   string
	holder *query.Holder
	meta   format.Meta
	ix     *query.Index // nil: none loaded
}

// serveOn builds the API and the node on a bound public listener and
// serves until ctx is done.
func serveOn(ctx context.Context, f serveFlags, log *slog.Logger, ln net.Listener, baseURL *url.URL, si servedIndex) error {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		_ = ln.Close()
		if si.ix != nil {
			_ = si.ix.Close() // not in the holder yet; the metrics error is the one worth reporting
		}
		return err
	}
	si.holder.OnWithdrawn(func(_ *query.Index, err error) {
		m.ClearIndex()
		log.Error("index damaged: answering 503 until a reload succeeds", "err", err)
	})
	if si.ix != nil {
		m.SetIndex(si.meta)
		si.holder.Swap(si.ix) // then the holder verifies what openIndex left, and warms it
	}
	m.SetInFlightLimit(f.maxInFlight)
	api := server.New(server.Config{BaseURL: baseURL, Observer: m, Logger: log, CacheBytes: configCacheBytes(f.cacheBytes), CacheMinUses: f.cacheMinUses}, si.holder)
	m.SetResponseCache(func() metrics.CacheStats { return metrics.CacheStats(api.CacheStats()) })
	defer func() {
		if err := api.Close(); err != nil {
			log.Warn("remove rewritten dumps", "err", err)
		}
	}()
	n := node.New(node.Config{
		Listener: ln, AdminAddr: f.adminAddr,
		Handler: api.Handler(), Shed: server.Shed(), Source: si.holder, Gatherer: reg, Load: m,
		MaxInFlight: f.maxInFlight, DrainTimeout: f.drainTimeout,
		AccessLog: f.accessLog, Logger: log,
	})
	if err := n.Listen(); err != nil {
		return err
	}
	logStartup(log, f, n, baseURL, si.path, si.meta)
	r := node.NewReloader(si.path, si.holder, purgeOnSwap{m, api}, log)
	startReloading(ctx, f, r, log)
	followed, err := startFollowing(ctx, f.follow, r, reg, baseURL, log)
	if err != nil {
		return err
	}
	defer followed()
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
	return indexer.BuildDemoTemp(context.Background())
}

// parseBaseURL checks an explicit -base-url.
func parseBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("-base-url %q: want an absolute http(s) URL such as https://radio.example.org", raw)
	}
	return u, nil
}

// baseURLPlan is the public base URL decided before listening: an
// explicit -base-url, or one derived from -addr whose port is read from
// the bound listener (so -addr :0 links to the port the system chose).
type baseURLPlan struct {
	explicit *url.URL
	// host is the derived URL's host: -addr's, or the loopback address
	// where -addr names no host or every interface (":8080", "0.0.0.0:8080",
	// "[::]:8080"), which no browser can follow.
	host           string
	everyInterface bool
}

func newBaseURLPlan(raw, addr string) (baseURLPlan, error) {
	if raw != "" {
		u, err := parseBaseURL(raw)
		return baseURLPlan{explicit: u}, err
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return baseURLPlan{}, fmt.Errorf("-addr %q: want HOST:PORT such as 127.0.0.1:8080 or :8080", addr)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		return baseURLPlan{host: "127.0.0.1", everyInterface: true}, nil
	}
	return baseURLPlan{host: host}, nil
}

// resolve gives the base URL for the address the node is bound to.
func (p baseURLPlan) resolve(bound net.Addr) *url.URL {
	if p.explicit != nil {
		return p.explicit
	}
	port := "80"
	if tcp, ok := bound.(*net.TCPAddr); ok {
		port = strconv.Itoa(tcp.Port)
	}
	return &url.URL{Scheme: "http", Host: net.JoinHostPort(p.host, port)}
}

// openIndex opens the index to serve first. query.OpenServing verifies
// the page tree and the checksum of every bucket the engine reads, which
// refuses a damaged file before it answers; the buckets it only copies to
// clients (the station JSON and the data files, two thirds of a large
// file) are summed by the holder once the node answers, and damage found
// there withdraws the index (query.Holder.OnWithdrawn): the node answers
// 503, and /readyz says so, until a reload or -follow brings a good file,
// as when it starts without one. -check-on-start adds the full decode of
// stationdex check, which at millions of stations takes longer than a
// restart should.
func openIndex(path string, check bool) (*query.Index, error) {
	if check {
		return node.OpenChecked(path)
	}
	return query.OpenServing(path)
}

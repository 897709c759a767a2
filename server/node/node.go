// Package node runs one stationdex process on the network: the public
// listener behind an in-flight limit, the admin listener (metrics, health,
// readiness, pprof), the graceful stop, and the Reloader that swaps index
// files. It does not speak the API: the public handler and the answer to a
// shed request come from package server through Config, and the index being
// served is only looked at for readiness, through a query.Source.
//
// File map:
//   - node.go: Node and Config: the public and admin servers, their
//     timeouts, Listen, Serve, readiness and the graceful stop
//   - limit.go: the in-flight limiter in front of the public handler,
//     which sheds the request over the bound at once instead of queueing it
//   - access.go: the optional access log, a line per public request
//   - admin.go: the admin mux: /healthz, /readyz, metrics and pprof,
//     apart so that it can be bound to a private address
//   - reload.go: the Reloader, which checks an index file in full and
//     swaps it in on SIGHUP, when the file changes or when a follower
//     installs a new one (Install), and OpenChecked
package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"stationdex/query"
	"stationdex/server/wire"
)

// A Node is one running stationdex process seen from the network. It owns
// the HTTP servers' timeouts and the graceful stop; the index it serves
// comes from a query.Source (a query.Holder that a Reloader swaps).
type Node struct {
	cfg      Config
	log      *slog.Logger
	public   *http.Server
	admin    *http.Server
	limit    *limiter
	draining atomic.Bool
	ln       net.Listener // public, set by Listen
	adminLn  net.Listener // admin, nil without AdminAddr
}

// Config configures a Node. Zero values take the defaults below.
type Config struct {
	Addr      string // public address, HOST:PORT (":0" in tests)
	AdminAddr string // admin address; "": no admin listener
	// Listener, when set, is the public listener already bound (the
	// command binds it first to build its base URL on the port it got);
	// Addr is then unused. The node closes it.
	Listener net.Listener

	Handler  http.Handler        // the public API (server.Server.Handler)
	Shed     http.Handler        // answers a request over MaxInFlight; nil: a plain 503
	Source   query.Source        // the index being served, for /readyz
	Gatherer prometheus.Gatherer // what /metrics exposes; nil: no /metrics
	Load     LoadObserver        // in-flight and shed counts; nil: none

	// MaxInFlight bounds the requests answered at once on the public
	// port; one more is refused at once with 503 and Retry-After. 0 means
	// DefaultMaxInFlight; negative means no bound.
	MaxInFlight int
	// DrainTimeout bounds the wait for in-flight requests on stop; 0 means
	// DefaultDrainTimeout.
	DrainTimeout time.Duration
	// Timeouts of the public server; zero fields take DefaultTimeouts.
	Timeouts Timeouts
	// AccessLog logs every public request at Info level.
	AccessLog bool
	Logger    *slog.Logger // nil: slog.Default()
}

// LoadObserver is told when the limiter admits, finishes or sheds a
// request; package metrics implements it.
type LoadObserver interface {
	RequestStarted()
	RequestDone()
	Shed()
}

// Timeouts are the deliberate limits of the public HTTP server.
type Timeouts struct {
	ReadHeader time.Duration
	Read       time.Duration
	Write      time.Duration
	Idle       time.Duration
	// MaxHeaderBytes bounds the request line and headers together.
	MaxHeaderBytes int
}

// DefaultTimeouts: every answer is a GET without a body computed in
// milliseconds from a memory-mapped file, so anything slow is a slow or
// hostile client.
//   - ReadHeader 5s: a client gets that long to send its request line and
//     headers, which is what stops slowloris-style connection hoarding.
//   - Read 10s: there is no request body to wait for beyond the headers.
//   - Write 15s: a 50-station page is tens of kilobytes; a client that
//     does not take each 256 KiB of an answer within 15s (at least
//     11.25s: the deadline is the connection's own, see wire.Conn) is
//     dropped rather than holding a goroutine, while a slow link that
//     keeps reading gets a whole data dump of tens of megabytes.
//   - Idle 120s: longer than the usual 60s idle timeout of load balancers,
//     so the balancer closes a keep-alive connection first and never sends
//     a request into one the node is closing.
//   - MaxHeaderBytes 16 KiB: requests are a short query string and a few
//     headers; net/http's 1 MiB default only invites abuse.
var DefaultTimeouts = Timeouts{
	ReadHeader:     5 * time.Second,
	Read:           10 * time.Second,
	Write:          15 * time.Second,
	Idle:           120 * time.Second,
	MaxHeaderBytes: 16 << 10,
}

// Defaults of Config.
const (
	// DefaultMaxInFlight: answers take well under a millisecond of CPU, so
	// 256 concurrent requests are a deep queue on a few cores already;
	// beyond that, latency only grows and shedding is kinder.
	DefaultMaxInFlight = 256
	// DefaultDrainTimeout is below Kubernetes' default 30s grace period,
	// so the node finishes its own drain before it is killed.
	DefaultDrainTimeout = 20 * time.Second
	// adminWriteTimeout is long because /debug/pprof/profile and /trace
	// stream for ?seconds= (30 by default) before writing.
	adminWriteTimeout = 2 * time.Minute
	// adminStopTimeout bounds the admin server's stop after the drain.
	adminStopTimeout = 2 * time.Second
)

// Readiness answers of a node that should not receive traffic.
var (
	errDraining = errors.New("draining: the node is stopping")
	errNoIndex  = errors.New("no index is loaded yet")
)

// New builds a node; Listen and Serve run it.
func New(cfg Config) *Node {
	cfg = withDefaults(cfg)
	n := &Node{cfg: cfg, log: cfg.Logger}
	n.limit = newLimiter(cfg.MaxInFlight, cfg.Load, cfg.Shed, cfg.Handler)
	var public http.Handler = n.limit
	if cfg.AccessLog {
		public = accessLog(n.log, public)
	}
	n.public = newPublicServer(cfg.Timeouts, public, n.log)
	if cfg.AdminAddr != "" {
		n.admin = newAdminServer(AdminHandler(AdminConfig{Gatherer: cfg.Gatherer, Ready: n.Ready}), n.log)
	}
	return n
}

func withDefaults(cfg Config) Config {
	if cfg.MaxInFlight == 0 {
		cfg.MaxInFlight = DefaultMaxInFlight
	}
	if cfg.DrainTimeout <= 0 {
		cfg.DrainTimeout = DefaultDrainTimeout
	}
	cfg.Timeouts = cfg.Timeouts.withDefaults()
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return cfg
}

func (t Timeouts) withDefaults() Timeouts {
	d := DefaultTimeouts
	if t.ReadHeader > 0 {
		d.ReadHeader = t.ReadHeader
	}
	if t.Read > 0 {
		d.Read = t.Read
	}
	if t.Write > 0 {
		d.Write = t.Write
	}
	if t.Idle > 0 {
		d.Idle = t.Idle
	}
	if t.MaxHeaderBytes > 0 {
		d.MaxHeaderBytes = t.MaxHeaderBytes
	}
	return d
}

func newPublicServer(t Timeouts, h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		// No WriteTimeout: t.Write is the connections' own (Serve's
		// wire.Listener), which bounds every write as net/http's did
		// without moving the socket's deadline twice per request.
		IdleTimeout:    t.Idle,
		MaxHeaderBytes: t.MaxHeaderBytes,
		ErrorLog:       slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		// With Serve's wire.Listener: lets the server send a response in
		// one write (package wire).
		ConnContext: wire.ConnContext,
	}
}

func newAdminServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: DefaultTimeouts.ReadHeader,
		ReadTimeout:       DefaultTimeouts.Read,
		WriteTimeout:      adminWriteTimeout,
		IdleTimeout:       DefaultTimeouts.Idle,
		MaxHeaderBytes:    DefaultTimeouts.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// Listen binds the public and admin addresses, so that an address in use
// fails start-up before anything is served, and so that tests can listen
// on ":0" and read the port back with Addr.
func (n *Node) Listen() error {
	ln, err := n.publicListener()
	if err != nil {
		return err
	}
	if n.admin == nil {
		n.ln = ln
		return nil
	}
	adminLn, err := net.Listen("tcp", n.cfg.AdminAddr)
	if err != nil {
		_ = ln.Close()
		return fmt.Errorf("listen on admin address %s: %w", n.cfg.AdminAddr, err)
	}
	n.ln, n.adminLn = ln, adminLn
	return nil
}

func (n *Node) publicListener() (net.Listener, error) {
	if n.cfg.Listener != nil {
		return n.cfg.Listener, nil
	}
	ln, err := net.Listen("tcp", n.cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", n.cfg.Addr, err)
	}
	return ln, nil
}

// Addr is the bound public address (after Listen).
func (n *Node) Addr() net.Addr { return addrOf(n.ln) }

// AdminAddr is the bound admin address, nil without one.
func (n *Node) AdminAddr() net.Addr { return addrOf(n.adminLn) }

func addrOf(ln net.Listener) net.Addr {
	if ln == nil {
		return nil
	}
	return ln.Addr()
}

// Ready is the readiness check behind /readyz: an index is open and being
// served, and the node is not stopping.
func (n *Node) Ready() error {
	if n.draining.Load() {
		return errDraining
	}
	if n.cfg.Source == nil {
		return errNoIndex
	}
	ix, release := n.cfg.Source.Acquire()
	if release != nil {
		defer release()
	}
	if ix == nil {
		return errNoIndex
	}
	return nil
}

// InFlight is the number of public requests being answered.
func (n *Node) InFlight() int { return n.limit.inFlight() }

// Serve serves until ctx is cancelled (SIGTERM or SIGINT in the command),
// then stops gracefully: readiness turns to 503, the public listener stops
// accepting, in-flight requests get DrainTimeout to finish, and the admin
// listener stops last so the drain can be watched. It returns nil after a
// stop asked for through ctx, including one whose drain ran out of time
// (the connections still open are then closed and a warning is logged),
// and an error when a listener fails on its own. Listen must come first.
func (n *Node) Serve(ctx context.Context) error {
	if n.ln == nil {
		return errors.New("serve: Listen was not called")
	}
	failed := make(chan error, 2)
	go n.serveOne(n.public, wire.Listener(n.ln, n.cfg.Timeouts.Write), "public", failed)
	if n.admin != nil {
		go n.serveOne(n.admin, n.adminLn, "admin", failed)
	}
	select {
	case <-ctx.Done():
		n.stop()
		return nil
	case err := <-failed:
		n.stop()
		return err
	}
}

func (n *Node) serveOne(s *http.Server, ln net.Listener, name string, failed chan<- error) {
	if err := s.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		failed <- fmt.Errorf("%s listener: %w", name, err)
	}
}

// stop drains the public server within DrainTimeout, then stops the admin
// server.
func (n *Node) stop() {
	n.draining.Store(true)
	start := time.Now()
	n.log.Info("draining", "in_flight", n.InFlight(), "timeout", n.cfg.DrainTimeout)
	ctx, cancel := context.WithTimeout(context.Background(), n.cfg.DrainTimeout)
	defer cancel()
	if err := n.public.Shutdown(ctx); err != nil {
		n.log.Warn("drain timed out; closing the remaining connections",
			"in_flight", n.InFlight(), "timeout", n.cfg.DrainTimeout)
		_ = n.public.Close()
	} else {
		n.log.Info("drained", "took", time.Since(start).Round(time.Millisecond))
	}
	n.stopAdmin()
}

func (n *Node) stopAdmin() {
	if n.admin == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), adminStopTimeout)
	defer cancel()
	if err := n.admin.Shutdown(ctx); err != nil {
		_ = n.admin.Close()
	}
}

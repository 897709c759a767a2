// Package nodetest starts a real node on loopback for tests: the public
// and admin listeners, a query.Holder, a Reloader and metrics on a fresh
// registry, all stopped when the test ends. The node, server, hostile-request
// and monitoring tests share it, so a node under test is wired as the
// command wires one.
package nodetest

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"stationdex/indexer"
	"stationdex/metrics"
	"stationdex/query"
	"stationdex/server"
	"stationdex/server/node"
)

// Host is the host of the base URL the API server is configured with.
const Host = "stationdex.test"

// Options shape the node; the zero value serves the demo snapshot.
type Options struct {
	Path         string                          // index file to serve; "": the demo snapshot in a temporary directory
	NoIndex      bool                            // start with no index loaded (Path is still the Reloader's)
	Handler      http.Handler                    // public handler; nil: the API server over the holder
	Wrap         func(http.Handler) http.Handler // wraps the public handler, e.g. to add service time
	Timeouts     node.Timeouts
	MaxInFlight  int
	DrainTimeout time.Duration
}

// Node is a running node and what it was built from.
type Node struct {
	*node.Node
	Holder   *query.Holder
	Reloader *node.Reloader
	Metrics  *metrics.Metrics
	Registry *prometheus.Registry
	Path     string // the index file served and reloaded
	Base     string // http://127.0.0.1:port of the public listener
	Admin    string // http://127.0.0.1:port of the admin listener

	cancel context.CancelFunc
	done   chan error
	once   sync.Once
	err    error
}

// Start builds and runs a node until the test ends.
func Start(t testing.TB, o Options) *Node {
	t.Helper()
	n := &Node{Registry: prometheus.NewRegistry(), Path: o.Path, done: make(chan error, 1)}
	if n.Path == "" {
		path, err := indexer.BuildDemo(context.Background(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		n.Path = path
	}
	m, err := metrics.New(n.Registry)
	if err != nil {
		t.Fatal(err)
	}
	n.Metrics = m
	n.Holder = query.NewHolder(nil)
	if !o.NoIndex {
		n.load(t)
	}
	log := logger()
	n.Reloader = node.NewReloader(n.Path, n.Holder, m, log)
	n.Node = node.New(node.Config{
		Addr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0",
		Handler: n.handler(t, o, log), Shed: server.Shed(), Source: n.Holder,
		Gatherer: n.Registry, Load: m, Logger: log, Timeouts: o.Timeouts,
		MaxInFlight: o.MaxInFlight, DrainTimeout: o.DrainTimeout,
	})
	limit := o.MaxInFlight
	if limit == 0 {
		limit = node.DefaultMaxInFlight // what node.Config does with 0
	}
	m.SetInFlightLimit(limit)
	n.serve(t)
	return n
}

func (n *Node) load(t testing.TB) {
	ix, err := query.Open(n.Path)
	if err != nil {
		t.Fatal(err)
	}
	n.Holder.Swap(ix)
	n.Metrics.SetIndex(ix.Meta())
}

func (n *Node) handler(t testing.TB, o Options, log *slog.Logger) http.Handler {
	h := o.Handler
	if h == nil {
		base := &url.URL{Scheme: "http", Host: Host}
		api := server.New(server.Config{BaseURL: base, Observer: n.Metrics, Logger: log}, n.Holder)
		t.Cleanup(func() {
			if err := api.Close(); err != nil {
				t.Errorf("close server: %v", err)
			}
		})
		h = api.Handler()
	}
	if o.Wrap != nil {
		h = o.Wrap(h)
	}
	return h
}

func (n *Node) serve(t testing.TB) {
	t.Helper()
	if err := n.Listen(); err != nil {
		t.Fatal(err)
	}
	n.Base = "http://" + n.Addr().String()
	n.Admin = "http://" + n.AdminAddr().String()
	ctx, cancel := context.WithCancel(context.Background())
	n.cancel = cancel
	go func() { n.done <- n.Serve(ctx) }()
	t.Cleanup(func() {
		n.Stop()
		if err := n.Wait(); err != nil {
			t.Errorf("node stopped with %v", err)
		}
		n.Holder.Close()
	})
}

// Stop asks the node to stop, as SIGTERM does, and returns at once; Wait
// sees the end of the drain.
func (n *Node) Stop() { n.cancel() }

// Wait waits for Serve to return and returns its result; calling it again
// returns the same result.
func (n *Node) Wait() error {
	n.once.Do(func() { n.err = <-n.done })
	return n.err
}

// logger discards the node's log lines unless the test runs with -v.
func logger() *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

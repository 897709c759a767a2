package node

import (
	"errors"
	"net/http"
	"net/http/pprof"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// AdminConfig configures the admin handler.
type AdminConfig struct {
	// Gatherer is the registry /metrics exposes.
	Gatherer prometheus.Gatherer
	// Ready reports whether the node should receive traffic: nil when an
	// index is open and serving, else the reason it is not. nil Ready: the
	// node is never ready.
	Ready func() error
}

// AdminHandler serves the operator endpoints on their own mux, so that they
// can be bound to a private address (-admin-addr) and never answer on the
// public port:
//
//	/metrics        Prometheus exposition (OpenMetrics on request, which
//	                carries native histograms; protobuf too)
//	/healthz        200 while the process can answer at all (liveness)
//	/readyz         200 only when an index is open and serving, else 503
//	                (readiness: load balancers stop sending traffic)
//	/debug/pprof/   net/http/pprof
func AdminHandler(cfg AdminConfig) http.Handler {
	mux := http.NewServeMux()
	if cfg.Gatherer != nil {
		mux.Handle("GET /metrics", promhttp.HandlerFor(cfg.Gatherer, promhttp.HandlerOpts{
			EnableOpenMetrics: true,
			// A collector failing must not hide every other series.
			ErrorHandling: promhttp.ContinueOnError,
		}))
	}
	mux.HandleFunc("GET /healthz", healthz)
	mux.Handle("GET /readyz", readyz(cfg.Ready))
	registerPprof(mux)
	return mux
}

// healthz answers as long as the process can serve HTTP at all. It does not
// look at the index: a node without an index is alive but not ready, and
// restarting it would not bring one.
func healthz(w http.ResponseWriter, _ *http.Request) {
	plain(w, http.StatusOK, "ok\n")
}

func readyz(ready func() error) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		err := errNotReadyNoCheck
		if ready != nil {
			err = ready()
		}
		if err != nil {
			plain(w, http.StatusServiceUnavailable, "not ready: "+err.Error()+"\n")
			return
		}
		plain(w, http.StatusOK, "ready\n")
	}
}

var errNotReadyNoCheck = errors.New("no readiness check configured")

func plain(w http.ResponseWriter, status int, body string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

// registerPprof mounts net/http/pprof on mux. The package's init also
// registers on http.DefaultServeMux; nothing in stationdex serves that mux
// (the public handler is the server's own router), so the profiles are
// reachable only here, on the admin address.
func registerPprof(mux *http.ServeMux) {
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
}

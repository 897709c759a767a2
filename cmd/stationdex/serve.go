package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"stationdex/indexer/demo"
	"stationdex/query"
	"stationdex/server"
)

// runServe implements `stationdex serve`.
func runServe(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	indexPath := fs.String("index", "", "index file to serve (default: build and serve the embedded demo snapshot)")
	addr := fs.String("addr", "127.0.0.1:8080", "public listen address")
	base := fs.String("base-url", "", "public base URL of the service (default: http://ADDR)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	baseURL, err := parseBaseURL(*base, *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "stationdex serve:", err)
		return 2
	}
	path, cleanup, err := indexFile(*indexPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "stationdex serve:", err)
		return 1
	}
	defer cleanup()
	ix, err := query.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "stationdex serve:", err)
		return 1
	}
	holder := query.NewHolder(ix)
	defer holder.Close()

	srv := server.New(server.Config{BaseURL: baseURL}, holder)
	httpSrv := &http.Server{Addr: *addr, Handler: srv.Handler(), ReadHeaderTimeout: 5 * time.Second}
	meta := ix.Meta()
	slog.Info("serving", "addr", *addr, "base_url", baseURL.String(), "stations", meta.Stations,
		"snapshot_at", meta.SnapshotAt.Format(time.RFC3339), "source", meta.Source)
	return listenUntilSignal(httpSrv)
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

func listenUntilSignal(httpSrv *http.Server) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- httpSrv.ListenAndServe() }()
	select {
	case err := <-errc:
		fmt.Fprintln(os.Stderr, "stationdex serve:", err)
		return 1
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := httpSrv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "stationdex serve: shutdown:", err)
		return 1
	}
	return 0
}

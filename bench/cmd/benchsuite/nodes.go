package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// servers starts the HTTP servers the stages load, each a child on a free
// loopback port: stationdex's node and the ceiling, and profiles the node
// through its admin listener.
type servers struct {
	procs *procs
	dir   dirs
}

// ours starts `stationdex serve` on a free loopback port and waits for
// the first answered search; it returns the time from exec to that answer.
func (sv servers) ours(idx string, extra ...string) (*server, time.Duration, error) {
	port, err := freePort()
	if err != nil {
		return nil, 0, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	t0 := time.Now()
	args := append([]string{"serve", "-index", idx, "-addr", addr, "-base-url", "http://" + addr}, extra...)
	srv, err := sv.procs.start(sv.dir.bin("stationdex"), args...)
	if err != nil {
		return nil, 0, err
	}
	srv.addr = addr
	d, err := waitFirst(srv, "http://"+addr+"/api/stations?q=radio&limit=20", t0, 15*time.Minute)
	if err != nil {
		srv.stop()
		return nil, 0, fmt.Errorf("stationdex serve: %w\n%s", err, lastLines(srv.out.String(), 20))
	}
	return srv, d, nil
}

// ceiling starts the do-nothing server answering a fixed body of size
// bytes, and returns its base URL once it answers.
func (sv servers) ceiling(size int) (*server, string, error) {
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	ceil, err := sv.procs.start(sv.dir.bin("ceiling"), "-addr", strings.TrimPrefix(url, "http://"), "-size", strconv.Itoa(size))
	if err != nil {
		return nil, "", err
	}
	if _, err := waitFirst(ceil, url+"/", time.Now(), 10*time.Second); err != nil {
		ceil.stop()
		return nil, "", fmt.Errorf("ceiling: %w", err)
	}
	return ceil, url, nil
}

// profile takes a CPU profile of our server through its admin listener
// for secs seconds (at least one) while wrk loads it, keeps it in
// raw/file and returns the top of `go tool pprof -top -cum`.
func (sv servers) profile(admin string, secs int, file string) (string, error) {
	secs = max(1, secs)
	client := &http.Client{Timeout: time.Duration(secs+30) * time.Second}
	resp, err := client.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", admin, secs))
	if err != nil {
		return "", fmt.Errorf("server profile: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		return "", fmt.Errorf("server profile: status %d, %v", resp.StatusCode, err)
	}
	path := filepath.Join(sv.dir.raw, file)
	if err := os.WriteFile(path, body, 0o644); err != nil {
		return "", err
	}
	out, err := pprofCommand("-top", "-cum", "-nodecount=35", sv.dir.bin("stationdex"), path).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go tool pprof: %w\n%s", err, out)
	}
	return string(out), nil
}

// hasServeFlag reports whether `stationdex serve` knows a flag.
func (sv servers) hasServeFlag(name string) bool {
	out, _ := exec.Command(sv.dir.bin("stationdex"), "serve", "-h").CombinedOutput()
	return strings.Contains(string(out), "-"+name)
}

var pollClient = &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

// waitFirst polls url until it answers 200, returning the time since t0.
func waitFirst(srv *server, url string, t0 time.Time, limit time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
		resp, err := pollClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return time.Since(t0), nil
			}
		}
		if srv.cmd.ProcessState != nil {
			return 0, fmt.Errorf("server exited")
		}
		if ctx.Err() != nil {
			return 0, fmt.Errorf("no answer within %s (last: %v)", limit, err)
		}
		time.Sleep(500 * time.Microsecond)
	}
}

// get asks for url with the given request headers and reads the whole
// body.
func get(client *http.Client, url string, header http.Header) (*http.Response, []byte, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return nil, nil, err
	}
	maps.Copy(req.Header, header)
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

// freeAddr is a free loopback address, for a listener of a child.
func freeAddr() (string, error) {
	port, err := freePort()
	return fmt.Sprintf("127.0.0.1:%d", port), err
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

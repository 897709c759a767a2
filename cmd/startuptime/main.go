// Command startuptime measures how long `stationdex serve` takes from exec
// to its first answered request: it starts the server on a free loopback
// port, polls a URL until it answers 200, stops the server and repeats.
//
//	go run ./cmd/startuptime -bin bin/stationdex -index data/stations.db -runs 5
//
// It prints every run and the best and median times. Timing is the point of
// this program, so it is a tool to run by hand (make startup-time), never a
// test: on a shared machine the figures vary with the load.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

func main() {
	bin := flag.String("bin", "bin/stationdex", "stationdex binary")
	index := flag.String("index", "data/stations.db", "index file to serve")
	runs := flag.Int("runs", 5, "number of starts to time")
	path := flag.String("path", "/api/stations?q=radio&limit=1", "request to poll until it answers 200")
	timeout := flag.Duration("timeout", 5*time.Minute, "give up on a start after this long")
	extra := flag.String("args", "", "further serve flags, space-separated")
	flag.Parse()
	var times []time.Duration
	for i := range *runs {
		d, err := startOnce(*bin, *index, *path, *extra, *timeout)
		if err != nil {
			fmt.Fprintln(os.Stderr, "startuptime:", err)
			os.Exit(1)
		}
		fmt.Printf("run %d: %.1f ms\n", i+1, float64(d.Microseconds())/1000)
		times = append(times, d)
	}
	slices.Sort(times)
	fmt.Printf("exec to first 200: best %.1f ms, median %.1f ms over %d runs (%s)\n",
		ms(times[0]), ms(times[len(times)/2]), len(times), *index)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// startOnce execs the server and polls until the first 200.
func startOnce(bin, index, path, extra string, timeout time.Duration) (time.Duration, error) {
	addr, err := freeAddr()
	if err != nil {
		return 0, err
	}
	args := []string{"serve", "-index", index, "-addr", addr}
	args = append(args, strings.Fields(extra)...)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Signal(os.Interrupt) // gone already: nothing to stop
		}
		<-exited
	}()
	client := &http.Client{Timeout: time.Second}
	url := "http://" + addr + path
	for {
		resp, err := client.Get(url)
		if err == nil {
			_ = resp.Body.Close() // only the status matters
			if resp.StatusCode == http.StatusOK {
				return time.Since(start), nil
			}
			return 0, fmt.Errorf("%s answered %s", url, resp.Status)
		}
		select {
		case err := <-exited:
			exited <- err // for the deferred wait
			return 0, fmt.Errorf("server exited before answering (%v); run it by hand to see why", err)
		case <-ctx.Done():
			return 0, fmt.Errorf("no answer from %s within %s", url, timeout)
		case <-time.After(time.Millisecond):
		}
	}
}

// freeAddr returns a loopback address nobody listens on right now.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	return addr, l.Close()
}

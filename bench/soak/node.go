package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// node is the `stationdex serve` process under test.
type node struct {
	cmd         *exec.Cmd
	addr, admin string // host:port of the public and admin listeners
	done        chan error
}

// startNode starts the binary on loopback ports of its choosing and waits
// for its "serving" log line, which names them.
func startNode(bin, index string, cacheBytes int64) (*node, error) {
	args := []string{"serve", "-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0", "-log-format", "json",
		"-cache-bytes", strconv.FormatInt(cacheBytes, 10),
		// Store every answer: the soak is about the bound under the
		// worst case, each distinct search stored and evicting another
		// (the default, 2, would store none of a cold stream).
		"-cache-min-uses", "1"}
	if index != "" {
		args = append(args, "-index", index)
	}
	n := &node{cmd: exec.Command(bin, args...), done: make(chan error, 1)}
	stderr, err := n.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := n.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	serving := make(chan map[string]any, 1)
	go func() {
		n.readLog(stderr, serving)
		n.done <- n.cmd.Wait()
	}()
	select {
	case line := <-serving:
		n.addr, _ = line["addr"].(string)
		n.admin, _ = line["admin_addr"].(string)
		return n, nil
	case err := <-n.done:
		return nil, fmt.Errorf("the node exited before serving: %v", err)
	case <-time.After(5 * time.Minute): // a real snapshot is checked in full first
		n.kill()
		return nil, errors.New("the node did not start serving within 5 minutes")
	}
}

// readLog passes the "serving" line on and echoes warnings and errors.
func (n *node) readLog(r io.Reader, serving chan<- map[string]any) {
	s := bufio.NewScanner(r)
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		var line map[string]any
		if json.Unmarshal(s.Bytes(), &line) != nil {
			continue
		}
		switch {
		case line["msg"] == "serving":
			serving <- line
		case line["level"] == "WARN" || line["level"] == "ERROR":
			fmt.Printf("node %s: %s\n", line["level"], s.Text())
		}
	}
}

func (n *node) pid() int { return n.cmd.Process.Pid }

// stop asks the node to drain and exit, and wants exit status 0.
func (n *node) stop() error {
	if err := n.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case err := <-n.done:
		n.done <- err
		return err
	case <-time.After(time.Minute):
		return errors.New("still running a minute after SIGTERM")
	}
}

// kill ends the node if it is still running (after a failure or Ctrl-C).
func (n *node) kill() {
	select {
	case err := <-n.done:
		n.done <- err
	default:
		_ = n.cmd.Process.Kill()
	}
}

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// dirs are where the run reads and writes.
type dirs struct {
	benchDir string // the bench module
	repo     string // the stationdex module
	work     string // generated data, indexes, binaries
	out      string // results directory
	raw      string // out/raw: logs and profiles, not committed
	snapshot string
}

// bin is the path of a program the run built.
func (d dirs) bin(name string) string { return filepath.Join(d.work, "bin", name) }

// writeLines writes lines, one a line, to raw/name (request targets for
// a wrk script) and returns its path.
func (d dirs) writeLines(name string, lines []string) (string, error) {
	path := filepath.Join(d.raw, name)
	return path, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// logger is the run's log: each line on stdout and in raw/suite.log, the
// output of children and of wrk in the file only.
type logger struct{ f *os.File }

func (l *logger) logf(format string, a ...any) {
	line := fmt.Sprintf("%s %s", time.Now().UTC().Format("15:04:05"), fmt.Sprintf(format, a...))
	fmt.Println(line)
	l.raw(line)
}

// raw writes text to the log file only; a run without one (a test)
// writes nothing.
func (l *logger) raw(text string) {
	if l != nil && l.f != nil {
		fmt.Fprintln(l.f, text)
	}
}

// procs are the children the run started, and the clean-ups of what it
// holds open in process (a MariaDB): all stopped at the end, also on
// failure or interrupt.
type procs struct {
	lg       *logger
	mu       sync.Mutex
	children []*server
	cleanups []func()
}

// start starts prog in a process group of its own and registers it.
func (p *procs) start(prog string, args ...string) (*server, error) {
	cmd := exec.Command(prog, args...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	srv := &server{cmd: cmd, out: &out}
	p.add(srv)
	return srv, nil
}

func (p *procs) add(srv *server) {
	p.mu.Lock()
	p.children = append(p.children, srv)
	p.mu.Unlock()
}

// run executes a program, returning its resource use; output goes to the log.
func (p *procs) run(prog string, args ...string) (Process, error) {
	cmd := exec.Command(prog, args...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	var hwm uint64
	err := cmd.Start()
	if err == nil {
		// Registered as a child so that an interrupt stops it too.
		p.add(&server{cmd: cmd, out: &out})
		stop := watchHighWater(cmd.Process.Pid, &hwm)
		err = cmd.Wait()
		stop()
	}
	r := Process{WallSec: time.Since(t0).Seconds()}
	if cmd.ProcessState == nil {
		return r, fmt.Errorf("%s: %w", filepath.Base(prog), err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru != nil {
		r.UserSec = time.Duration(ru.Utime.Nano()).Seconds()
		r.SysSec = time.Duration(ru.Stime.Nano()).Seconds()
		r.MaxRSSMB = float64(ru.Maxrss) / 1024 // KiB on Linux
	}
	if hwm > 0 {
		r.MaxRSSMB = float64(hwm) / 1024
	}
	p.lg.raw(fmt.Sprintf("$ %s %s\n%s", filepath.Base(prog), strings.Join(args, " "), out.String()))
	if err != nil {
		return r, fmt.Errorf("%s %s: %w\n%s", filepath.Base(prog), strings.Join(args, " "), err, lastLines(out.String(), 20))
	}
	return r, nil
}

// onCleanup registers f to run at the end, after the children stop.
func (p *procs) onCleanup(f func()) {
	p.mu.Lock()
	p.cleanups = append(p.cleanups, f)
	p.mu.Unlock()
}

// stopAll stops every child and runs the clean-ups, last registered
// first.
func (p *procs) stopAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.children {
		c.stop()
	}
	p.children = nil
	for i := len(p.cleanups) - 1; i >= 0; i-- {
		p.cleanups[i]()
	}
	p.cleanups = nil
}

// server is a child HTTP server.
type server struct {
	cmd  *exec.Cmd
	addr string
	out  *strings.Builder
}

// stop ends the child (SIGTERM, then SIGKILL after 10 s).
func (srv *server) stop() {
	if srv.cmd.Process == nil || srv.cmd.ProcessState != nil {
		return
	}
	srv.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { srv.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		srv.cmd.Process.Kill()
		<-done
	}
}

// watchHighWater polls the peak resident set (VmHWM, KiB) of process pid
// into *kib until stop is called. The rusage of a child is no measure of its
// own peak on Linux: Go starts children with vfork, and exec folds the
// parent's high-water mark (the whole suite's) into the child's ru_maxrss.
// VmHWM belongs to the child's own address space. It only grows, so the
// last reading is the peak up to the last poll before the child exits.
func watchHighWater(pid int, kib *uint64) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	path := fmt.Sprintf("/proc/%d/status", pid)
	go func() {
		defer close(finished)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			if v, ok := statusKiB(path, "VmHWM:"); ok && v > *kib {
				*kib = v
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}

// statusKiB reads one "Name:   123 kB" line of a /proc status file.
func statusKiB(path, field string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, field); ok {
			var v uint64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &v); err == nil {
				return v, true
			}
		}
	}
	return 0, false
}

// rssMB reads a process's resident set size from /proc.
func rssMB(pid int) float64 {
	kib, _ := statusKiB(fmt.Sprintf("/proc/%d/status", pid), "VmRSS:")
	return float64(kib) / 1024
}

// cpuSeconds is the user+system CPU time a process has used so far.
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // USER_HZ is 100 on Linux
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

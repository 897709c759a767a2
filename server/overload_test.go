package server_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"stationdex/server/node"
	"stationdex/server/node/nodetest"
)

// The overload tests drive a node on loopback past what it may take on, in
// bounded counts and times, and check that it sheds instead of queueing,
// keeps its admitted requests fast, and recovers; and that slow clients
// are cut off by its timeouts. Latency bounds are generous on purpose: the
// point is "bounded", on a shared machine.

const (
	// overloadCapacity is the node's in-flight bound in the test.
	overloadCapacity = 4
	// overloadService is the time each admitted request takes, so that
	// capacity is known: 4 requests per 10ms, 400 a second.
	overloadService = 10 * time.Millisecond
	// overloadClients is eight times the capacity, each sending
	// overloadRequests requests back to back.
	overloadClients  = 8 * overloadCapacity
	overloadRequests = 40
)

// admittedP99Bound: admitted requests take overloadService plus
// scheduling; a queue would make them take seconds. The race detector
// slows everything several times over.
var admittedP99Bound = map[bool]time.Duration{false: time.Second, true: 3 * time.Second}[raceDetector]

// TestOverloadSheds drives eight times the node's capacity: some requests
// must be shed at once with 503, Retry-After and a JSON body, the admitted
// ones must keep a bounded p99, nothing else may happen, and once the load
// stops every request is answered again.
func TestOverloadSheds(t *testing.T) {
	n := nodetest.Start(t, nodetest.Options{
		Timeouts: hostileTimeouts, MaxInFlight: overloadCapacity,
		Wrap: func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(overloadService)
				h.ServeHTTP(w, r)
			})
		},
	})
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: overloadClients}}
	defer client.CloseIdleConnections()
	r := drive(t, client, n.Base+"/api/stations?q=radio&limit=10")
	t.Logf("%d admitted (p99 %v), %d shed (p99 %v), %v", len(r.admitted), r.p99(r.admitted), len(r.shed), r.p99(r.shed), r.took)
	for _, f := range r.failures[:min(len(r.failures), 10)] {
		t.Error(f)
	}
	if len(r.shed) == 0 {
		t.Errorf("no request shed at %d times the capacity", overloadClients/overloadCapacity)
	}
	if len(r.admitted) == 0 {
		t.Fatal("no request admitted")
	}
	if p := r.p99(r.admitted); p > admittedP99Bound {
		t.Errorf("admitted p99 %v, bound %v: requests queue instead of being shed", p, admittedP99Bound)
	}
	if p := r.p99(r.shed); p > admittedP99Bound {
		t.Errorf("shed p99 %v: a refusal must be immediate", p)
	}
	waitIdle(t, n.Node)
	for i := range 20 {
		if code, err := statusOf(client, n.Base+"/api/stations?limit=1"); err != nil || code != http.StatusOK {
			t.Fatalf("after the load, request %d: %d %v, want 200", i, code, err)
		}
	}
}

// loadResult is what drive saw.
type loadResult struct {
	mu       sync.Mutex
	admitted []time.Duration
	shed     []time.Duration
	failures []string
	took     time.Duration
}

func (r *loadResult) p99(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)*99/100]
}

// drive sends overloadClients streams of overloadRequests requests at once.
func drive(t *testing.T, client *http.Client, url string) *loadResult {
	r := &loadResult{}
	start := time.Now()
	var wg sync.WaitGroup
	for range overloadClients {
		wg.Go(func() {
			for range overloadRequests {
				r.record(client, url)
			}
		})
	}
	wg.Wait()
	r.took = time.Since(start)
	return r
}

func (r *loadResult) record(client *http.Client, url string) {
	start := time.Now()
	resp, err := client.Get(url)
	if err != nil {
		r.fail(err.Error())
		return
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	switch {
	case err != nil:
		r.fail(err.Error())
	case resp.StatusCode == http.StatusOK:
		r.mu.Lock()
		r.admitted = append(r.admitted, d)
		r.mu.Unlock()
	case resp.StatusCode == http.StatusServiceUnavailable:
		if resp.Header.Get("Retry-After") == "" {
			r.fail("503 without Retry-After")
		}
		if err := checkJSONError(resp, body); err != nil {
			r.fail(err.Error())
		}
		r.mu.Lock()
		r.shed = append(r.shed, d)
		r.mu.Unlock()
	default:
		r.fail(fmt.Sprintf("status %d under load: %.200s", resp.StatusCode, body))
	}
}

func (r *loadResult) fail(msg string) {
	r.mu.Lock()
	r.failures = append(r.failures, msg)
	r.mu.Unlock()
}

func waitIdle(t *testing.T, n *node.Node) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for n.InFlight() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if k := n.InFlight(); k != 0 {
		t.Fatalf("%d requests still in flight after the load", k)
	}
}

// slowTimeouts are short, so slow clients are cut off in test time.
var slowTimeouts = node.Timeouts{
	ReadHeader: 300 * time.Millisecond, Read: 500 * time.Millisecond,
	Write: 500 * time.Millisecond, Idle: time.Second,
}

// slowCutoffSlack is how much longer than its timeout the server may take
// to drop a slow client on a busy machine.
const slowCutoffSlack = 2 * time.Second

// TestSlowlorisCutOff opens connections that trickle header lines, one
// every 100ms, and never finish: each is closed once ReadHeader has passed,
// and the node serves other clients meanwhile.
func TestSlowlorisCutOff(t *testing.T) {
	n := nodetest.Start(t, nodetest.Options{Timeouts: slowTimeouts})
	const conns = 20
	var wg sync.WaitGroup
	cutAfter := make(chan time.Duration, conns)
	for range conns {
		wg.Go(func() { cutAfter <- trickle(t, n.Addr().String()) })
	}
	if code, err := statusOf(http.DefaultClient, n.Base+"/api/stations?limit=1"); err != nil || code != 200 {
		t.Errorf("during the slowloris: %d %v, want 200", code, err)
	}
	wg.Wait()
	close(cutAfter)
	for d := range cutAfter {
		if d > slowTimeouts.ReadHeader+slowCutoffSlack {
			t.Errorf("a trickling connection stayed open %v; ReadHeader is %v", d, slowTimeouts.ReadHeader)
		}
	}
}

// trickle sends a request head one header line at a time and returns how
// long the server kept the connection open.
func trickle(t *testing.T, addr string) time.Duration {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Error(err)
		return 0
	}
	defer conn.Close()
	start := time.Now()
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		_, _ = io.Copy(io.Discard, conn) // returns when the server closes
	}()
	_, _ = io.WriteString(conn, "GET /api/stations HTTP/1.1\r\nHost: x\r\n")
	limit := time.After(slowTimeouts.ReadHeader + 2*slowCutoffSlack)
	for i := 0; ; i++ {
		select {
		case <-closed:
			return time.Since(start)
		case <-limit:
			return time.Since(start)
		case <-time.After(100 * time.Millisecond):
			_, _ = fmt.Fprintf(conn, "X-Trickle-%d: 1\r\n", i)
		}
	}
}

// TestSlowReaderCutOff pipelines requests for a large response and never
// reads: once the socket buffers are full the server's write blocks, and
// WriteTimeout must end the request and close the connection, so that the
// client gets far less than it asked for.
func TestSlowReaderCutOff(t *testing.T) {
	n := nodetest.Start(t, nodetest.Options{Timeouts: slowTimeouts})
	const target = "/data/stations.ndjson"
	size := contentLength(t, n.Base+target)
	conn, err := net.Dial("tcp", n.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.(*net.TCPConn).SetReadBuffer(4096)
	const requests = 400 // far more than the loopback buffers hold
	w := bufio.NewWriter(conn)
	for range requests {
		w.WriteString("GET " + target + " HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\n\r\n")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(slowTimeouts.Write + slowCutoffSlack)
	if k := n.InFlight(); k != 0 {
		t.Errorf("%d requests of a client that does not read still in flight; WriteTimeout is %v", k, slowTimeouts.Write)
	}
	// Reading now drains what was sent before the cut and ends, instead
	// of receiving every response or blocking.
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.Copy(io.Discard, conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the server kept the slow reader's connection open")
	}
	if want := int64(requests) * size; got >= want {
		t.Fatalf("the slow reader got all %d bytes: the server never blocked, the test proves nothing", got)
	}
	t.Logf("cut off after %d of %d bytes", got, int64(requests)*size)
}

func contentLength(t *testing.T, url string) int64 {
	t.Helper()
	req, _ := http.NewRequest(http.MethodHead, url, nil)
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.ContentLength <= 0 {
		t.Fatalf("HEAD %s: %d, length %d", url, resp.StatusCode, resp.ContentLength)
	}
	return resp.ContentLength
}

// statusOf fetches url and returns the status, having read the whole body.
func statusOf(c *http.Client, url string) (int, error) {
	resp, err := c.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

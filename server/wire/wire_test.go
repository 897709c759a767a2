package wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// pair returns a Conn on one end of a loopback TCP connection and the
// other end.
func pair(t *testing.T) (*Conn, net.Conn) {
	t.Helper()
	return pairTimed(t, 0)
}

// pairTimed is pair with a Conn whose writes time out after writeTimeout.
func pairTimed(t *testing.T, writeTimeout time.Duration) (*Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	wl := Listener(ln, writeTimeout)
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := wl.Accept()
		accepted <- c
	}()
	peer, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c, ok := (<-accepted).(*Conn)
	if !ok {
		t.Fatal("Listener did not wrap a TCP connection in a Conn")
	}
	t.Cleanup(func() { c.Close(); peer.Close() })
	return c, peer
}

func TestHeldWritesArriveWholeAndInOrder(t *testing.T) {
	c, peer := pair(t)
	first := bytes.Repeat([]byte("a"), 4096)
	second := bytes.Repeat([]byte("b"), 10000)
	third := []byte("tail")

	c.Hold()
	if n, err := c.Write(first); n != len(first) || err != nil {
		t.Fatalf("held write: %d, %v", n, err)
	}
	// The caller may reuse its buffer once Write returns: the hold is a copy.
	first[0] = 'x'
	if n, err := c.Write(second); n != len(second) || err != nil {
		t.Fatalf("write after a held one: %d, %v (must count only its own bytes)", n, err)
	}
	if n, err := c.Write(third); n != len(third) || err != nil { // held again
		t.Fatalf("third write: %d, %v", n, err)
	}
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("!")); err != nil { // straight through
		t.Fatal(err)
	}
	want := "a" + strings.Repeat("a", 4095) + strings.Repeat("b", 10000) + "tail!"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(peer, got); err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatal("bytes changed or reordered by the hold")
	}
}

func TestReleaseWithNothingHeld(t *testing.T) {
	c, peer := pair(t)
	c.Hold()
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	if _, err := io.ReadFull(peer, b); err != nil || b[0] != 'x' {
		t.Fatalf("%q, %v", b, err)
	}
}

func TestFailedHeldWriteFailsLaterWrites(t *testing.T) {
	c, peer := pair(t)
	peer.Close()
	c.TCPConn.CloseWrite()
	c.Hold()
	c.Write([]byte("held"))
	err := c.Release()
	for i := 0; err == nil && i < 100; i++ { // the first writes to a closed peer may still succeed
		c.Hold()
		c.Write(bytes.Repeat([]byte("y"), 64<<10))
		err = c.Release()
	}
	if err == nil {
		t.Fatal("writes to a closed connection never failed")
	}
	if _, werr := c.Write([]byte("z")); werr == nil {
		t.Fatal("a Write after a failed flush succeeded")
	}
}

// TestThroughNetHTTP serves responses of every size around net/http's
// buffers through a wrapped listener, holding each body's write as package
// server does, and checks each arrives whole over one kept-alive connection.
func TestThroughNetHTTP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ConnContext: ConnContext, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := len(r.URL.Path)
		var size int
		for _, ch := range r.URL.Path[1:n] {
			size = size*10 + int(ch-'0')
		}
		body := bytes.Repeat([]byte("z"), size)
		c := From(r.Context())
		if c == nil {
			t.Error("no Conn in the request's context")
			return
		}
		c.Hold()
		defer c.Release()
		w.Write(body)
		if c.Held() {
			http.NewResponseController(w).Flush()
		}
	})}
	go srv.Serve(Listener(ln, time.Minute))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	for _, size := range []int{0, 1, 2047, 2048, 2049, 3500, 3700, 4095, 4096, 4097, 8191, 8192, 8193, 14380, 65536, 200000} {
		res, err := client.Get("http://" + ln.Addr().String() + "/" + itoa(size))
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || len(b) != size || bytes.Count(b, []byte("z")) != size {
			t.Fatalf("size %d: got %d bytes, %v", size, len(b), err)
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func TestFromWithoutConn(t *testing.T) {
	if From(context.Background()) != nil {
		t.Fatal("a Conn from nowhere")
	}
}

// TestRecorder: the first status written is the one recorded, a body
// alone is a 200, and the body bytes are counted.
func TestRecorder(t *testing.T) {
	var r Recorder
	rec := httptest.NewRecorder()
	r.Reset(rec)
	if r.Written() || r.Status() != http.StatusOK {
		t.Fatalf("fresh recorder: written %v, status %d", r.Written(), r.Status())
	}
	r.WriteHeader(http.StatusNotFound)
	r.WriteHeader(http.StatusInternalServerError)
	if _, err := r.Write([]byte("gone")); err != nil {
		t.Fatal(err)
	}
	if r.Status() != http.StatusNotFound || r.Bytes() != 4 || rec.Code != http.StatusNotFound {
		t.Fatalf("status %d, bytes %d, sent %d", r.Status(), r.Bytes(), rec.Code)
	}
	r.Reset(httptest.NewRecorder())
	if _, err := r.Write([]byte("ok")); err != nil || r.Status() != http.StatusOK || r.Bytes() != 2 {
		t.Fatalf("after reset: status %d, bytes %d, %v", r.Status(), r.Bytes(), err)
	}
}

// stalled is a Conn whose peer never reads, both ends' buffers small, so
// that a large write blocks.
func stalled(t *testing.T, writeTimeout time.Duration) *Conn {
	t.Helper()
	c, peer := pairTimed(t, writeTimeout)
	_ = c.SetWriteBuffer(4096)
	_ = peer.(*net.TCPConn).SetReadBuffer(4096)
	// Without the timeout the write would block for good: close the
	// connection well after it, so the test fails instead of hanging.
	stop := time.AfterFunc(writeTimeout+2*timeoutSlack, func() { c.TCPConn.Close() })
	t.Cleanup(func() { stop.Stop() })
	return c
}

// blockedFor runs write, which must fail on the write deadline, and
// returns how long it blocked.
func blockedFor(t *testing.T, write func() error) time.Duration {
	t.Helper()
	start := time.Now()
	err := write()
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a write to a peer that does not read ended with %v, want the deadline", err)
	}
	return time.Since(start)
}

const (
	testWriteTimeout = 400 * time.Millisecond
	timeoutSlack     = 2 * time.Second // a busy machine's lateness
)

func TestWriteTimeoutCutsBlockedWrite(t *testing.T) {
	c := stalled(t, testWriteTimeout)
	big := make([]byte, 64<<20)
	d := blockedFor(t, func() error { _, err := c.Write(big); return err })
	if d < testWriteTimeout*3/4 || d > testWriteTimeout+timeoutSlack {
		t.Fatalf("blocked %v; the timeout is %v (at least three quarters of it)", d, testWriteTimeout)
	}
}

// TestClearedWriteDeadlineStays: net/http clears the write deadline after
// every response; the Conn's own must survive that.
func TestClearedWriteDeadlineStays(t *testing.T) {
	c := stalled(t, testWriteTimeout)
	if _, err := c.Write([]byte("arms the deadline")); err != nil {
		t.Fatal(err)
	}
	if err := c.SetWriteDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := c.SetDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 64<<20)
	if d := blockedFor(t, func() error { _, err := c.Write(big); return err }); d > testWriteTimeout+timeoutSlack {
		t.Fatalf("blocked %v after the deadline was cleared; the timeout is %v", d, testWriteTimeout)
	}
}

// TestReadFromKeepsWriteTimeout: a body net/http hands over whole
// (ServeContent) is written through Write, under the same timeout.
func TestReadFromKeepsWriteTimeout(t *testing.T) {
	c := stalled(t, testWriteTimeout)
	big := bytes.NewReader(make([]byte, 64<<20))
	if d := blockedFor(t, func() error { _, err := c.ReadFrom(big); return err }); d > testWriteTimeout+timeoutSlack {
		t.Fatalf("ReadFrom blocked %v; the timeout is %v", d, testWriteTimeout)
	}
}

// TestWriteDeadlineMovesOncePerQuarter: writes close together leave the
// socket's deadline where it is; a write after a quarter of the timeout
// moves it a whole timeout ahead, even once it has passed.
func TestWriteDeadlineMovesOncePerQuarter(t *testing.T) {
	c, peer := pairTimed(t, testWriteTimeout)
	go func() { _, _ = io.Copy(io.Discard, peer) }()
	write := func() {
		t.Helper()
		if _, err := c.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	write()
	first := c.writeBy
	if d := time.Until(first); d < testWriteTimeout*3/4 || d > testWriteTimeout {
		t.Fatalf("deadline %v ahead after a write; the timeout is %v", d, testWriteTimeout)
	}
	write()
	if !c.writeBy.Equal(first) {
		t.Fatal("a second write at once moved the deadline")
	}
	time.Sleep(testWriteTimeout + testWriteTimeout/2) // past the deadline: an idle connection
	write()
	if !c.writeBy.After(first.Add(testWriteTimeout / 2)) {
		t.Fatalf("the deadline stayed at %v after it passed", first)
	}
}

func TestNoWriteTimeoutLeavesDeadlines(t *testing.T) {
	c, peer := pair(t)
	go func() { _, _ = io.Copy(io.Discard, peer) }()
	if _, err := c.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if !c.writeBy.IsZero() {
		t.Fatal("a Conn without a write timeout set a deadline of its own")
	}
	past := time.Now().Add(-time.Second)
	if err := c.SetWriteDeadline(past); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a write past a caller's deadline: %v", err)
	}
	if err := c.SetWriteDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("x")); err != nil {
		t.Fatalf("a write after the deadline was cleared: %v", err)
	}
}

// TestSlowLinkGetsLargeWrite: a peer that keeps reading, too slowly to
// take the whole write within the timeout, gets all of it: the deadline
// moves a chunk at a time, for a write alone and for one sent with a
// held head.
func TestSlowLinkGetsLargeWrite(t *testing.T) {
	for _, held := range []bool{false, true} {
		t.Run(fmt.Sprintf("held=%v", held), func(t *testing.T) { slowLinkGetsLargeWrite(t, held) })
	}
}

func slowLinkGetsLargeWrite(t *testing.T, held bool) {
	const timeout = time.Second // each 256 KiB chunk takes a few ms: far inside
	c, peer := pairTimed(t, timeout)
	_ = c.SetWriteBuffer(64 << 10)
	_ = peer.(*net.TCPConn).SetReadBuffer(64 << 10)
	const size = 24 << 20
	got := make(chan int64, 1)
	go func() {
		var n int64
		buf := make([]byte, 32<<10)
		for {
			k, err := peer.Read(buf)
			n += int64(k)
			if err != nil {
				got <- n
				return
			}
			time.Sleep(2 * time.Millisecond) // about 16 MB/s at most: seconds for the whole
		}
	}()
	start, head := time.Now(), 0
	if held {
		head = 4 << 10 // net/http's buffer full of head and body
		c.Hold()
		if n, err := c.Write(make([]byte, head)); n != head || err != nil || !c.Held() {
			t.Fatalf("held write: %d, %v, held %v", n, err, c.Held())
		}
	}
	if n, err := c.Write(make([]byte, size)); n != size || err != nil {
		t.Fatalf("a write to a peer that keeps reading: %d of %d bytes, %v", n, size, err)
	}
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < timeout {
		t.Fatalf("the write took %v, under the %v timeout: the test proves nothing", d, timeout)
	}
	c.TCPConn.CloseWrite()
	if n := <-got; n != int64(head+size) {
		t.Fatalf("the peer read %d of %d bytes", n, head+size)
	}
}

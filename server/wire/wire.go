// Package wire lets the one writer of responses (package server's send)
// ask the connection under net/http to put one response on the wire in one
// system call.
//
// Why: net/http buffers a response's head and body in a 4 KiB bufio.Writer
// per connection. A body larger than what is left of it after the head
// (every search page of 20 stations) then costs two write(2)s: the full
// buffer, then the rest of the body directly. On loopback under load the
// writes are the largest cost of an answer from the response cache, and
// each one also sends a segment and wakes the client. Holding the first
// write and sending both with one writev(2) halves them, and changes no
// byte; every answer package server builds or caches is sent so.
//
// The Conn also keeps its own write deadline (see armWrite), in place of
// net/http's WriteTimeout, which moved the socket's write deadline twice
// per request: each move is a timer set or stopped under the runtime's
// poller lock, and on cached answers the two were about 3% of the node's
// CPU.
//
// Package node wraps the public listener's connections (Listener) and puts
// each one in its context (ConnContext); package server brackets the write
// of a body with Hold and Release (From). A connection not wrapped here (a
// test's recorder, an httptest server) has no Conn in its context, and
// writes go as before.
package wire

import (
	"context"
	"io"
	"net"
	"net/http"
	"time"
)

// Conn is an accepted TCP connection whose writes can be held: between Hold
// and Release, the first write is copied and held, and the next one goes out
// with it in one writev; Release writes what is still held. Outside that
// window writes go straight through. Only the goroutine serving the
// connection's requests writes to it (HTTP/1: one response at a time), so
// the window needs no lock.
type Conn struct {
	*net.TCPConn // CloseWrite and read deadlines are the TCPConn's own
	holding      bool
	held         []byte
	bufs         net.Buffers
	err          error // a write that failed after its caller was told it succeeded
	// writeTimeout bounds each write (see armWrite); 0 leaves write
	// deadlines to the caller. writeBy is the deadline on the socket.
	writeTimeout time.Duration
	writeBy      time.Time
}

// Write writes p, or holds it (see Conn).
func (c *Conn) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	c.armWrite()
	if len(c.held) == 0 {
		if !c.holding {
			return c.writeChunks(p)
		}
		// The caller's buffer (net/http's bufio) is reused once this
		// returns: keep a copy.
		c.held = append(c.held[:0], p...)
		return len(p), nil
	}
	held := len(c.held)
	n, err := c.flush(p)
	return max(n-held, 0), err
}

// writeChunks writes p a chunk at a time when the Conn has a write
// timeout, the deadline moved as each chunk needs it (armWrite): a large
// body (a data dump of tens of megabytes) reaches a slow link that keeps
// reading, where one write of it all would be cut at the timeout, and a
// client that stops reading is still cut within it.
func (c *Conn) writeChunks(p []byte) (int, error) {
	n := 0
	for c.writeTimeout > 0 && len(p) > maxWriteChunk {
		m, err := c.TCPConn.Write(p[:maxWriteChunk])
		n += m
		if err != nil {
			return n, err
		}
		p = p[maxWriteChunk:]
		c.armWrite()
	}
	m, err := c.TCPConn.Write(p)
	return n + m, err
}

// maxWriteChunk is the most one socket write takes under the write
// timeout: a client must read 256 KiB within the timeout to be kept.
const maxWriteChunk = 256 << 10

// flush writes what is held followed by p, in one writev, and empties the
// hold. Under a write timeout, p past its first chunk goes on as
// writeChunks sends it, so a held answer larger than a chunk reaches a
// slow link that keeps reading, as an unheld one does.
func (c *Conn) flush(p []byte) (int, error) {
	first := p
	if c.writeTimeout > 0 {
		first = p[:min(len(p), maxWriteChunk)]
	}
	c.bufs = append(c.bufs[:0], c.held, first)
	n, err := c.bufs.WriteTo(c.TCPConn)
	c.bufs = c.bufs[:0]
	c.held = c.held[:0]
	if cap(c.held) > maxHeld { // a pooled buffer must not pin a large write
		c.held = nil
	}
	if err == nil && len(first) < len(p) {
		c.armWrite()
		var m int
		m, err = c.writeChunks(p[len(first):])
		n += int64(m)
	}
	if err != nil {
		c.err = err
	}
	return int(n), err
}

// maxHeld bounds the hold buffer kept between requests: net/http hands the
// connection at most its 4 KiB buffer at a time.
const maxHeld = 8 << 10

// Hold starts holding writes.
func (c *Conn) Hold() { c.holding = true }

// Held reports whether a write is being held: then the next write goes out
// with it in one writev, where Release would write it alone.
func (c *Conn) Held() bool { return len(c.held) > 0 }

// Release stops holding and writes what is still held. Its error is also
// returned by every later Write, so net/http sees a failed connection as
// failed.
func (c *Conn) Release() error {
	c.holding = false
	if len(c.held) == 0 {
		return c.err
	}
	_, err := c.flush(nil)
	return err
}

// armWrite gives the write about to start at least three quarters of the
// write timeout: the socket's deadline is moved to a full timeout ahead
// only when less than that is left, so a connection answering many
// requests moves it once per quarter of the timeout, not twice a request.
// A write that blocks (a client that does not read) fails within the
// timeout, and never sooner than three quarters of it.
func (c *Conn) armWrite() {
	if c.writeTimeout <= 0 {
		return
	}
	now := time.Now()
	if c.writeBy.Sub(now) >= c.writeTimeout-c.writeTimeout/4 {
		return
	}
	c.writeBy = now.Add(c.writeTimeout)
	_ = c.TCPConn.SetWriteDeadline(c.writeBy) // an error here is the socket's, and the write returns it
}

// SetWriteDeadline sets the socket's write deadline. On a Conn with a
// write timeout, clearing it is ignored: net/http clears it after every
// response, and the timeout is the Conn's to keep. A deadline set here
// stands until a write finds less than three quarters of the timeout left.
func (c *Conn) SetWriteDeadline(t time.Time) error {
	if t.IsZero() && c.writeTimeout > 0 {
		return nil
	}
	c.writeBy = t
	return c.TCPConn.SetWriteDeadline(t)
}

// SetDeadline sets both deadlines, the write one as SetWriteDeadline does.
func (c *Conn) SetDeadline(t time.Time) error {
	if err := c.TCPConn.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

// ReadFrom copies r through Write, so that the write timeout holds for
// bodies net/http hands over whole (http.ServeContent): the TCPConn's own
// ReadFrom would write past it. Nothing served is a file, so no sendfile
// is lost.
func (c *Conn) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(writerOnly{c}, r)
}

// writerOnly hides Conn's ReadFrom from io.Copy, which would call it back.
type writerOnly struct{ io.Writer }

// Listener wraps ln's TCP connections in Conns whose writes each finish
// within writeTimeout (0: no bound of the Conn's own); other connections
// are returned as they are.
func Listener(ln net.Listener, writeTimeout time.Duration) net.Listener {
	return listener{ln, writeTimeout}
}

type listener struct {
	net.Listener
	writeTimeout time.Duration
}

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		return &Conn{TCPConn: tc, writeTimeout: l.writeTimeout}, nil
	}
	return c, err
}

type connKey struct{}

// ConnContext is an http.Server's ConnContext: it records c in the context
// of its requests when it is a Conn.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if wc, ok := c.(*Conn); ok {
		return context.WithValue(ctx, connKey{}, wc)
	}
	return ctx
}

// From is the Conn a request arrived on, or nil.
func From(ctx context.Context) *Conn {
	c, _ := ctx.Value(connKey{}).(*Conn)
	return c
}

// Recorder remembers the status written through it and counts the body
// bytes: the one wrapper both the metrics (package server) and the access
// log (package node) read a response's outcome from. Reset readies a
// pooled one for another response.
type Recorder struct {
	http.ResponseWriter
	code  int
	bytes int64
}

// Reset points r at w, with nothing written yet.
func (r *Recorder) Reset(w http.ResponseWriter) { *r = Recorder{ResponseWriter: w} }

// WriteHeader records the first status.
func (r *Recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
	r.ResponseWriter.WriteHeader(code)
}

// Write records a 200 when no status was written, and counts the bytes.
func (r *Recorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Written reports whether a status (or a body) was written.
func (r *Recorder) Written() bool { return r.code != 0 }

// Status is the status written, 200 when none was.
func (r *Recorder) Status() int {
	if r.code == 0 {
		return http.StatusOK
	}
	return r.code
}

// Bytes is the number of body bytes written.
func (r *Recorder) Bytes() int64 { return r.bytes }

// Unwrap lets http.ResponseController reach the real writer.
func (r *Recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

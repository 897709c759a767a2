package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"stationdex/server/core"
	"strconv"
	"strings"
	"time"
)

// The hostile-request harness: requests are raw bytes written to a TCP
// connection of a real node.Node (its timeouts, MaxHeaderBytes and
// in-flight limit), because net/http's client would refuse to send most of
// them, and because what net/http's server does before any handler runs
// (400, 431, 505) is part of what a client on the internet sees.

// hostileHost is the Host header added to corpus requests that have none.
const hostileHost = "stationdex.test"

// expectation is what one response may be.
type expectation struct {
	statuses []int
	// byNetHTTP: net/http answers before any handler runs (a plain-text
	// body and a closed connection), so no JSON body is asked for.
	byNetHTTP bool
}

func (e expectation) String() string {
	var parts []string
	for _, s := range e.statuses {
		parts = append(parts, strconv.Itoa(s))
	}
	s := strings.Join(parts, "|")
	if e.byNetHTTP {
		s = "net:" + s
	}
	return s
}

// hostileCase is bytes to write on one connection and what each response
// (one per pipelined request) must be.
type hostileCase struct {
	name string
	raw  []byte
	want []expectation
}

// requestHeads are the method and target of each request in c.raw, in
// order, read from the request lines; unreadable parts are "".
func (c hostileCase) requestHeads() (methods, targets []string) {
	rest := string(c.raw)
	for range c.want {
		head, tail, _ := strings.Cut(rest, "\r\n\r\n")
		line, _, _ := strings.Cut(head, "\r\n")
		fields := strings.SplitN(line, " ", 3)
		m, target := fields[0], ""
		if len(fields) > 1 {
			target = fields[1]
		}
		methods, targets = append(methods, m), append(targets, target)
		rest = skipBody(head, tail)
	}
	return methods, targets
}

// skipBody drops a request body of Content-Length bytes from the front of
// rest, so that the next pipelined request line is found.
func skipBody(head, rest string) string {
	for _, line := range strings.Split(head, "\r\n")[1:] {
		name, value, _ := strings.Cut(line, ":")
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			if n, err := strconv.Atoi(strings.TrimSpace(value)); err == nil && n >= 0 && n <= len(rest) {
				return rest[n:]
			}
		}
	}
	return rest
}

// apiCodes are the error codes of the API and the status of each; a JSON
// error body must carry one, matching its status.
var apiCodes = map[core.Code]int{
	core.CodeInvalidParameter:  400,
	core.CodeUnknownParameter:  400,
	core.CodeRepeatedParameter: 400,
	core.CodeInvalidRequest:    400,
	core.CodeNotFound:          404,
	core.CodeMethodNotAllowed:  405,
	core.CodeNotAcceptable:     406,
	core.CodeURITooLong:        414,
	core.CodeInvalidRange:      416,
	core.CodeUnavailable:       503,
}

// hostileClient replays cases on one connection at a time, reconnecting
// whenever the server closed the previous one.
type hostileClient struct {
	addr string
	conn net.Conn
	br   *bufio.Reader
}

func (c *hostileClient) close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn, c.br = nil, nil
	}
}

// replay sends one case and checks every response; the error says what
// was wrong.
func (c *hostileClient) replay(hc hostileCase) error {
	if c.conn == nil {
		conn, err := net.Dial("tcp", c.addr)
		if err != nil {
			return err
		}
		c.conn, c.br = conn, bufio.NewReader(conn)
	}
	_ = c.conn.SetDeadline(time.Now().Add(10 * time.Second))
	// A write cut short by a server that already answered (431) is
	// fine: the answer is read below.
	_, werr := c.conn.Write(hc.raw)
	methods, targets := hc.requestHeads()
	for i, want := range hc.want {
		resp, body, err := readResponse(c.br, methods[i])
		if err != nil {
			c.close()
			return fmt.Errorf("response %d of %d: %v (write: %v)", i+1, len(hc.want), err, werr)
		}
		if err := checkResponse(want, methods[i], targets[i], resp, body); err != nil {
			c.close()
			return fmt.Errorf("response %d of %d: %v", i+1, len(hc.want), err)
		}
		if resp.Close {
			c.close()
			if i+1 < len(hc.want) {
				return fmt.Errorf("connection closed after response %d of %d (%d)", i+1, len(hc.want), resp.StatusCode)
			}
		}
	}
	return nil
}

// maxHostileBody bounds what a hostile request may get back: no refusal
// is large, and no hostile request may reach a download.
const maxHostileBody = 64 << 10

func readResponse(br *bufio.Reader, method string) (*http.Response, []byte, error) {
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxHostileBody+1))
	if err != nil {
		return nil, nil, fmt.Errorf("status %d, body: %v", resp.StatusCode, err)
	}
	if len(body) > maxHostileBody {
		return nil, nil, fmt.Errorf("status %d with a body over %d bytes", resp.StatusCode, maxHostileBody)
	}
	return resp, body, nil
}

// checkResponse holds one response to its expectation: an allowed status,
// never a 5xx but a deliberate 503, and a JSON error body with a code of
// the right status for answers the service (not net/http) gives under
// /api/.
func checkResponse(want expectation, method, target string, resp *http.Response, body []byte) error {
	if !slices.Contains(want.statuses, resp.StatusCode) {
		return fmt.Errorf("status %d, want %s: %.200q", resp.StatusCode, want, body)
	}
	if byNetHTTP := !want.byNetHTTP && resp.Header.Get("Connection") == "close" &&
		strings.HasPrefix(string(body), strconv.Itoa(resp.StatusCode)+" "); byNetHTTP {
		return fmt.Errorf("status %d from net/http, want it from the service: %.200q", resp.StatusCode, body)
	}
	if loc := resp.Header.Get("Location"); loc != "" && (!strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//")) {
		return fmt.Errorf("status %d redirects to %q, not to a local path", resp.StatusCode, loc)
	}
	isAPI := target == "/api" || strings.HasPrefix(target, "/api/") || strings.HasPrefix(target, "/api?")
	if want.byNetHTTP || !isAPI || method == http.MethodHead || resp.StatusCode < 400 {
		return nil
	}
	return checkJSONError(resp, body)
}

func checkJSONError(resp *http.Response, body []byte) error {
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("status %d with Content-Type %q, want a JSON error body", resp.StatusCode, ct)
	}
	var e struct {
		Error   core.Code `json:"error"`
		Message string    `json:"message"`
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil || e.Message == "" {
		return fmt.Errorf("status %d, not a JSON error body (%v): %.200q", resp.StatusCode, err, body)
	}
	if status, ok := apiCodes[e.Error]; !ok || status != resp.StatusCode {
		return fmt.Errorf("status %d with error code %q", resp.StatusCode, e.Error)
	}
	return nil
}

package server

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"stationdex/server/wire"
)

// TestHeldAnswersOverTheWire serves answers from the response cache, which
// are held to go out in one write, over a real connection wrapped by
// package wire (as package node serves them), and checks each is the
// answer a recorder gets: same status, headers (Date aside) and body, over
// one kept-alive connection, for sizes on both sides of net/http's buffers
// and for HEAD.
func TestHeldAnswersOverTheWire(t *testing.T) {
	ix, _ := demoIndex()
	s := newServerWithCache(t, fixedSource{ix}, 0)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: s.Handler(), ConnContext: wire.ConnContext}
	go srv.Serve(wire.Listener(ln, time.Minute))
	t.Cleanup(func() { srv.Close() })
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
	paths := []string{
		"/api/stations?q=radio&limit=1",  // small
		"/api/stations?q=radio&limit=3",  // around the buffers
		"/api/stations?q=radio&limit=8",  // rest shorter than a buffer
		"/api/stations?q=radio&limit=20", // rest longer than a buffer
		"/api/stations?limit=100",
	}
	for _, path := range paths {
		for _, enc := range []string{"", "gzip"} {
			for _, method := range []string{http.MethodGet, http.MethodGet, http.MethodGet, http.MethodHead} {
				req, _ := http.NewRequest(method, "http://"+ln.Addr().String()+path, nil)
				if enc != "" {
					req.Header.Set("Accept-Encoding", enc)
				}
				res, err := client.Do(req)
				if err != nil {
					t.Fatalf("%s %s (%q): %v", method, path, enc, err)
				}
				body, err := io.ReadAll(res.Body)
				res.Body.Close()
				if err != nil {
					t.Fatalf("%s %s (%q): %v", method, path, enc, err)
				}
				rec := httptest.NewRecorder()
				rreq := httptest.NewRequest(method, path, nil)
				if enc != "" {
					rreq.Header.Set("Accept-Encoding", enc)
				}
				s.Handler().ServeHTTP(rec, rreq)
				want := rec.Result()
				if res.StatusCode != want.StatusCode || !bytes.Equal(body, rec.Body.Bytes()) {
					t.Fatalf("%s %s (%q): status %d, %d bytes over the wire; %d, %d bytes recorded",
						method, path, enc, res.StatusCode, len(body), want.StatusCode, rec.Body.Len())
				}
				res.Header.Del("Date")
				for k, v := range want.Header {
					if got := res.Header.Values(k); len(got) != len(v) || len(v) > 0 && got[0] != v[0] {
						t.Fatalf("%s %s (%q): %s %q over the wire, %q recorded", method, path, enc, k, got, v)
					}
				}
				if len(res.Header) != len(want.Header) {
					t.Fatalf("%s %s (%q): headers %v over the wire, %v recorded", method, path, enc, res.Header, want.Header)
				}
			}
		}
	}
}

//go:build !race

package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"stationdex/server/core"
)

// TestThroughPrismProxy runs Stoplight's Prism proxy (npm, pinned, started
// for real) in front of a demo node: Prism validates every request and
// every answer against openapi.json (--errors turns a violation into an
// error answer), and its HTTP client is node-fetch, which sends
// "Accept-Encoding: *" and decodes only gzip, deflate and br: a node that
// answered * with zstd fails here. One path of the upstream answers a body
// the document does not allow, to show that Prism does check answers.
func TestThroughPrismProxy(t *testing.T) {
	bin := npmTool(t, "prism")
	node := newDemoServer(t, nil).Handler()
	var stars int
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") == "*" {
			stars++
		}
		if r.URL.Query().Get("q") == "answer-badly" {
			w.Header().Set("Content-Type", core.JSONType)
			_, _ = io.WriteString(w, `{"schema_version": 1}`)
			return
		}
		node.ServeHTTP(w, r)
	}))
	defer upstream.Close()
	proxy := startPrism(t, bin, upstream.URL)
	for target, status := range map[string]int{
		"/api/stations?q=radio&limit=3":                                     200,
		"/api/stations?q=radio&facets=country,location,codec&facet_limit=3": 200,
		"/api/stations?codec=mp3&codec=aac&https=false":                     200,
		"/api/stations?location=lisboa&https=true":                          200,
		"/api/stations?q=jazx":                                              200,
		"/api/stations/" + demoStationID:                                    200,
		"/api/stations/00000000-0000-4000-8000-000000000000":                404,
		"/api/stations?radius_km=10":                                        400,
	} {
		res, body := getStar(t, proxy+target)
		if res.StatusCode != status || res.Header.Get("sl-violations") != "" || !strings.HasPrefix(string(body), "{") {
			t.Errorf("%s through Prism: status %d (want %d), violations %q: %.300s", target, res.StatusCode, status, res.Header.Get("sl-violations"), body)
		}
	}
	if stars == 0 {
		t.Error("Prism's client never sent Accept-Encoding: *; the case this test is for was not tried")
	}
	if res, _ := getStar(t, proxy+"/api/stations?q=answer-badly"); res.StatusCode == http.StatusOK && res.Header.Get("sl-violations") == "" {
		t.Error("an answer openapi.json does not allow went through Prism unflagged: the proxy checks nothing")
	}
}

// getStar gets url as node-fetch does, with "Accept-Encoding: *", and
// returns the answer and its body, decoded when gzip.
func getStar(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "*")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.Header.Get("Content-Encoding") == "gzip" {
		body = gunzip(t, body)
	}
	return res, body
}

// startPrism runs prism proxy on a free loopback port in front of
// upstream until the test ends, and returns its URL once it answers.
func startPrism(t *testing.T, bin, upstream string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	cmd := exec.CommandContext(ctx, bin, "proxy", "files/openapi.json", upstream, "--errors",
		"--host", "127.0.0.1", "--port", strconv.Itoa(port))
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if res, err := http.Get(url + "/api/stations?limit=1"); err == nil {
			res.Body.Close()
			return url
		}
	}
	t.Fatalf("prism did not answer in 90 s:\n%s", lastOf(logs.String()))
	return ""
}

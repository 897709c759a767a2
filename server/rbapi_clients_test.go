package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"

	"stationdex/indexer/realdata"
)

// The real clients of the Radio Browser API against a node: the npm
// packages radio-browser (2.2.3) and radio-browser-api (6.0.3), pinned in
// tools/npm. Each request a client sends is recorded as sent; every
// recorded request is checked against the OpenAPI document's operation
// (parameters, booleans and numbers as the client writes them), and each
// answer the client hands its caller is the node's own answer to that
// request.

// rbRecorder records the requests a handler serves, as sent.
type rbRecorder struct {
	h    http.Handler
	mu   sync.Mutex
	reqs []rbRecorded
}

type rbRecorded struct {
	Method, URI, ContentType string
	Body                     []byte
}

func (rr *rbRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rr.mu.Lock()
	rr.reqs = append(rr.reqs, rbRecorded{r.Method, r.URL.RequestURI(), r.Header.Get("Content-Type"), body})
	rr.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(body))
	rr.h.ServeHTTP(w, r)
}

// npmModule finds an npm package in tools/npm (npm ci --ignore-scripts
// there) or the prefix .ci/run installs to.
func npmModule(t *testing.T, rel string) string {
	prefix := os.Getenv("STATIONDEX_NPM_PREFIX")
	if prefix == "" {
		home, _ := os.UserHomeDir()
		prefix = filepath.Join(home, ".cache", "stationdex-npm")
	}
	for _, dir := range []string{filepath.Join("..", "tools", "npm"), prefix} {
		if p, err := filepath.Abs(filepath.Join(dir, "node_modules", rel)); err == nil {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	realdata.Missing(t, "the npm package %s (cd tools/npm && npm ci --ignore-scripts)", rel)
	return ""
}

// runNode runs a script of testdata with env against s, recording the
// requests; it returns the script's output and the requests.
func runNode(t *testing.T, s *Server, script string, env ...string) ([]byte, []rbRecorded) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		realdata.Missing(t, "node: %v", err)
	}
	rec := &rbRecorder{h: s.Handler()}
	ts := httptest.NewServer(rec)
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", script))
	cmd.Env = append(append(os.Environ(), "RB_BASE="+ts.URL), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, stderr.Bytes())
	}
	return out, rec.reqs
}

// requireDocumented validates each request against its OpenAPI
// operation; a request of no documented path must be one upstream has
// not either (wantUndocumented).
func requireDocumented(t *testing.T, reqs []rbRecorded, wantUndocumented ...string) {
	t.Helper()
	router, err := openAPIRouter()
	if err != nil {
		t.Fatal(err)
	}
	validated := 0
	for _, r := range reqs {
		req, err := http.NewRequest(r.Method, testBase+r.URI, bytes.NewReader(r.Body))
		if err != nil {
			t.Fatal(err)
		}
		if r.ContentType != "" {
			req.Header.Set("Content-Type", r.ContentType)
		}
		route, params, err := router.FindRoute(req)
		if err != nil {
			if !slices.ContainsFunc(wantUndocumented, func(p string) bool { return strings.HasPrefix(r.URI, p) }) {
				t.Errorf("%s %s: no operation in openapi.json: %v", r.Method, r.URI, err)
			}
			continue
		}
		in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{MultiError: true}}
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			t.Errorf("%s %s: not a request of its operation: %v", r.Method, r.URI, err)
		}
		validated++
	}
	if validated < len(reqs)/2 {
		t.Errorf("only %d of %d requests validated", validated, len(reqs))
	}
	t.Logf("%d of %d requests validated against openapi.json", validated, len(reqs))
}

// rbClientSample is the station whose values the client is asked for,
// and what it says of itself.
type rbClientSample struct {
	id, url, name, fullName, tag, country, code, language, state string
}

// pickSample is a working station with a name word, a tag, a country, a
// language and a state, taken from the node's own answers.
func pickSample(t *testing.T, s *Server) rbClientSample {
	t.Helper()
	for _, st := range jsonStations(t, s, "/json/stations/topvote/400?hidebroken=true") {
		f := func(k string) string { return fieldText(st[k]) }
		word := ""
		for _, w := range strings.Fields(f("name")) {
			if len(w) >= 4 && regexp.MustCompile(`^[A-Za-z]+$`).MatchString(w) {
				word = w
			}
		}
		tag, _, _ := strings.Cut(f("tags"), ",")
		language, _, _ := strings.Cut(f("language"), ",")
		if word == "" || tag == "" || f("country") == "" || f("countrycode") == "" || language == "" || f("state") == "" ||
			strings.ContainsAny(f("name")+tag+f("country")+language+f("state"), "/%#?&") {
			continue
		}
		return rbClientSample{f("stationuuid"), f("url"), word, f("name"), tag, f("country"), f("countrycode"), language, f("state")}
	}
	t.Fatal("no station to ask for")
	return rbClientSample{}
}

// checkRadioBrowserClient runs every read call of the npm client
// radio-browser and checks each result against the node's own answer to
// the request the client sent; the calls the node answers with an error
// are those upstream has no answer for either.
func checkRadioBrowserClient(t *testing.T, s *Server) {
	module := npmModule(t, "radio-browser")
	sample := pickSample(t, s)
	out, reqs := runNode(t, s, "npmradiobrowser.cjs", "RB_MODULE="+module, "RB_ID="+sample.id, "RB_URL="+sample.url,
		"RB_NAME="+sample.name, "RB_FULLNAME="+sample.fullName, "RB_TAG="+sample.tag, "RB_COUNTRY="+sample.country,
		"RB_CODE="+sample.code, "RB_LANGUAGE="+sample.language, "RB_STATE="+sample.state)
	var calls []struct {
		Call   string
		Result json.RawMessage
		Error  string
	}
	if err := json.Unmarshal(out, &calls); err != nil {
		t.Fatalf("%v: %.300s", err, out)
	}
	if len(calls) != len(reqs) || len(calls) < 40 {
		t.Fatalf("%d calls sent %d requests", len(calls), len(reqs))
	}
	// what upstream has not either: a 501 of the paths not served yet,
	// a 404 of a path upstream 0.7.24 has not (improvable)
	refused := map[string]int{"improvable": 404, "getServerConfig": 501, "getChecks": 501, "getChecksteps": 501, "getClicks": 501}
	worked := 0
	for i, c := range calls {
		r := reqs[i]
		replay := serveUp(s, http.MethodGet, r.URI, "", "")
		if want, ok := refused[c.Call]; ok {
			if c.Error != "Request Failed.\nStatus Code: "+strconv.Itoa(want) || replay.Code != want {
				t.Errorf("%s (%s %s): %q, node %d; want %d", c.Call, r.Method, r.URI, c.Error, replay.Code, want)
			}
			continue
		}
		if c.Error != "" || replay.Code != http.StatusOK {
			t.Errorf("%s (%s %s): %s; node %d %.200s", c.Call, r.Method, r.URI, c.Error, replay.Code, replay.Body)
			continue
		}
		var got, want any
		if json.Unmarshal(c.Result, &got) != nil || json.Unmarshal(replay.Body.Bytes(), &want) != nil {
			t.Errorf("%s: not JSON", c.Call)
			continue
		}
		if c.Call == "broken" { // shuffled anew on every request
			got, want = len(got.([]any)), len(want.([]any))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s (%s %s): the client's result is not the node's answer:\n%.300s\n%.300s", c.Call, r.Method, r.URI, c.Result, replay.Body)
			continue
		}
		if list, isList := got.([]any); isList && len(list) == 0 && c.Call != "broken" && c.Call != "bystateexact" {
			t.Errorf("%s (%s): an empty list: the sample asks for what exists", c.Call, r.URI)
		}
		worked++
	}
	t.Logf("radio-browser 2.2.3: %d of %d read calls answered as the node answers, %d refused as upstream would", worked, len(calls), len(refused))
	requireDocumented(t, reqs, "/json/stations/improvable")
}

// TestRadioBrowserClient: the npm client radio-browser 2.2.3, every read
// call, on the demo and on the real snapshot (its index built once per
// test binary).
func TestRadioBrowserClient(t *testing.T) {
	t.Parallel() // one of the long tests, run beside each other (server_test.go)
	t.Run("demo", func(t *testing.T) { checkRadioBrowserClient(t, newDemoServer(t, nil)) })
	t.Run("real", func(t *testing.T) { checkRadioBrowserClient(t, serverAt(t, realIx(t), testBase)) })
}

// TestRBAPIClientRequestsDocumented: the requests of radio-browser-api
// 6.0.3 (testdata/npmclient.mjs, whose answers TestNPMClient checks) and
// of the apps of the issue (streamtuner2, PyRadio, a Go client) are
// requests of their operations in openapi.json: booleans as true and
// false, numbers as numbers, POST and the parameters they send.
func TestRBAPIClientRequestsDocumented(t *testing.T) {
	s := newDemoServer(t, nil)
	ids := rbIDs(t, serveUp(s, http.MethodGet, "/json/stations", "", "").Body.Bytes())
	module := npmModule(t, "radio-browser-api/dist/prod/index.modern.js")
	url := fieldText(jsonStations(t, s, "/json/stations/byuuid/"+ids[0])[0]["url"])
	_, reqs := runNode(t, s, "npmclient.mjs", "RB_MODULE="+module, "RB_IDS="+ids[0]+","+ids[1], "RB_URL="+url)
	apps := []string{
		"/json/stations/search?tag=jazz&hidebroken=true&order=click&limit=10", "/json/stations/search?search=jazz&limit=10",
		"/json/stations/topvote/100?reverse=true&hidebroken=true",
		"/json/stations/byuuid/" + ids[0] + "?hidebroken=true&limit=100&offset=0&order=votes&reverse=true",
	}
	for _, target := range apps {
		reqs = append(reqs, rbRecorded{Method: http.MethodGet, URI: target})
	}
	requireDocumented(t, reqs)
}

// TestStreamtuner2Plugin drives streamtuner2's Radio Browser plugin
// (Debian streamtuner2 2.2.2) without its window (testdata/streamtuner2.py,
// the plugin made as its command-line mode makes it, its requests sent to
// the node through http_proxy): the category lists of tags, countries and
// languages, a category view of each (genre, country, language), the top
// lists and the title search, each shown as the node answers the request
// the plugin sent, none empty; on the demo and on the real snapshot.
func TestStreamtuner2Plugin(t *testing.T) {
	t.Parallel() // one of the long tests, run beside each other (server_test.go)
	const plugin = "/usr/share/streamtuner2/channels/radiobrowser.py"
	if _, err := os.Stat(plugin); err != nil {
		realdata.Missing(t, "streamtuner2 (Debian streamtuner2 and gir1.2-gtk-3.0): %v", err)
	}
	t.Run("demo", func(t *testing.T) { checkStreamtuner2(t, newDemoServer(t, nil)) })
	t.Run("real", func(t *testing.T) { checkStreamtuner2(t, serverAt(t, realIx(t), testBase)) })
}

func checkStreamtuner2(t *testing.T, s *Server) {
	plan := `{"categories": ["tags", "countries", "languages"], "views": [["tags", "jazz"], ["countries", "Austria"],
		["languages", "german"], ["tags", "topvote"], ["tags", "topclick"]], "search": "jazz", "max_streams": 50}`
	rec := &rbRecorder{h: s.Handler()}
	ts := httptest.NewServer(rec)
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/usr/bin/python3", filepath.Join("testdata", "streamtuner2.py"), plan)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "http_proxy="+ts.URL, "HTTP_PROXY="+ts.URL, "no_proxy=", "NO_PROXY=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("streamtuner2: %v\n%s", err, stderr.Bytes())
	}
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	var views []struct {
		View       string
		Categories []string
		Rows       []map[string]any
	}
	if err := json.Unmarshal(lines[len(lines)-1], &views); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(views) != len(rec.reqs) || len(views) != 9 {
		t.Fatalf("%d views sent %d requests: %v", len(views), len(rec.reqs), rec.reqs)
	}
	for i, v := range views {
		r := rec.reqs[i]
		replay := serveUp(s, http.MethodGet, r.URI, "", "")
		if replay.Code != http.StatusOK || !strings.HasPrefix(r.URI, "/json/") {
			t.Errorf("%s: %s %s: %d %.200s", v.View, r.Method, r.URI, replay.Code, replay.Body)
			continue
		}
		var answer []map[string]any
		if err := json.Unmarshal(replay.Body.Bytes(), &answer); err != nil || len(answer) == 0 {
			t.Errorf("%s: %s: %v, %d entries", v.View, r.URI, err, len(answer))
			continue
		}
		if v.Rows == nil {
			want := []string{"topvote", "topclick"}
			for _, e := range answer {
				want = append(want, fieldText(e["name"]))
			}
			if !slices.Equal(v.Categories, want) {
				t.Errorf("%s (%s): %d categories %.5q..., the node lists %d", v.View, r.URI, len(v.Categories), v.Categories, len(answer))
			}
			continue
		}
		if len(v.Rows) != len(answer) {
			t.Errorf("%s (%s): %d rows, the node answers %d", v.View, r.URI, len(v.Rows), len(answer))
			continue
		}
		for j, row := range v.Rows {
			e := answer[j]
			if row["title"] != e["name"] || row["url"] != e["url"] || row["playing"] != e["country"] || row["genre"] != e["tags"] ||
				row["listeners"] != e["votes"] || row["bitrate"] != e["bitrate"] {
				t.Errorf("%s: row %d %v, the node's station %v %v", v.View, j, row, e["name"], e["url"])
			}
		}
	}
	for _, r := range rec.reqs {
		t.Logf("streamtuner2 sent %s %s", r.Method, r.URI)
	}
	requireDocumented(t, rec.reqs)
}

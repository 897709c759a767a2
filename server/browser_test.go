package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"stationdex/indexer/realdata"
)

// TestBrowserWithoutJavaScript drives Debian's chromium, headless and with
// JavaScript switched off, through chromedriver's W3C WebDriver HTTP API
// (plain net/http; no browser library, no downloaded browser): it searches
// with the form, pages to the next results and opens a station page, and
// keeps a screenshot. Skipped without chromium and chromedriver, except
// under CI=true, where .ci/run installs them and their absence fails.
func TestBrowserWithoutJavaScript(t *testing.T) {
	chromium, driver := browserBinaries(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	site := httptest.NewUnstartedServer(serverAt(t, demoIx(t), base).Handler())
	site.Listener.Close()
	site.Listener = ln
	site.Start()
	defer site.Close()

	wd := startWebDriver(t, driver, chromium, browserOptions{})
	defer wd.quit()

	wd.checkJavaScriptIsOff()
	wd.navigate(base + "/search/")
	wd.sendKeys(wd.find("#q"), "radio")
	wd.click(wd.find("form[role=search] details summary")) // unfold the further filters
	wd.click(wd.find("#distinct option[value=false]"))     // every entry: enough for a second page
	wd.click(wd.find("form[role=search] button[type=submit]"))
	wd.waitURL(func(u string) bool { return strings.Contains(u, "q=radio") && strings.Contains(u, "distinct=false") })
	if !strings.Contains(wd.text(wd.find("main")), "stations match") {
		t.Fatalf("no results on %s", wd.url())
	}
	wd.click(wd.find("a[rel=next]"))
	wd.waitURL(func(u string) bool { return strings.Contains(u, "offset=20") })
	wd.click(wd.find("main section ul li a[href*='/stations/']"))
	wd.waitURL(func(u string) bool { return strings.Contains(u, "/stations/") })
	if h1 := wd.text(wd.find("h1")); h1 == "" {
		t.Fatalf("station page %s has an empty h1", wd.url())
	}
	if !strings.Contains(wd.text(wd.find("main")), "Stream availability") {
		t.Errorf("station page lacks the availability notice")
	}
	wd.screenshot("browser-station-page.png")
}

func browserBinaries(t *testing.T) (chromium, driver string) {
	find := func(env string, names ...string) string {
		if p := os.Getenv(env); p != "" {
			return p
		}
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
		}
		return ""
	}
	// Debian's binaries first: the npm chromedriver package (a dependency
	// of @axe-core/cli) puts a shim named chromedriver on the npm PATH
	// whose driver was never downloaded.
	chromium = find("STATIONDEX_CHROMIUM", "/usr/bin/chromium", "chromium", "chromium-browser")
	driver = find("STATIONDEX_CHROMEDRIVER", "/usr/bin/chromedriver", "chromedriver")
	if chromium == "" || driver == "" {
		realdata.Missing(t, "chromium (%q) or chromedriver (%q): apt-get install chromium chromium-driver", chromium, driver)
	}
	return chromium, driver
}

// webDriver is one chromedriver session.
type webDriver struct {
	t       *testing.T
	cmd     *exec.Cmd
	root    string // http://127.0.0.1:port
	session string
}

// browserOptions are what a test changes of the browser: JavaScript (off
// unless a test reads the page through scripts, as the player test does)
// and extra command-line switches.
type browserOptions struct {
	javaScript bool
	args       []string
}

// browserTemp is a directory of the test for a browser's profile and
// scratch files, under a short name: Chromium puts a Unix socket in it,
// whose path may not pass 107 bytes, which a test's own TempDir under a
// private TMPDIR (make test's) passes, and then the browser exits.
func browserTemp(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Error(err)
		}
	})
	return dir
}

// startWebDriver starts chromedriver and a session. Both run with TMPDIR
// set to a directory of the test, so the browser's profile and scratch
// files go with it.
func startWebDriver(t *testing.T, driver, chromium string, opt browserOptions) *webDriver {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	var logs bytes.Buffer
	cmd := exec.Command(driver, fmt.Sprintf("--port=%d", port))
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.Env = append(os.Environ(), "TMPDIR="+browserTemp(t))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	wd := &webDriver{t: t, cmd: cmd, root: fmt.Sprintf("http://127.0.0.1:%d", port)}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if resp, err := http.Get(wd.root + "/status"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("chromedriver did not start: %s", logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	chrome := map[string]any{
		"binary": chromium,
		"args": append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1024,900"}, opt.args...),
	}
	if !opt.javaScript {
		// JavaScript off for every site, as a user would switch it off.
		chrome["prefs"] = map[string]any{"profile.managed_default_content_settings.javascript": 2}
	}
	caps := map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName": "chrome", "goog:chromeOptions": chrome,
	}}}
	var created struct{ SessionID string }
	wd.call("POST", "/session", caps, &created)
	if created.SessionID == "" {
		cmd.Process.Kill()
		t.Fatalf("no session: %s", logs.String())
	}
	wd.session = "/session/" + created.SessionID
	return wd
}

// call sends one WebDriver command and decodes its value into out.
func (wd *webDriver) call(method, path string, body, out any) {
	wd.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, wd.root+path, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
	if err != nil {
		wd.t.Fatalf("webdriver %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var env struct{ Value json.RawMessage }
	if err := json.Unmarshal(raw, &env); err != nil || resp.StatusCode != http.StatusOK {
		wd.t.Fatalf("webdriver %s %s: %d %.500s", method, path, resp.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(env.Value, out); err != nil {
			wd.t.Fatalf("webdriver %s %s: %v: %.200s", method, path, err, env.Value)
		}
	}
}

func (wd *webDriver) navigate(u string) {
	wd.call("POST", wd.session+"/url", map[string]string{"url": u}, nil)
}

func (wd *webDriver) url() string {
	var u string
	wd.call("GET", wd.session+"/url", nil, &u)
	return u
}

const elementKey = "element-6066-11e4-a52e-4f735466cecf"

func (wd *webDriver) find(css string) string {
	wd.t.Helper()
	var el map[string]string
	wd.call("POST", wd.session+"/element", map[string]string{"using": "css selector", "value": css}, &el)
	if el[elementKey] == "" {
		wd.t.Fatalf("no element %q on %s: %v", css, wd.url(), el)
	}
	return el[elementKey]
}

func (wd *webDriver) click(el string) {
	wd.call("POST", wd.session+"/element/"+el+"/click", map[string]any{}, nil)
}

func (wd *webDriver) sendKeys(el, text string) {
	wd.call("POST", wd.session+"/element/"+el+"/value", map[string]string{"text": text}, nil)
}

func (wd *webDriver) text(el string) string {
	var s string
	wd.call("GET", wd.session+"/element/"+el+"/text", nil, &s)
	return s
}

func (wd *webDriver) waitURL(ok func(string) bool) {
	wd.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !ok(wd.url()) {
		if time.Now().After(deadline) {
			wd.t.Fatalf("timed out on %s", wd.url())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkJavaScriptIsOff loads a page whose script would retitle it.
func (wd *webDriver) checkJavaScriptIsOff() {
	wd.navigate("data:text/html,<title>static</title><script>document.title='scripted'</script>")
	var title string
	wd.call("GET", wd.session+"/title", nil, &title)
	if title != "static" {
		wd.t.Fatalf("JavaScript ran in the browser (title %q)", title)
	}
}

// screenshot keeps a PNG of the current page in the artefact directory:
// STATIONDEX_ARTIFACTS, else .cache/artifacts at the repository root
// (ignored by git).
func (wd *webDriver) screenshot(name string) {
	var b64 string
	wd.call("GET", wd.session+"/screenshot", nil, &b64)
	png, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		wd.t.Fatal(err)
	}
	dir := os.Getenv("STATIONDEX_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", ".cache", "artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		wd.t.Fatal(err)
	}
	path, _ := filepath.Abs(filepath.Join(dir, name))
	if err := os.WriteFile(path, png, 0o644); err != nil {
		wd.t.Fatal(err)
	}
	wd.t.Logf("screenshot: %s (%d bytes)", path, len(png))
}

func (wd *webDriver) quit() {
	req, _ := http.NewRequest("DELETE", wd.root+wd.session, nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	wd.cmd.Process.Kill()
	wd.cmd.Wait()
}

// execute runs script in the page and decodes its result into out.
func (wd *webDriver) execute(script string, out any) {
	wd.t.Helper()
	wd.call("POST", wd.session+"/execute/sync", map[string]any{"script": script, "args": []any{}}, out)
}

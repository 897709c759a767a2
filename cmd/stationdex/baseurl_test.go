package main

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestBaseURLFromAddr: without -base-url, links name -addr's host and the
// bound port; a missing or unspecified host becomes the loopback address
// with a warning; an -addr without a port is refused.
func TestBaseURLFromAddr(t *testing.T) {
	bound := &net.TCPAddr{IP: net.IPv6unspecified, Port: 41234}
	for _, tc := range []struct {
		base, addr, want string
		every            bool
	}{
		{"", "127.0.0.1:8080", "http://127.0.0.1:41234", false},
		{"", ":18080", "http://127.0.0.1:41234", true},
		{"", "0.0.0.0:8080", "http://127.0.0.1:41234", true},
		{"", "[::]:8080", "http://127.0.0.1:41234", true},
		{"", "[::1]:8080", "http://[::1]:41234", false},
		{"", "radio.internal:8080", "http://radio.internal:41234", false},
		{"https://radio.example.org", ":8080", "https://radio.example.org", false},
	} {
		plan, err := newBaseURLPlan(tc.base, tc.addr)
		if err != nil {
			t.Errorf("%q %q: %v", tc.base, tc.addr, err)
			continue
		}
		if got := plan.resolve(bound).String(); got != tc.want || plan.everyInterface != tc.every {
			t.Errorf("%q %q: %s (every interface %v), want %s (%v)", tc.base, tc.addr, got, plan.everyInterface, tc.want, tc.every)
		}
	}
	for _, tc := range []struct{ base, addr, want string }{
		{"", "localhost", "-addr \"localhost\": want HOST:PORT"},
		{"", "8080", "-addr \"8080\": want HOST:PORT"},
		{"radio.example.org", ":8080", "want an absolute http(s) URL"},
		{"ftp://radio.example.org", ":8080", "want an absolute http(s) URL"},
	} {
		if _, err := newBaseURLPlan(tc.base, tc.addr); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q %q: %v, want %q", tc.base, tc.addr, err, tc.want)
		}
	}
}

// TestServeAnyInterfaceLinksWork starts the command as a user would with
// -addr :0 and no -base-url: it warns and names -base-url, and every
// absolute URL its pages and text files print is on the bound port of the
// loopback address, and every page linked answers.
func TestServeAnyInterfaceLinksWork(t *testing.T) {
	p := startServe(t, "serve", "-addr", ":0", "-log-format", "json")
	start := p.seen[len(p.seen)-1]
	base, _ := start["base_url"].(string)
	u, err := url.Parse(base)
	if err != nil || u.Hostname() != "127.0.0.1" || u.Port() == "0" || u.Port() == "" {
		t.Fatalf("base_url %q: want http://127.0.0.1:PORT with the bound port", base)
	}
	warned := false
	for _, line := range p.seen {
		msg, _ := line["msg"].(string)
		warned = warned || (line["level"] == "WARN" && strings.Contains(msg, "-base-url"))
	}
	if !warned {
		t.Errorf("no warning naming -base-url for a node listening on every interface; log: %v", p.seen)
	}
	crawlSite(t, base, 150)
	for _, path := range []string{"/llms.txt", "/sitemap.xml", "/.well-known/radio-directory.json", "/api/stations?limit=3", "/index.md", "/robots.txt"} {
		checkNodeURLs(t, base, path)
	}
}

var nodeURL = regexp.MustCompile(`https?://[^\s"'<>)\]]+`)

// checkNodeURLs: every URL in a text answer that names the node at all
// (its port) starts with the base URL; none is hostless or unspecified.
func checkNodeURLs(t *testing.T, base, path string) {
	t.Helper()
	body := get(t, base+path)
	port := ":" + strings.TrimPrefix(base[strings.LastIndex(base, ":"):], ":")
	for _, raw := range nodeURL.FindAllString(body, -1) {
		bad := strings.HasPrefix(raw, "http://:") || strings.Contains(raw, "0.0.0.0") || strings.Contains(raw, "[::]")
		if bad || (strings.Contains(raw, port) && !strings.HasPrefix(raw, base+"/")) {
			t.Errorf("%s prints %q, not under %s", path, raw, base)
		}
	}
}

// crawlSite follows the links and resources of HTML pages under base, at
// most limit pages; each must answer below 400, and every absolute URL on
// the node's host must be under base.
func crawlSite(t *testing.T, base string, limit int) {
	t.Helper()
	queue, seen := []string{base + "/"}, map[string]bool{base + "/": true}
	for len(queue) > 0 && len(seen) <= limit {
		page := queue[0]
		queue = queue[1:]
		resp, err := http.Get(page)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 400 {
			t.Errorf("%s: status %d", page, resp.StatusCode)
			continue
		}
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			continue
		}
		for _, link := range pageLinks(t, page, string(body)) {
			if strings.HasPrefix(link, base+"/") && !seen[link] {
				seen[link] = true
				queue = append(queue, link)
			}
		}
	}
	if len(seen) < 20 {
		t.Errorf("crawl found %d pages; the links are broken", len(seen))
	}
}

// pageLinks returns the href and src values of a page, resolved; an
// absolute one must have a host.
func pageLinks(t *testing.T, page, body string) []string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatalf("%s: %v", page, err)
	}
	pageURL, _ := url.Parse(page)
	var links []string
	for n := range doc.Descendants() {
		for _, a := range n.Attr {
			if a.Key != "href" && a.Key != "src" && a.Key != "action" {
				continue
			}
			ref, err := url.Parse(a.Val)
			if err != nil || (ref.IsAbs() && ref.Host == "") || strings.HasPrefix(a.Val, "http://:") {
				t.Errorf("%s: invalid URL %q", page, a.Val)
				continue
			}
			abs := pageURL.ResolveReference(ref)
			abs.Fragment = ""
			links = append(links, abs.String())
		}
	}
	return links
}

func get(t *testing.T, target string) string {
	t.Helper()
	resp, err := http.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %v", target, resp.StatusCode, err)
	}
	return string(body)
}

// TestServeBusyPortSaysWhatToDo: a port in use is refused with the flag
// (and make variable) that chooses another.
func TestServeBusyPortSaysWhatToDo(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, stderr := runChild(t, "serve", "-addr", ln.Addr().String())
	if code != 1 || !strings.Contains(stderr, "pass another -addr") {
		t.Errorf("exit %d, stderr %q; want 1 and advice naming -addr", code, stderr)
	}
}

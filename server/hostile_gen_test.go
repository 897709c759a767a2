package server_test

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
)

// The generator of hostile requests: every class of the corpus, varied
// over every route and many payloads, with the answer each must get. It is
// deterministic (one seed), so a failure names a case that replays the
// same way every time.

const hostileSeed = 20250227

// demoStationID is a station of the demo snapshot.
const demoStationID = "cbbf6759-8124-405d-a884-3bd8732946bd"

// staticPaths are the fixed resources, the prefixes of the page trees and
// the API: what traversal and method attacks aim at.
var staticPaths = []string{
	"/", "/search/", "/guide/", "/text/index.md", "/llms.txt", "/openapi.json",
	"/.well-known/radio-directory.json", "/data/catalog.json", "/data/stations.json",
	"/data/stations.ndjson", "/sitemap.xml", "/sitemaps/pages.xml", "/static/style.css",
	"/stations/" + demoStationID + "/", "/stations/" + demoStationID + "/listen/",
	"/countries/", "/languages/", "/genres/", "/locations/",
	"/api/stations", "/api/stations/" + demoStationID,
}

// gen builds cases with its own random source.
type gen struct {
	rng   *rand.Rand
	cases []hostileCase
}

func generateHostile(seed uint64) []hostileCase {
	g := &gen{rng: rand.New(rand.NewPCG(seed, seed^0x5eed))}
	g.traversals()
	g.methods()
	g.badParams()
	g.badIDs()
	g.acceptHeaders()
	g.ranges()
	g.overlong()
	g.controlBytes()
	g.versions()
	g.pipelines()
	return g.cases
}

// add records one request with its head lines (request line first; Host
// is added) and the statuses it may get.
func (g *gen) add(class string, want expectation, lines ...string) {
	raw := strings.Join(lines, "\r\n") + "\r\nHost: " + hostileHost + "\r\n\r\n"
	g.cases = append(g.cases, hostileCase{
		name: fmt.Sprintf("gen %s #%d", class, len(g.cases)),
		raw:  []byte(raw),
		want: []expectation{want},
	})
}

func status(codes ...int) expectation    { return expectation{statuses: codes} }
func netStatus(codes ...int) expectation { return expectation{statuses: codes, byNetHTTP: true} }

func (g *gen) pick(list []string) string { return list[g.rng.IntN(len(list))] }

// traversals: dot segments in every spelling, after every static path,
// aiming at files of the host and of the repository. Payloads that climb
// with a real or encoded dot segment meet the guard (404); the others name
// no route (404). Every target ends in '/' or a file name so that no page
// tree answers with its trailing-slash redirect first.
var (
	climbs = []string{
		"../", "..%2f", "..%2F", "%2e%2e/", "%2e%2e%2f", "%2E%2E%2F", ".%2e/", "%2e./",
		"./../", "..//", "/../", "..%2f%2e%2e%2f",
	}
	// lookalikes resemble a climb to some other system but are not dot
	// segments here: they name nothing.
	lookalikes = []string{
		"..%5c", "..\\", "....//", "..;/", "%252e%252e/", "%c0%ae%c0%ae/", "%e0%80%ae%e0%80%ae/",
		"..%00/", "%uff0e%uff0e/", "..%c0%af", ".../", "~/", "%2e%2e%00/", "%2e%2e%5c../",
	}
	traversalTargets = []string{
		"etc/passwd", "etc/shadow", "proc/self/environ", "go.mod", "server/server.go",
		".git/config", "windows/win.ini", "var/lib/stationdex/stations.db", "x/",
	}
)

func (g *gen) traversals() {
	for _, p := range staticPaths {
		for _, target := range traversalTargets {
			for range 3 {
				climb := g.pick(climbs)
				depth := 1 + g.rng.IntN(6)
				g.addTraversal(p, strings.Repeat(climb, depth)+target)
			}
			look := g.pick(lookalikes)
			g.addTraversal(p, strings.Repeat(look, 1+g.rng.IntN(4))+target)
		}
	}
}

func (g *gen) addTraversal(prefix, payload string) {
	if !strings.HasSuffix(payload, "/") {
		payload += "/" // a page tree would redirect to add it first
	}
	target := strings.TrimSuffix(prefix, "/") + "/" + payload
	want := status(404)
	if strings.Contains(payload, "%u") {
		want = netStatus(400) // not a percent-encoding: the URL does not parse
	}
	g.add("traversal", want, "GET "+target+" HTTP/1.1")
}

// methods: every route with methods a read-only service refuses (405),
// some with a body, and the same methods off the routes (404).
var refusedMethods = []string{
	"POST", "PUT", "DELETE", "PATCH", "TRACE", "PROPFIND", "PROPPATCH", "MKCOL", "COPY",
	"MOVE", "LOCK", "UNLOCK", "PURGE", "LINK", "SEARCH", "BREW", "get", "Head", "X",
}

func (g *gen) methods() {
	for _, p := range staticPaths {
		for _, m := range refusedMethods {
			g.add("method", status(405), m+" "+p+" HTTP/1.1")
			body := strings.Repeat("x", g.rng.IntN(2048))
			g.cases = append(g.cases, hostileCase{
				name: fmt.Sprintf("gen method+body #%d", len(g.cases)),
				raw: []byte(m + " " + p + " HTTP/1.1\r\nHost: " + hostileHost + "\r\nContent-Length: " +
					strconv.Itoa(len(body)) + "\r\n\r\n" + body),
				want: []expectation{status(405)},
			})
		}
	}
	for range 100 {
		g.add("method", status(404), g.pick(refusedMethods)+" /nowhere/"+g.word(12)+" HTTP/1.1")
	}
}

// badParam is one invalid search parameter and whether the HTML search
// page refuses it too (it drops empty values, as HTML forms send them).
type badParam struct {
	pair     string
	onSearch bool
}

func (g *gen) badParamPool() []badParam {
	var pool []badParam
	addAll := func(onSearch bool, pairs ...string) {
		for _, p := range pairs {
			pool = append(pool, badParam{p, onSearch})
		}
	}
	for range 40 {
		addAll(true, "x"+g.word(g.rng.IntN(20))+"=1") // unknown name
	}
	addAll(true, "Q=a", "LIMIT=1", "q%5B%5D=a", "q.x=1", "limit%00=1", "%71%00=a", "utf8=%E2%9C%93")
	for _, n := range []string{"limit", "offset"} {
		addAll(true,
			n+"=99999999999999999999999999", n+"=18446744073709551616", n+"=18446744073709551615",
			n+"=9223372036854775808", n+"=4294967296", n+"=4294967295", n+"=-1", n+"=-0", n+"=%2B1",
			n+"=1e1", n+"=0x1", n+"=1.0", n+"=%201", n+"=1%20", n+"=1%00", n+"=%EF%BC%91", n+"=%D9%A1",
			n+"=NaN", n+"=Infinity", n+"=1_0", n+"=%E2%80%8B1", n+"=5001", n+"=100000")
		addAll(false, n+"=", n)
	}
	addAll(true, "limit=0", "limit=51", "offset=5001")
	addAll(true, "country=DEU", "country=D", "country=1A", "country=%C3%9F%C3%9F", "country=d%00",
		"country=%EF%BC%A4%EF%BC%A5", "country=D%20", "country=%20D")
	addAll(false, "country=", "language=", "genre=")
	for _, n := range []string{"q", "language", "genre"} {
		max := 60
		if n == "q" {
			max = 120
		}
		addAll(true, n+"="+strings.Repeat("a", max+1+g.rng.IntN(100)),
			n+"="+strings.Repeat("%C3%A9", max+1), n+"="+strings.Repeat("%F0%9F%93%BB", max+1))
	}
	for _, v := range []string{
		"%", "%4", "%zz", "%G0", "%%", "%FF", "%C0%AF", "%C0%80", "%ED%A0%80", "%ED%BF%BF", "%F4%90%80%80",
		"%F8%88%80%80%80", "%E2%82", "%80", "%FE%FF", "%00", "%01", "%0A", "%0D%0ASet-Cookie:%20x=1",
		"%1B%5B31m", "%7F", "%C2%80", "%C2%85", "%C2%9F",
	} {
		n := g.pick([]string{"q", "language", "genre"})
		addAll(true, n+"=a"+v+"z", n+"="+v) // z: no hex digit, so v stays what it is
	}
	addAll(true, "%zz=1", "%FF=1", "%00=1", "a%=1")
	return pool
}

// badParams: one invalid parameter among valid ones, in any position, or
// a valid parameter repeated; always 400, and the search page agrees.
func (g *gen) badParams() {
	valid := []string{"q=jazz", "country=de", "language=german", "genre=rock", "limit=5", "offset=10", "q=radio+star"}
	pool := g.badParamPool()
	for i := range 1800 {
		bad := pool[i%len(pool)]
		pairs := []string{bad.pair}
		for range g.rng.IntN(3) {
			v := g.pick(valid)
			if !strings.HasPrefix(bad.pair, strings.Split(v, "=")[0]+"=") {
				pairs = append(pairs, v)
			}
		}
		g.rng.Shuffle(len(pairs), func(a, b int) { pairs[a], pairs[b] = pairs[b], pairs[a] })
		query := strings.Join(pairs, "&")
		g.add("param", status(400), g.pick([]string{"GET", "HEAD"})+" /api/stations?"+query+" HTTP/1.1")
		if bad.onSearch {
			g.add("param", status(400), "GET /search/?"+query+" HTTP/1.1")
		}
	}
	for range 300 {
		v := g.pick(valid)
		pairs := []string{v, v}
		if g.rng.IntN(2) == 0 {
			pairs = append(pairs, g.pick(valid))
		}
		g.rng.Shuffle(len(pairs), func(a, b int) { pairs[a], pairs[b] = pairs[b], pairs[a] })
		g.add("param", status(400), "GET /api/stations?"+strings.Join(pairs, "&")+" HTTP/1.1")
	}
}

// badIDs: station ids that are not ids of this snapshot: 404, and JSON
// under /api/.
func (g *gen) badIDs() {
	for range 500 {
		id := g.junkSegment()
		g.add("id", status(404), "GET /api/stations/"+id+" HTTP/1.1")
		g.add("id", status(404), "GET /stations/"+id+"/ HTTP/1.1")
	}
	for range 100 {
		u := fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", g.rng.Uint32(), g.rng.Uint32()&0xffff,
			g.rng.Uint32()&0xffff, g.rng.Uint32()&0xffff, g.rng.Uint64()&0xffffffffffff)
		g.add("id", status(404), "GET /api/stations/"+strings.ToUpper(u)+" HTTP/1.1")
	}
}

// junkSegment is a path segment of random bytes, percent-encoded where
// they must be, never a dot segment. It has no '/', not even encoded: the
// router would redirect a path ending in one first.
func (g *gen) junkSegment() string {
	b := make([]byte, 1+g.rng.IntN(80))
	for i := range b {
		if b[i] = byte(g.rng.IntN(256)); b[i] == '/' {
			b[i] = '_'
		}
	}
	seg := url.PathEscape(string(b))
	if seg == "." || seg == ".." {
		seg += "x"
	}
	return seg
}

// acceptHeaders: Accept values that leave application/json out, or give
// it q=0, on every API route: 406 with a JSON body.
func (g *gen) acceptHeaders() {
	types := []string{"text/html", "text/plain", "application/xml", "image/png", "text/markdown", "application/json-seq",
		"application/jsonx", "application/problem+json", "text/json", "json", "*/json", "application", "x/y", "text/*"}
	api := []string{"/api/stations", "/api/stations?q=jazz", "/api/stations/" + demoStationID, "/api/stations?limit=0", "/api/nosuch"}
	for range 800 {
		var ranges []string
		for range 1 + g.rng.IntN(6) {
			r := g.pick(types)
			if g.rng.IntN(3) == 0 {
				r += fmt.Sprintf(";q=%.3f", g.rng.Float64())
			}
			ranges = append(ranges, r)
		}
		switch g.rng.IntN(4) {
		case 0:
			ranges = append(ranges, "application/json;q=0", "*/*")
		case 1:
			ranges = append(ranges, "*/*;q=0")
		case 2:
			ranges = append(ranges, "application/*;q=0.0", "*/*;q=0.9")
		}
		g.rng.Shuffle(len(ranges), func(a, b int) { ranges[a], ranges[b] = ranges[b], ranges[a] })
		method := g.pick([]string{"GET", "HEAD"})
		g.add("accept", status(406), method+" "+g.pick(api)+" HTTP/1.1", "Accept: "+strings.Join(ranges, ", "))
	}
}

// ranges: Range headers a download cannot satisfy or parse: 416.
func (g *gen) ranges() {
	downloads := []string{"/data/stations.json", "/data/stations.ndjson", "/static/style.css"}
	for range 600 {
		var spec string
		switch g.rng.IntN(6) {
		case 0:
			spec = fmt.Sprintf("bytes=%d-", 1<<30+g.rng.Uint64N(1<<62))
		case 1:
			spec = fmt.Sprintf("bytes=%d-%d", 1000+g.rng.IntN(1000), g.rng.IntN(1000))
		case 2:
			spec = "bytes=" + g.word(1+g.rng.IntN(10))
		case 3:
			spec = fmt.Sprintf("bytes=%s%d-", strings.Repeat("9", 20), g.rng.IntN(10))
		case 4:
			spec = "bytes=-0"
		default:
			spec = fmt.Sprintf("bytes=0-1,%s", g.word(3))
		}
		lines := []string{"GET " + g.pick(downloads) + " HTTP/1.1", "Range: " + spec}
		if g.rng.IntN(2) == 0 {
			lines = append(lines, "Accept-Encoding: gzip")
		}
		g.add("range", status(416), lines...)
	}
}

// overlong: request targets over the service's 8 KiB limit (414) and
// request heads over the node's MaxHeaderBytes (net/http's 431).
func (g *gen) overlong() {
	for range 500 {
		n := 8<<10 + 1 + g.rng.IntN(8<<10)
		p := g.pick(staticPaths)
		sep := "?"
		if strings.Contains(p, "?") {
			sep = "&"
		}
		g.add("uri", status(414), "GET "+p+sep+"q="+strings.Repeat("a", n)+" HTTP/1.1")
	}
	for range 200 {
		n := 24<<10 + g.rng.IntN(40<<10)
		switch g.rng.IntN(3) {
		case 0:
			g.add("uri", netStatus(431), "GET /api/stations?q="+strings.Repeat("b", n)+" HTTP/1.1")
		case 1:
			g.add("header", netStatus(431), "GET /api/stations HTTP/1.1", "X-Long: "+strings.Repeat("h", n))
		default:
			var lines []string
			for i := range n / 32 {
				lines = append(lines, fmt.Sprintf("X-Many-%d: %s", i, strings.Repeat("m", 20)))
			}
			g.add("header", netStatus(431), append([]string{"GET /search/ HTTP/1.1"}, lines...)...)
		}
	}
}

// controlBytes: a control character anywhere in the request target or a
// header: net/http refuses the request (400).
func (g *gen) controlBytes() {
	for range 800 {
		p := g.pick(staticPaths)
		ctl := g.controlByte()
		i := 1 + g.rng.IntN(len(p))
		target := p[:i] + string(ctl) + p[i:]
		g.add("ctl", netStatus(400), "GET "+target+" HTTP/1.1")
	}
	for range 400 {
		v := g.word(8)
		i := g.rng.IntN(len(v))
		v = v[:i] + string(g.controlByte()) + v[i:]
		g.add("ctl", netStatus(400), "GET "+g.pick(staticPaths)+" HTTP/1.1", g.pick([]string{"X-Ctl", "Accept", "Referer", "User-Agent"})+": "+v)
	}
}

// controlByte is a C0 control other than tab, CR and LF, or DEL.
func (g *gen) controlByte() byte {
	for {
		b := byte(g.rng.IntN(32))
		if g.rng.IntN(8) == 0 {
			b = 0x7f
		}
		if b != '\t' && b != '\r' && b != '\n' {
			return b
		}
	}
}

// versions: HTTP/1.0 requests get the service's answers; versions net/http
// does not speak over HTTP/1 get its 505, broken ones its 400.
func (g *gen) versions() {
	for range 300 {
		pool := g.badParamPool()
		bad := pool[g.rng.IntN(len(pool))]
		raw := "GET /api/stations?" + bad.pair + " HTTP/1.0\r\n\r\n"
		if g.rng.IntN(2) == 0 {
			raw = "GET /api/stations?" + bad.pair + " HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
		}
		g.cases = append(g.cases, hostileCase{name: fmt.Sprintf("gen http/1.0 #%d", len(g.cases)), raw: []byte(raw), want: []expectation{status(400)}})
	}
	for _, v := range []string{"HTTP/2.0", "HTTP/3.0", "HTTP/0.9", "HTTP/9.9", "HTTP/2.1"} {
		for _, p := range staticPaths {
			g.add("version", netStatus(505), "GET "+p+" "+v)
		}
	}
	for _, v := range []string{"HTTP/1", "HTTP/1.", "HTTP/1.1.1", "HTTP/-1.1", "http/1.1", "HTTP/1.1 ", "HTTPS/1.1", "HTTP/1.a", "HTTP/99999999999999999999.1"} {
		for _, p := range staticPaths {
			g.add("version", netStatus(400), "GET "+p+" "+v)
		}
	}
}

// pipelines: runs of refused requests in one write, answered in order; a
// valid request at the end shows the connection is still in step.
func (g *gen) pipelines() {
	var pool []hostileCase
	for _, c := range g.cases {
		if !c.want[0].byNetHTTP && len(c.raw) < 4096 && !strings.Contains(string(c.raw), "HTTP/1.0") {
			pool = append(pool, c)
		}
	}
	for range 300 {
		var raw []byte
		var want []expectation
		for range 2 + g.rng.IntN(6) {
			c := pool[g.rng.IntN(len(pool))]
			raw, want = append(raw, c.raw...), append(want, c.want...)
		}
		raw = append(raw, "GET /api/stations?limit=1 HTTP/1.1\r\nHost: "+hostileHost+"\r\n\r\n"...)
		want = append(want, status(200))
		g.cases = append(g.cases, hostileCase{name: fmt.Sprintf("gen pipeline #%d", len(g.cases)), raw: raw, want: want})
	}
}

// word is n random lower-case letters.
func (g *gen) word(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + g.rng.IntN(26))
	}
	return string(b)
}

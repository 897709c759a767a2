package server

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"stationdex/indexer"
	"stationdex/indexer/realdata"
	"stationdex/server/core"
)

// The Radio Browser API's formats, each read back by a real parser:
// xmllint for XML and XSPF, Go's encoding/csv, rapper (raptor2-utils) for
// Turtle, and Totem's playlist parser (totem-pl-parser, through
// testdata/plparse.py) for M3U and PLS; what each parser reads must be
// what the node's own JSON answer of the same path says.

// rbFormatTypes are upstream's content types, by prefix.
var rbFormatTypes = map[string]string{
	"xml": "text/xml", "csv": "text/csv", "m3u": "audio/mpegurl", "pls": "audio/x-scpls",
	"xspf": "application/xspf+xml", "ttl": "text/turtle",
}

// rbFormatTools finds the parsers, or ends the test (a failure under CI).
func rbFormatTools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"xmllint", "rapper", "/usr/bin/python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			realdata.Missing(t, "%s (Debian libxml2-utils, raptor2-utils, python3-gi): %v", tool, err)
		}
	}
	if out, err := exec.Command("/usr/bin/python3", "-c", "import gi; gi.require_version('TotemPlParser', '1.0')").CombinedOutput(); err != nil {
		realdata.Missing(t, "Totem's playlist parser (Debian gir1.2-totemplparser-1.0): %v: %s", err, out)
	}
}

// fetchFormat answers target, which must be a 200 of the format's type.
func fetchFormat(t *testing.T, s *Server, format, target string) []byte {
	t.Helper()
	rec := serveUp(s, http.MethodGet, target, "", "")
	if ct := rec.Header().Get("Content-Type"); rec.Code != http.StatusOK || !strings.HasPrefix(ct, rbFormatTypes[format]) {
		t.Fatalf("%s: %d %q: %.300s", target, rec.Code, ct, rec.Body)
	}
	return rec.Body.Bytes()
}

// xmllint checks that body is well-formed XML.
func xmllint(t *testing.T, what string, body []byte) {
	t.Helper()
	cmd := exec.Command("xmllint", "--noout", "--nonet", "-")
	cmd.Stdin = bytes.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s: xmllint: %v: %s", what, err, out)
	}
}

// turtleTriples parses body as Turtle with rapper and returns its
// triples as N-Triples lines.
func turtleTriples(t *testing.T, what string, body []byte) []string {
	t.Helper()
	cmd := exec.Command("rapper", "-q", "-i", "turtle", "-o", "ntriples", "-", "http://base.example/")
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Errorf("%s: rapper: %v: %s", what, err, stderr.Bytes())
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// plEntry is an entry as Totem's playlist parser reads it.
type plEntry struct{ URI, Title string }

// playlistEntries parses a playlist with Totem's parser.
func playlistEntries(t *testing.T, what, ext string, body []byte) []plEntry {
	t.Helper()
	path := filepath.Join(t.TempDir(), "playlist."+ext)
	if err := os.WriteFile(path, body, 0o644); err != nil {
		t.Fatal(err)
	}
	line, err := totem.parse(path)
	var res struct {
		Result  string
		Entries []plEntry
	}
	if err != nil || json.Unmarshal(line, &res) != nil || res.Result != "success" {
		t.Fatalf("%s: totem-pl-parser: %v: %s", what, err, line)
	}
	return res.Entries
}

// totem is one process of testdata/plparse.py for the test binary: the
// parser's start (Python and GObject) costs more than a parse.
var totem plParser

type plParser struct {
	mu  sync.Mutex
	in  io.Writer
	out *bufio.Reader
	err error
}

// parse answers the JSON line of the playlist at path.
func (p *plParser) parse(path string) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.in == nil && p.err == nil {
		cmd := exec.Command("/usr/bin/python3", filepath.Join("testdata", "plparse.py"), "-")
		cmd.Stderr = os.Stderr
		var out io.Reader
		if p.in, p.err = cmd.StdinPipe(); p.err == nil {
			if out, p.err = cmd.StdoutPipe(); p.err == nil {
				p.out, p.err = bufio.NewReader(out), cmd.Start()
			}
		}
	}
	if p.err != nil {
		return nil, p.err
	}
	if _, err := io.WriteString(p.in, path+"\n"); err != nil {
		return nil, err
	}
	return p.out.ReadBytes('\n')
}

// jsonStations is the node's JSON answer of a path, as maps.
func jsonStations(t *testing.T, s *Server, target string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	rec := serveUp(s, http.MethodGet, target, "", "")
	if err := json.Unmarshal(rec.Body.Bytes(), &objs); err != nil {
		t.Fatalf("%s: %d %v: %.200s", target, rec.Code, err, rec.Body)
	}
	return objs
}

// fieldText is a JSON field as the text formats write it.
func fieldText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// inXML is s as XML can hold it: what XML 1.0 cannot, U+FFFD.
func inXML(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF {
			return '\uFFFD'
		}
		return r
	}, s)
}

// oneLineText is s as a playlist line holds it: line breaks as spaces.
func oneLineText(s string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune("\r\n\u0085\u2028\u2029", r) {
			return ' '
		}
		return r
	}, s)
}

// checkStationFormats reads the station list of path (below the format
// prefix) in every format and compares it with the JSON answer.
func checkStationFormats(t *testing.T, s *Server, path string) {
	t.Helper()
	want := jsonStations(t, s, "/json"+path)
	field := func(i int, k string) string { return fieldText(want[i][k]) }

	var doc struct {
		Stations []struct {
			Attrs []xml.Attr `xml:",any,attr"`
		} `xml:"station"`
	}
	body := fetchFormat(t, s, "xml", "/xml"+path)
	xmllint(t, "/xml"+path, body)
	if err := xml.Unmarshal(body, &doc); err != nil || len(doc.Stations) != len(want) {
		t.Fatalf("/xml%s: %v, %d stations for %d", path, err, len(doc.Stations), len(want))
	}
	for i, st := range doc.Stations {
		for _, a := range st.Attrs {
			if a.Value != inXML(field(i, a.Name.Local)) {
				t.Errorf("/xml%s: station %d: %s=%q, JSON %q", path, i, a.Name.Local, a.Value, field(i, a.Name.Local))
			}
		}
		if len(st.Attrs) < 25 {
			t.Errorf("/xml%s: station %d has %d attributes", path, i, len(st.Attrs))
		}
	}

	rows, err := csv.NewReader(bytes.NewReader(fetchFormat(t, s, "csv", "/csv"+path))).ReadAll()
	if err != nil || len(want) > 0 && len(rows) != len(want)+1 || len(want) == 0 && len(rows) != 0 {
		t.Fatalf("/csv%s: %v, %d rows for %d stations", path, err, len(rows), len(want))
	}
	for i := 1; i < len(rows); i++ {
		for c, name := range rows[0] {
			// encoding/csv reads a quoted CRLF as LF
			if rows[i][c] != strings.ReplaceAll(field(i-1, name), "\r\n", "\n") {
				t.Errorf("/csv%s: row %d: %s=%q, JSON %q", path, i, name, rows[i][c], field(i-1, name))
			}
		}
	}
	if len(rows) > 0 && (len(rows[0]) != 36 || rows[0][1] != "stationuuid") {
		t.Errorf("/csv%s: header %v", path, rows[0])
	}

	for _, ext := range []string{"m3u", "pls"} {
		body := fetchFormat(t, s, ext, "/"+ext+path)
		entries := playlistEntries(t, "/"+ext+path, ext, body)
		if len(entries) != len(want) {
			t.Fatalf("/%s%s: %d entries for %d stations:\n%s", ext, path, len(entries), len(want), body)
		}
		for i, e := range entries {
			// Totem trims a title, and resolves an address without a
			// scheme (javascript:alert(2) is one to it) against the
			// playlist's own
			uri, url := e.URI, field(i, "url")
			if !strings.Contains(url, "://") {
				uri = uri[strings.LastIndexByte(uri, '/')+1:]
			}
			if uri != url || strings.TrimSpace(e.Title) != strings.TrimSpace(oneLineText(field(i, "name"))) {
				t.Errorf("/%s%s: entry %d %+v, JSON %q %q", ext, path, i, e, field(i, "url"), field(i, "name"))
			}
		}
	}

	var list struct {
		Tracks []struct {
			Title      string `xml:"title"`
			Location   string `xml:"location"`
			Image      string `xml:"image"`
			Identifier string `xml:"identifier"`
		} `xml:"trackList>track"`
	}
	body = fetchFormat(t, s, "xspf", "/xspf"+path)
	xmllint(t, "/xspf"+path, body)
	if err := xml.Unmarshal(body, &list); err != nil || len(list.Tracks) != len(want) {
		t.Fatalf("/xspf%s: %v, %d tracks for %d", path, err, len(list.Tracks), len(want))
	}
	for i, tr := range list.Tracks {
		if tr.Title != inXML(field(i, "name")) || tr.Location != inXML(field(i, "url")) || tr.Identifier != "radiobrowser:"+field(i, "stationuuid") {
			t.Errorf("/xspf%s: track %d %+v", path, i, tr)
		}
	}

	triples := turtleTriples(t, "/ttl"+path, fetchFormat(t, s, "ttl", "/ttl"+path))
	for i := range want {
		subject := "<http://radio-browser.info/radio/" + field(i, "stationuuid") + ">"
		name := ""
		for _, tr := range triples {
			if lit, ok := strings.CutPrefix(tr, subject+" <http://schema.org/name> "); ok {
				name, _ = strconv.Unquote(strings.TrimSuffix(lit, " ."))
			}
		}
		if name != strings.NewReplacer("\uFFFE", "\uFFFD", "\uFFFF", "\uFFFD").Replace(field(i, "name")) {
			t.Errorf("/ttl%s: station %d: schema:name %q, JSON %q", path, i, name, field(i, "name"))
		}
	}
}

// TestRBAPIFormats: every kind of station list on the demo in every
// format, read back by the real parsers.
func TestRBAPIFormats(t *testing.T) {
	rbFormatTools(t)
	s := newDemoServer(t, nil)
	const id = "cbbf6759-8124-405d-a884-3bd8732946bd"
	for _, path := range []string{
		"/stations", "/stations/search?tag=jazz&order=votes&reverse=true", "/stations/topvote/5",
		"/stations/byuuid/" + id, "/stations/byuuid?uuids=" + id, "/stations/bytag/pop?limit=4",
		"/stations/byurl?url=https://stream.example.pt/comercial.mp3", "/stations/search?name=nothing-at-all",
	} {
		checkStationFormats(t, s, path)
	}
}

// TestRBAPIFormatsHostile: station text that is markup, quotes, line
// breaks that would start another playlist entry, controls and Turtle
// syntax reads back as the JSON says (controls as U+FFFD in XML, a line
// break a space in a playlist line), and no format gains an entry.
func TestRBAPIFormatsHostile(t *testing.T) {
	rbFormatTools(t)
	names := []string{
		`Amp & "quote" <tag> 'apos' ]]> \ back`, "Line\nbreak\r\nTitle2=evil\nFile2=http://evil.example/",
		`=HYPERLINK("http://evil.example")`, "ctrl \u0001\u0007 chars \uFFFE", "#EXTINF:1,evil\n#EXTM3U\nhttp://evil.example/",
		`a" ; <http://schema.org/name> "b" . <x> <y> """z`, "[playlist]\nNumberOfEntries=99", "📻 \u202ebidi\u202c",
	}
	var in strings.Builder
	for i, name := range names {
		rec := map[string]any{
			"stationuuid": fmt.Sprintf("00000000-0000-4000-8000-%012d", i), "name": name,
			"url": fmt.Sprintf("http://s.example/%d?a=1&b=<c>", i), "homepage": "javascript:alert(1)", "favicon": `http://x.example/"><script>`,
			"tags": name, "country": name, "state": name, "language": "a,b", "lastcheckok": 1,
		}
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		in.Write(append(line, '\n'))
	}
	s := newBuiltServer(t, indexer.Input{Name: "hostile", R: strings.NewReader(in.String())}, time.Now())
	if got := jsonStations(t, s, "/json/stations"); len(got) != len(names) {
		t.Fatalf("%d stations indexed of %d", len(got), len(names))
	}
	checkStationFormats(t, s, "/stations")
}

// TestRBAPIFormatsLongLists: a list longer than a chunk is streamed in
// every format, whole (the PLS count and every entry), and a page across
// chunks is the JSON page.
func TestRBAPIFormatsLongLists(t *testing.T) {
	rbFormatTools(t)
	var b strings.Builder
	const n = 2*1000 + 45
	for i := range n {
		fmt.Fprintf(&b, `{"stationuuid":"00000000-0000-4000-8000-%012d","name":"Station %05d","url":"http://s.example/%d"}`+"\n", i, i, i)
	}
	s := newBuiltServer(t, indexer.Input{Name: "long", R: strings.NewReader(b.String())}, time.Now())
	pls := fetchFormat(t, s, "pls", "/pls/stations")
	if !bytes.HasPrefix(pls, []byte("[playlist]\r\nNumberOfEntries="+strconv.Itoa(n)+"\r\n")) {
		t.Errorf("/pls/stations: starts %q", pls[:40])
	}
	for _, ext := range []string{"m3u", "pls"} {
		if got := playlistEntries(t, ext, ext, fetchFormat(t, s, ext, "/"+ext+"/stations")); len(got) != n || got[n-1].Title != fmt.Sprintf("Station %05d", n-1) {
			t.Errorf("/%s/stations: %d entries", ext, len(got))
		}
	}
	rows, err := csv.NewReader(bytes.NewReader(fetchFormat(t, s, "csv", "/csv/stations?offset=990&limit=1020"))).ReadAll()
	want := rbIDs(t, serveUp(s, http.MethodGet, "/json/stations?offset=990&limit=1020", "", "").Body.Bytes())
	if err != nil || len(rows) != len(want)+1 || rows[1][1] != want[0] || rows[len(rows)-1][1] != want[len(want)-1] {
		t.Errorf("/csv/stations across chunks: %v, %d rows for %d", err, len(rows), len(want))
	}
	xmllint(t, "/xml/stations", fetchFormat(t, s, "xml", "/xml/stations"))
	xmllint(t, "/xspf/stations", fetchFormat(t, s, "xspf", "/xspf/stations"))
	if triples := turtleTriples(t, "/ttl/stations", fetchFormat(t, s, "ttl", "/ttl/stations")); len(triples) < 20*n {
		t.Errorf("/ttl/stations: %d triples for %d stations", len(triples), n)
	}
}

// TestRBAPIFormatsOfLists: the lists in csv and xml, the click in xml,
// m3u and pls, the stats in xml say what their JSON says; a format
// upstream has not for a path is a 406 with a JSON error.
func TestRBAPIFormatsOfLists(t *testing.T) {
	rbFormatTools(t)
	s := newDemoServer(t, nil)
	for _, list := range []struct{ path, element string }{
		{"/tags", "tag"}, {"/codecs", "codec"}, {"/countries", "language"}, {"/countrycodes", "countrycode"},
		{"/languages", "language"}, {"/states", "state"}, {"/states/Austria/w", "state"}, {"/states/Austria/", "state"},
	} {
		var want []map[string]any
		if err := json.Unmarshal(serveUp(s, http.MethodGet, "/json"+list.path, "", "").Body.Bytes(), &want); err != nil || len(want) == 0 {
			t.Fatalf("/json%s: %v, %d", list.path, err, len(want))
		}
		rows, err := csv.NewReader(bytes.NewReader(fetchFormat(t, s, "csv", "/csv"+list.path))).ReadAll()
		if err != nil || len(rows) != len(want)+1 || rows[0][0] != "name" || rows[0][len(rows[0])-1] != "stationcount" {
			t.Fatalf("/csv%s: %v, %d rows for %d", list.path, err, len(rows), len(want))
		}
		for i, row := range rows[1:] {
			for c, name := range rows[0] {
				if row[c] != fieldText(want[i][name]) {
					t.Errorf("/csv%s: row %d %s=%q, JSON %v", list.path, i, name, row[c], want[i][name])
				}
			}
		}
		body := fetchFormat(t, s, "xml", "/xml"+list.path)
		xmllint(t, "/xml"+list.path, body)
		var doc struct {
			Entries []struct {
				XMLName xml.Name
				Attrs   []xml.Attr `xml:",any,attr"`
			} `xml:",any"`
		}
		if err := xml.Unmarshal(body, &doc); err != nil || len(doc.Entries) != len(want) {
			t.Fatalf("/xml%s: %v, %d entries for %d", list.path, err, len(doc.Entries), len(want))
		}
		for i, e := range doc.Entries {
			for _, a := range e.Attrs {
				if e.XMLName.Local != list.element || a.Value != fieldText(want[i][a.Name.Local]) {
					t.Errorf("/xml%s: %s %s=%q, JSON %v", list.path, e.XMLName.Local, a.Name.Local, a.Value, want[i][a.Name.Local])
				}
			}
		}
	}
	const id = "cbbf6759-8124-405d-a884-3bd8732946bd"
	var click map[string]any
	if err := json.Unmarshal(serveUp(s, http.MethodGet, "/json/url/"+id, "", "").Body.Bytes(), &click); err != nil {
		t.Fatal(err)
	}
	body := fetchFormat(t, s, "xml", "/xml/url/"+id)
	xmllint(t, "/xml/url", body)
	var status struct {
		Status struct {
			Attrs []xml.Attr `xml:",any,attr"`
		} `xml:"status"`
	}
	if err := xml.Unmarshal(body, &status); err != nil || len(status.Status.Attrs) != 5 {
		t.Fatalf("/xml/url: %v %s", err, body)
	}
	for _, a := range status.Status.Attrs {
		if a.Value != fieldText(click[a.Name.Local]) {
			t.Errorf("/xml/url: %s=%q, JSON %v", a.Name.Local, a.Value, click[a.Name.Local])
		}
	}
	for _, ext := range []string{"m3u", "pls"} {
		got := playlistEntries(t, ext+" url", ext, fetchFormat(t, s, ext, "/"+ext+"/url/"+id))
		if len(got) != 1 || got[0].URI != click["url"] || got[0].Title != click["name"] {
			t.Errorf("/%s/url: %+v, JSON %v", ext, got, click)
		}
	}
	xmllint(t, "/xml/stats", fetchFormat(t, s, "xml", "/xml/stats"))
	for _, target := range []string{"/m3u/tags", "/ttl/url/" + id, "/csv/stats", "/xml/servers", "/pls/states/x/y"} {
		rec := serveUp(s, http.MethodGet, target, "", "")
		if code := errorCode(t, rec); rec.Code != http.StatusNotAcceptable || code != core.CodeNotAcceptable {
			t.Errorf("%s: %d %s, want 406", target, rec.Code, code)
		}
	}
	for _, target := range []string{"/yaml/stations", "/xml/nothing"} {
		if rec := serveUp(s, http.MethodGet, target, "", ""); rec.Code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", target, rec.Code)
		}
	}
	if rec := serveUp(s, http.MethodHead, "/m3u/stations/topvote/3", "", ""); rec.Code != http.StatusOK || rec.Body.Len() != 0 ||
		rec.Header().Get("Content-Type") != "audio/mpegurl" || !strings.Contains(rec.Header().Get("Content-Disposition"), "playlist.m3u") {
		t.Errorf("HEAD /m3u/stations/topvote/3: %d %v", rec.Code, rec.Header())
	}
}

// TestRBAPIFormatsHostileInput: hostile input on every path in every
// format is never a 5xx, an error is a JSON error, and no answer is
// longer than its limit allows.
func TestRBAPIFormatsHostileInput(t *testing.T) {
	s := newDemoServer(t, nil)
	const id = "cbbf6759-8124-405d-a884-3bd8732946bd"
	paths := []string{
		"/stations", "/stations/search", "/stations/byuuid", "/stations/byuuid/" + id, "/stations/byurl",
		"/stations/bytag/%00%ff", "/stations/byname/" + strings.Repeat("%E2%80%AE", 50), "/stations/topvote/99999999999999999999",
		"/stations/broken/-1", "/url/" + id, "/url/%3Cx%3E", "/tags/%25", "/countries/%00", "/states/a/b/c", "/stats", "/servers",
		"/vote/" + id, "/stations/changed", "/nothing/here",
	}
	queries := []string{
		"", "limit=-5&offset=1e9", "order=%27%3B%20DROP%20TABLE&reverse=maybe", "hidebroken=%00", "name=%ff%fe&tag=%00",
		"has_geo_info=null", "geo_lat=1e400&geo_long=-1e400&geo_distance=NaN", "uuids=" + strings.Repeat(id+",", 50),
		"url=javascript:alert(1)", "tagList=" + strings.Repeat(",", 500), "limit=3&" + strings.Repeat("x=1&", 200),
	}
	answered := 0
	for _, f := range []string{"json", "xml", "csv", "m3u", "pls", "xspf", "ttl"} {
		for _, p := range paths {
			for _, q := range queries {
				target := "/" + f + p + "?" + q
				for _, method := range []string{http.MethodGet, http.MethodPost} {
					rec := serveUp(s, method, target, "application/json", `{"limit":{"x":1},"order":[1,2],"hidebroken":"yes"}`)
					switch {
					case rec.Code >= 500 && !(rec.Code == 501 && strings.Contains(p, "changed")):
						t.Errorf("%s %.120s: %d %.200s", method, target, rec.Code, rec.Body)
					case rec.Code >= 400 && rec.Code != 404 && !json.Valid(rec.Body.Bytes()):
						t.Errorf("%s %.120s: %d, not a JSON error: %.200s", method, target, rec.Code, rec.Body)
					case rec.Code == 200 && strings.Contains(q, "limit=3") && strings.HasPrefix(p, "/stations/search") && f == "json" &&
						len(rbIDs(t, rec.Body.Bytes())) > 3:
						t.Errorf("%s %.120s: more than its limit", method, target)
					}
					answered++
				}
			}
		}
	}
	t.Logf("%d hostile requests, none a 5xx", answered)
}

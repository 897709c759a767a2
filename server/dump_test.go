package server

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"testing"

	"stationdex/indexer"
	"stationdex/internal/stationjson"
	"stationdex/query"
	"stationdex/server/core"
	"stationdex/server/files"
	"stationdex/server/params"
)

// catalogOf reads /data/catalog.json.
func catalogOf(t testing.TB, s *Server) files.CatalogDoc {
	t.Helper()
	rec := fetchOK(t, s, "/data/catalog.json")
	var doc files.CatalogDoc
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestDumps: both dumps, from the stored bytes (the server's base URL is
// the indexer's) and rewritten for another base URL, served with
// Content-Length, ETag, Range, gzip, matching the catalog's sizes and
// digests, every line the API's station byte for byte.
func TestDumps(t *testing.T) {
	ix := demoIx(t)
	for _, base := range []string{indexer.DefaultBaseURL, testBase} {
		t.Run(base, func(t *testing.T) { checkDumps(t, ix, base) })
	}
}

// TestCloseRemovesRebasedDumps: the dumps a server rewrites for its own
// base URL are its files, deleted by Close, and rewritten again for a new
// index, the old ones deleted.
func TestCloseRemovesRebasedDumps(t *testing.T) {
	ix := demoIx(t)
	s := serverAt(t, ix, testBase)
	fetchOK(t, s, local(t, testBase, testBase+core.PathDumpNDJSON))
	dir := s.files.Rebased.Cur.Dir
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("rewritten dumps: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("after Close, %s: %v; want it removed", dir, err)
	}
}

func checkDumps(t *testing.T, ix *query.Index, base string) {
	s := serverAt(t, ix, base)
	cat := catalogOf(t, s)
	if cat.Type != "Dataset" || cat.License == "" || cat.Extra.RecordCount != ix.Meta().Stations || len(cat.Distribution) != 2 {
		t.Fatalf("catalog %+v", cat)
	}
	for _, d := range cat.Distribution {
		target := local(t, base, d.ContentURL)
		plain := fetchOK(t, s, target)
		body := plain.Body.Bytes()
		sum := sha256.Sum256(body)
		if int64(len(body)) != d.Bytes || hex.EncodeToString(sum[:]) != d.SHA256 || plain.Header().Get("Content-Length") != strconv.FormatInt(d.Bytes, 10) {
			t.Errorf("%s: %d bytes (header %s), catalog says %d, sha256 mismatch %v", target, len(body), plain.Header().Get("Content-Length"), d.Bytes, hex.EncodeToString(sum[:]) != d.SHA256)
		}
		if plain.Header().Get("Link") != "<"+base+"/data/catalog.json>; rel=\"describedby\"" {
			t.Errorf("%s: Link %q", target, plain.Header().Get("Link"))
		}
		if plain.Header().Get("ETag") == "" || plain.Header().Get("Content-Encoding") != "" || plain.Header().Get("Content-Type") != d.EncodingFormat+"; charset=utf-8" {
			t.Errorf("%s headers %v", target, plain.Header())
		}
		gz := fetchOK(t, s, target, "Accept-Encoding", "gzip")
		if gz.Header().Get("Content-Encoding") != "gzip" || gz.Header().Get("ETag") == plain.Header().Get("ETag") ||
			gz.Header().Get("Content-Length") != strconv.FormatInt(d.GzipBytes, 10) {
			t.Errorf("%s gzip headers %v", target, gz.Header())
		}
		if got := gunzip(t, gz.Body.Bytes()); !bytes.Equal(got, body) {
			t.Errorf("%s: gzip representation differs from the plain one", target)
		}
		checkRanges(t, s, target, body)
		checkNotModified(t, s, target, plain.Header().Get("ETag"))
		if head := serve(s, http.MethodHead, target); head.Code != 200 || head.Body.Len() != 0 || head.Header().Get("Content-Length") != strconv.FormatInt(d.Bytes, 10) {
			t.Errorf("HEAD %s: %d, %d bytes, %v", target, head.Code, head.Body.Len(), head.Header())
		}
		checkDumpedStations(t, s, d.Name, body, ix.Meta().Stations)
	}
}

func gunzip(t testing.TB, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkRanges: byte ranges of the plain representation, forwards and
// backwards, are the bytes of the whole.
func checkRanges(t *testing.T, s *Server, target string, whole []byte) {
	n := len(whole)
	for _, r := range [][2]int{{0, 9}, {n / 2, n/2 + 99}, {10, 19}, {n - 5, n - 1}} {
		spec := "bytes=" + strconv.Itoa(r[0]) + "-" + strconv.Itoa(r[1])
		rec := serve(s, http.MethodGet, target, "Range", spec)
		if rec.Code != http.StatusPartialContent || !bytes.Equal(rec.Body.Bytes(), whole[r[0]:r[1]+1]) {
			t.Errorf("%s Range %s: %d %q", target, spec, rec.Code, rec.Body.Bytes())
		}
	}
	rec := serve(s, http.MethodGet, target, "Range", "bytes=0-3", "Accept-Encoding", "gzip")
	if rec.Code != http.StatusPartialContent || !bytes.Equal(rec.Body.Bytes(), []byte{0x1f, 0x8b, 8, 0}) {
		t.Errorf("%s gzip range: %d %x", target, rec.Code, rec.Body.Bytes())
	}
}

func checkNotModified(t *testing.T, s *Server, target, tag string) {
	if rec := serve(s, http.MethodGet, target, "If-None-Match", tag); rec.Code != http.StatusNotModified {
		t.Errorf("%s If-None-Match: %d", target, rec.Code)
	}
}

// checkDumpedStations: every record parses, and is byte for byte the
// station the API returns for its id (same encoder, same base URL).
func checkDumpedStations(t *testing.T, s *Server, name string, body []byte, want int) {
	var lines [][]byte
	if name == "stations.json" {
		var arr []json.RawMessage
		if err := json.Unmarshal(body, &arr); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, m := range arr {
			lines = append(lines, m)
		}
	} else {
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(nil, files.MaxDumpLine)
		for sc.Scan() {
			lines = append(lines, bytes.Clone(sc.Bytes()))
		}
	}
	if len(lines) != want {
		t.Fatalf("%s: %d records, want %d", name, len(lines), want)
	}
	for i, line := range lines {
		var st stationjson.Station
		if err := json.Unmarshal(line, &st); err != nil {
			t.Fatalf("%s record %d: %v", name, i, err)
		}
		if i%97 != 0 && len(lines) > 1000 {
			continue // a sample of a large dump; each line parsed above
		}
		api := fetchOK(t, s, "/api/stations/"+st.ID)
		var env struct{ Station json.RawMessage }
		if err := json.Unmarshal(api.Body.Bytes(), &env); err != nil {
			t.Fatal(err)
		}
		// The API's station record adds its variants, last, to the
		// Station the dumps hold.
		if i := bytes.LastIndex(env.Station, []byte(`,"variants":[`)); i > 0 {
			env.Station = append(env.Station[:i:i], '}')
		}
		if !bytes.Equal(env.Station, line) {
			t.Errorf("%s record %d differs from the API:\n%s\n%s", name, i, line, env.Station)
		}
	}
}

// TestWellKnown: the capabilities document names both operations and the
// limits the parser enforces.
func TestWellKnown(t *testing.T) {
	s := newDemoServer(t, nil)
	rec := fetchOK(t, s, "/.well-known/radio-directory.json")
	var c files.Capabilities
	if err := json.Unmarshal(rec.Body.Bytes(), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Operations) != 2 || c.Filters["q"].MaxLength != 120 || c.Filters["language"].MaxLength != 60 || c.Paging["limit"].Maximum != 50 ||
		c.Paging["offset"].Maximum != 5000 || c.Ranking.Name != params.Ranking || c.SnapshotAt != "2025-02-27T12:00:00Z" || c.Source == "" || c.SchemaVersion == "" || len(c.Datasets) != 2 {
		t.Errorf("capabilities %+v", c)
	}
	for _, u := range append([]string{c.OpenAPI, c.Catalog, c.Sitemap, c.LLMsTxt, c.MarkdownHome}, c.Datasets[0].URL, c.Datasets[1].URL) {
		fetchOK(t, s, local(t, testBase, u))
	}
}

// TestLLMsTxt: the llms.txt shape (H1, blockquote, H2 sections of links)
// and every link answers.
func TestLLMsTxt(t *testing.T) {
	s := newDemoServer(t, nil)
	rec := fetchOK(t, s, "/llms.txt")
	body := rec.Body.Bytes()
	if rec.Header().Get("Content-Type") != "text/plain; charset=utf-8" || !bytes.HasPrefix(body, []byte("# stationdex\n\n> ")) {
		t.Fatalf("llms.txt %q: %.100s", rec.Header().Get("Content-Type"), body)
	}
	d := parseMarkdown(t, body)
	if len(d.headings[1]) != 1 || len(d.headings[2]) < 3 || len(d.links) < 10 || d.rawHTML+d.autolinks+d.images != 0 {
		t.Errorf("structure %+v", d)
	}
	for _, l := range d.links {
		rec := fetchOK(t, s, local(t, testBase, l))
		if bytes.HasSuffix([]byte(l), []byte(".md")) && rec.Header().Get("Content-Type") != core.MarkdownMediaType {
			t.Errorf("%s: %s", l, rec.Header().Get("Content-Type"))
		}
	}
}

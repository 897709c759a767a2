package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"stationdex/indexer"
	"stationdex/query"
	"stationdex/server/core"
	"stationdex/server/pages"
)

// The response path: content codings, their ETags, HEAD, 304 and the
// response cache.

// decodeBody undoes a Content-Encoding.
func decodeBody(coding string, body []byte) ([]byte, error) {
	switch coding {
	case "", "identity":
		return body, nil
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		return io.ReadAll(zr)
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		return io.ReadAll(zr)
	}
	return nil, fmt.Errorf("unknown coding %q", coding)
}

// respondTargets are answers of every kind the one writer sends: API,
// pages and their twins, text and description files, static files.
var respondTargets = []string{
	"/api/stations?q=radio",
	"/api/stations?q=radio&facets=country,genre",
	"/api/stations/cbbf6759-8124-405d-a884-3bd8732946bd",
	"/api/stations?q=nosuchwordanywhere",
	"/",
	"/search/?q=jazz",
	"/search/index.md?q=jazz",
	"/genres/",
	"/countries/index.md",
	"/stations/cbbf6759-8124-405d-a884-3bd8732946bd/",
	"/stations/cbbf6759-8124-405d-a884-3bd8732946bd/listen/",
	"/guide/",
	"/llms.txt",
	"/openapi.json",
	"/.well-known/radio-directory.json",
	"/data/catalog.json",
	"/sitemap.xml",
	"/sitemaps/pages.xml",
	"/sitemaps/stations-1.xml",
	"/robots.txt",
	"/static/style.css",
}

var acceptEncodings = []string{"", "identity", "gzip", "zstd", "gzip, deflate, br, zstd", "gzip;q=1, zstd;q=0.5"}

func TestNegotiate(t *testing.T) {
	for _, tc := range []struct {
		accept []string
		want   core.Coding
	}{
		{nil, core.Identity},
		{[]string{""}, core.Identity},
		{[]string{"identity"}, core.Identity},
		{[]string{"gzip"}, core.GzipCoding},
		{[]string{"x-gzip"}, core.GzipCoding},
		{[]string{"GZIP"}, core.GzipCoding},
		{[]string{"zstd"}, core.ZstdCoding},
		{[]string{"gzip, zstd"}, core.ZstdCoding},   // a tie: zstd preferred
		{[]string{"gzip", "zstd"}, core.ZstdCoding}, // several header lines
		{[]string{"gzip;q=1, zstd;q=0.5"}, core.GzipCoding},
		{[]string{"gzip;q=0.4, zstd;q=0.5"}, core.ZstdCoding},
		{[]string{"gzip;q=0, zstd;q=0"}, core.Identity},
		{[]string{"gzip;q=0"}, core.Identity},
		{[]string{"*"}, core.GzipCoding}, // what node-fetch sends: zstd only when named
		{[]string{"*, zstd"}, core.ZstdCoding},
		{[]string{"zstd;q=0, *"}, core.GzipCoding},
		{[]string{"*;q=0.5, gzip;q=0.2"}, core.Identity}, // gzip named lower, identity by *
		{[]string{"identity;q=0"}, core.Identity},        // nothing acceptable: identity anyway
		{[]string{"identity;q=0, *;q=0"}, core.Identity},
		{[]string{"identity;q=0, gzip"}, core.GzipCoding},
		{[]string{"*;q=0.5, zstd;q=0"}, core.GzipCoding},
		{[]string{"*;q=0"}, core.Identity}, // nothing acceptable: identity anyway
		{[]string{"identity;q=1, gzip;q=0.5"}, core.Identity},
		{[]string{"identity;q=0.5, gzip"}, core.GzipCoding},
		{[]string{"br, deflate"}, core.Identity},
		{[]string{"gzip;q=nonsense"}, core.GzipCoding}, // a malformed q is ignored: 1
	} {
		if got := core.Negotiate(tc.accept); got != tc.want {
			t.Errorf("negotiate(%q) = %s, want %s", tc.accept, got.Name(), tc.want.Name())
		}
	}
}

// TestEncodingsDecodeToIdentity: every variant of every kind of answer
// decodes to the identity body, carries the coding's own ETag and says
// Vary: Accept-Encoding; small bodies are sent as they are.
func TestEncodingsDecodeToIdentity(t *testing.T) {
	s := newDemoServer(t, nil)
	compressed := 0
	for _, target := range respondTargets {
		plain := serve(s, http.MethodGet, target, "Accept-Encoding", "identity")
		if plain.Code != http.StatusOK {
			t.Fatalf("%s: status %d", target, plain.Code)
		}
		if plain.Header().Get("Content-Encoding") != "" {
			t.Errorf("%s: identity asked, got Content-Encoding %q", target, plain.Header().Get("Content-Encoding"))
		}
		for _, ae := range acceptEncodings {
			rec := serve(s, http.MethodGet, target, "Accept-Encoding", ae)
			ce := rec.Header().Get("Content-Encoding")
			want := core.Negotiate([]string{ae})
			big := plain.Body.Len() >= core.MinCompressBytes
			switch {
			case big && ce != nameOrEmpty(want):
				t.Errorf("%s with %q: Content-Encoding %q, want %q", target, ae, ce, nameOrEmpty(want))
			case !big && ce != "":
				t.Errorf("%s with %q: a %d-byte body was sent as %s", target, ae, plain.Body.Len(), ce)
			}
			if ce != "" {
				compressed++
			}
			got, err := decodeBody(ce, rec.Body.Bytes())
			if err != nil {
				t.Fatalf("%s with %q: %v", target, ae, err)
			}
			if !bytes.Equal(got, plain.Body.Bytes()) {
				t.Errorf("%s with %q: decoded body differs from the identity body", target, ae)
			}
			if cl := rec.Header().Get("Content-Length"); cl != strconv.Itoa(rec.Body.Len()) {
				t.Errorf("%s with %q: Content-Length %s for %d bytes", target, ae, cl, rec.Body.Len())
			}
			if big && !hasVary(rec.Header(), "Accept-Encoding") {
				t.Errorf("%s with %q: no Vary: Accept-Encoding", target, ae)
			}
			wantTag := plain.Header().Get("ETag")
			if ce != "" {
				wantTag = want.Tag(wantTag)
			}
			if tag := rec.Header().Get("ETag"); tag != wantTag {
				t.Errorf("%s with %q: ETag %s, want %s", target, ae, tag, wantTag)
			}
		}
	}
	if compressed == 0 {
		t.Fatal("no answer was compressed")
	}
}

func nameOrEmpty(c core.Coding) string {
	if c == core.Identity {
		return ""
	}
	return c.Name()
}

func hasVary(h http.Header, name string) bool {
	for _, v := range h.Values("Vary") {
		for f := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(f), name) {
				return true
			}
		}
	}
	return false
}

// TestCacheOnOffIdentical: a server with the response cache answers, first
// and repeated, byte for byte and header for header what a server without
// it answers, in every coding.
func TestCacheOnOffIdentical(t *testing.T) {
	ix := demoIx(t)
	cached := newServerWithCache(t, fixedSource{ix}, 8<<20)
	uncached := newServerWithCache(t, fixedSource{ix}, -1)
	headers := []string{"Content-Type", "Content-Length", "Content-Encoding", "ETag", "Cache-Control", "Vary",
		"Content-Security-Policy", "X-Content-Type-Options", "Access-Control-Allow-Origin"}
	for _, target := range respondTargets {
		for _, ae := range acceptEncodings {
			want := serve(uncached, http.MethodGet, target, "Accept-Encoding", ae)
			for round := range 3 { // a miss, then hits
				got := serve(cached, http.MethodGet, target, "Accept-Encoding", ae)
				if got.Code != want.Code || !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
					t.Errorf("%s with %q, round %d: cached answer %d (%d bytes) differs from uncached %d (%d bytes)",
						target, ae, round, got.Code, got.Body.Len(), want.Code, want.Body.Len())
				}
				for _, h := range headers {
					if g, w := got.Header().Values(h), want.Header().Values(h); strings.Join(g, "|") != strings.Join(w, "|") {
						t.Errorf("%s with %q, round %d: %s %q with the cache, %q without", target, ae, round, h, g, w)
					}
				}
			}
		}
	}
	st := cached.CacheStats()
	if st.Hits == 0 || st.Entries == 0 {
		t.Errorf("the cached server answered nothing from its cache: %+v", st)
	}
	if st := uncached.CacheStats(); st.Entries != 0 || st.Hits != 0 || st.Bytes != 0 {
		t.Errorf("a disabled cache holds something: %+v", st)
	}
}

// newServerWithCache stores every 200 on its first request (CacheMinUses
// 1): the tests using it are about what is stored, evicted and answered;
// TestCacheAdmitsOnSecondRequest is about the default admission.
func newServerWithCache(t testing.TB, src query.Source, bytes int64) *Server {
	t.Helper()
	return newServerWithAdmission(t, src, bytes, 1)
}

func newServerWithAdmission(t testing.TB, src query.Source, bytes int64, minUses int) *Server {
	t.Helper()
	cfg := testConfig(nil)
	cfg.CacheBytes, cfg.CacheMinUses = bytes, minUses
	s := New(cfg, src)
	t.Cleanup(func() { s.Close() })
	return s
}

// TestCacheAdmitsOnSecondRequest: by default a body is stored on the
// second request for it, so one-off requests neither fill the cache nor
// evict what repeats; answers are the same whether stored or not.
func TestCacheAdmitsOnSecondRequest(t *testing.T) {
	ix := demoIx(t)
	s := newServerWithAdmission(t, fixedSource{ix}, 8<<20, 0) // 0: the default
	hot := "/api/stations?q=radio"
	first := serve(s, http.MethodGet, hot)
	if st := s.CacheStats(); st.Entries != 0 || st.Declined != 1 {
		t.Fatalf("after one request: %+v, want nothing stored and one declined", st)
	}
	second := serve(s, http.MethodGet, hot)
	if st := s.CacheStats(); st.Entries != 1 || st.Hits != 0 {
		t.Fatalf("after the second request: %+v, want it stored", st)
	}
	third := serve(s, http.MethodGet, hot)
	if st := s.CacheStats(); st.Hits != 1 {
		t.Fatalf("after the third request: %+v, want a hit", st)
	}
	for i, rec := range []*httptest.ResponseRecorder{first, second, third} {
		if rec.Code != http.StatusOK || !bytes.Equal(rec.Body.Bytes(), first.Body.Bytes()) || rec.Header().Get("ETag") != first.Header().Get("ETag") {
			t.Errorf("request %d: %d, a different answer from the first", i+1, rec.Code)
		}
	}
	// A scan of one-off searches stores none of them and keeps the one
	// that repeats.
	for i := range 200 {
		serve(s, http.MethodGet, "/api/stations?limit="+strconv.Itoa(1+i%50)+"&offset="+strconv.Itoa(i/50))
	}
	if st := s.CacheStats(); st.Entries != 1 || st.Evictions != 0 || st.Declined != 201 {
		t.Errorf("after 200 one-off searches: %+v, want only the repeated one stored", st)
	}
	serve(s, http.MethodGet, hot)
	if st := s.CacheStats(); st.Hits != 2 {
		t.Errorf("the repeated search was evicted by the scan: %+v", st)
	}
}

// TestHeadAndConditionalPerEncoding: HEAD has GET's headers without the
// body, and If-None-Match answers 304 only for the variant that would be
// sent (weak comparison: W/ is ignored), for every coding.
func TestHeadAndConditionalPerEncoding(t *testing.T) {
	for _, cache := range []int64{0, -1} { // with the cache (hits), without (304 before building)
		headAndConditional(t, newServerWithCache(t, fixedSource{demoIx(t)}, cache))
	}
}

func headAndConditional(t *testing.T, s *Server) {
	for _, target := range []string{"/api/stations?q=radio", "/search/?q=jazz", "/llms.txt", "/openapi.json", "/sitemaps/stations-1.xml"} {
		for _, ae := range []string{"identity", "gzip", "zstd"} {
			get := serve(s, http.MethodGet, target, "Accept-Encoding", ae)
			head := serve(s, http.MethodHead, target, "Accept-Encoding", ae)
			name := target + " " + ae
			if head.Code != http.StatusOK || head.Body.Len() != 0 {
				t.Errorf("%s: HEAD %d with %d body bytes", name, head.Code, head.Body.Len())
			}
			for _, h := range []string{"Content-Type", "Content-Length", "Content-Encoding", "ETag", "Vary", "Cache-Control"} {
				if g, w := head.Header().Values(h), get.Header().Values(h); strings.Join(g, "|") != strings.Join(w, "|") {
					t.Errorf("%s: HEAD %s %q, GET %q", name, h, g, w)
				}
			}
			tag := get.Header().Get("ETag")
			if ae != "identity" && !strings.HasSuffix(tag, map[string]string{"gzip": `-gz"`, "zstd": `-zst"`}[ae]) {
				t.Errorf("%s: ETag %s has no variant suffix", name, tag)
			}
			identityTag := serve(s, http.MethodGet, target, "Accept-Encoding", "identity").Header().Get("ETag")
			for _, tc := range []struct {
				ifNoneMatch string
				want        int
			}{
				{tag, http.StatusNotModified},
				{"W/" + tag, http.StatusNotModified},
				{`"other", ` + tag, http.StatusNotModified},
				{"*", http.StatusNotModified},
				{`"other"`, http.StatusOK},
				{strings.TrimSuffix(tag, `"`) + `x"`, http.StatusOK},
			} {
				for _, method := range []string{http.MethodGet, http.MethodHead} {
					rec := serve(s, method, target, "Accept-Encoding", ae, "If-None-Match", tc.ifNoneMatch)
					if rec.Code != tc.want {
						t.Errorf("%s: %s If-None-Match %s: %d, want %d", name, method, tc.ifNoneMatch, rec.Code, tc.want)
					}
					if rec.Code == http.StatusNotModified && (rec.Body.Len() != 0 || rec.Header().Get("ETag") != tag ||
						!hasVary(rec.Header(), "Accept-Encoding")) {
						t.Errorf("%s: 304 with body %d bytes, ETag %s (want %s), Vary %q",
							name, rec.Body.Len(), rec.Header().Get("ETag"), tag, rec.Header().Values("Vary"))
					}
				}
			}
			// The tag of another coding names another representation.
			if ae != "identity" {
				if rec := serve(s, http.MethodGet, target, "Accept-Encoding", ae, "If-None-Match", identityTag); rec.Code != http.StatusOK {
					t.Errorf("%s: the identity tag %s answered %d for a %s request, want 200", name, identityTag, rec.Code, ae)
				}
			}
		}
	}
}

// TestCacheBoundUnderDistinctQueries: a stream of distinct searches, in
// every coding, never holds more than the bound, and evicts.
func TestCacheBoundUnderDistinctQueries(t *testing.T) {
	const bound = 96 << 10
	s := newServerWithCache(t, fixedSource{demoIx(t)}, bound)
	codings := []string{"identity", "gzip", "zstd"}
	for i := range 600 {
		target := "/api/stations?limit=" + strconv.Itoa(1+i%50) + "&offset=" + strconv.Itoa(i/50)
		rec := serve(s, http.MethodGet, target, "Accept-Encoding", codings[i%3])
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d", target, rec.Code)
		}
		if st := s.CacheStats(); st.Bytes > bound || st.Bytes < 0 {
			t.Fatalf("after %d distinct searches the cache holds %d bytes; bound %d", i+1, st.Bytes, bound)
		}
	}
	st := s.CacheStats()
	if st.Evictions == 0 || st.Entries == 0 || st.Misses < 600 {
		t.Errorf("600 distinct searches under a %d-byte bound: %+v; want evictions, entries and 600 misses", bound, st)
	}
	if st.Bytes < bound/2 {
		t.Errorf("the cache holds %d bytes of a %d-byte bound: it is not being filled", st.Bytes, bound)
	}
}

func TestCacheLRUAndVariantAccounting(t *testing.T) {
	ix := demoIx(t)
	body := bytes.Repeat([]byte("x"), 1000)
	one := core.EntrySize("k0", &core.Entity{Body: body}) // every key below has 2 bytes
	c := core.NewResponseCache(3*one, 1)
	for i := range 3 {
		c.Put(ix, "k"+strconv.Itoa(i), "", &core.Entity{Body: body})
	}
	if c.Get(ix, "k0", "") == nil { // k0 is now the most recently used
		t.Fatal("k0 not held")
	}
	c.Put(ix, "k3", "", &core.Entity{Body: body})
	if c.Get(ix, "k1", "") != nil {
		t.Error("k1, the least recently used, was not evicted")
	}
	for _, k := range []string{"k0", "k2", "k3"} {
		if c.Get(ix, k, "") == nil {
			t.Errorf("%s evicted; only k1 should be", k)
		}
	}
	// A variant counts: storing one evicts the least recently used.
	e := c.Get(ix, "k3", "")
	c.AddVariant(ix, "k3", e, core.GzipCoding, make([]byte, 10))
	if st := c.Stats(); st.Entries != 2 || st.Bytes != 2*one+10 || st.Evictions != 2 {
		t.Errorf("after a variant: %+v, want 2 entries of %d bytes with 10 more, 2 evictions", st, one)
	}
	if e.Variants[core.GzipCoding].Load() == nil {
		t.Error("the variant was not kept")
	}
	// An entity larger than the bound is never stored.
	c.Put(ix, "huge", "", &core.Entity{Body: make([]byte, 4*one)})
	if c.Get(ix, "huge", "") != nil {
		t.Error("an entity larger than the bound was stored")
	}
	if st := c.Stats(); st.Bytes > st.MaxBytes {
		t.Errorf("size %d over the bound %d", st.Bytes, st.MaxBytes)
	}
}

// TestSwapEmptiesCache: the first request on a new snapshot empties the
// cache, and a request still running on the replaced one neither reads
// nor stores.
func TestSwapEmptiesCache(t *testing.T) {
	a, b := openDemoCopy(t, tempDir(t)), openDemoCopy(t, tempDir(t))
	holder := query.NewHolder(a)
	t.Cleanup(holder.Close)
	s := newServerWithCache(t, holder, 8<<20)
	for _, target := range []string{"/api/stations?q=radio", "/", "/llms.txt"} {
		serve(s, http.MethodGet, target)
		serve(s, http.MethodGet, target, "Accept-Encoding", "gzip")
	}
	before := s.CacheStats()
	if before.Entries != 3 || before.Hits == 0 {
		t.Fatalf("before the swap: %+v, want 3 entries and hits", before)
	}
	old, release := holder.Acquire() // a request still running on a
	defer release()
	holder.Swap(b)
	rec := serve(s, http.MethodGet, "/api/stations?q=jazz")
	if rec.Code != http.StatusOK {
		t.Fatalf("after the swap: %d", rec.Code)
	}
	if st := s.CacheStats(); st.Entries != 1 || st.Bytes >= before.Bytes {
		t.Errorf("after the swap and one request: %+v, want only that request's entry", st)
	}
	if s.Cache.Get(old, core.PathStations+"?q=radio&limit=20&offset=0", "") != nil {
		t.Error("a request on the replaced snapshot read from the cache")
	}
	s.Cache.Put(old, "old", "", &core.Entity{Body: []byte("old")})
	if s.Cache.Get(b, "old", "") != nil {
		t.Error("a request on the replaced snapshot stored into the cache")
	}
	if s.Cache.Current() != b {
		t.Error("a request on the replaced snapshot made it current again")
	}
	misses := s.CacheStats().Misses
	serve(s, http.MethodGet, "/api/stations?q=radio")
	if s.CacheStats().Misses != misses+1 {
		t.Error("a search cached before the swap was answered from the cache after it")
	}
	// PurgeCache (called by the node after a swap) frees everything at once.
	s.PurgeCache()
	if st := s.CacheStats(); st.Entries != 0 || st.Bytes != 0 {
		t.Errorf("after PurgeCache: %+v", st)
	}
	if rec := serve(s, http.MethodGet, "/api/stations?q=radio"); rec.Code != http.StatusOK || s.CacheStats().Entries != 1 {
		t.Errorf("after PurgeCache the cache does not fill again: %d, %+v", rec.Code, s.CacheStats())
	}
}

func openDemoCopy(t *testing.T, dir string) *query.Index {
	t.Helper()
	path, err := indexer.BuildDemo(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := query.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestErrorsAreNotCached: error answers are no-store and never enter the
// cache, in any coding.
func TestErrorsAreNotCached(t *testing.T) {
	s := newServerWithCache(t, fixedSource{demoIx(t)}, 8<<20)
	for _, target := range []string{"/api/stations?limit=0x", "/api/stations/nope", "/stations/nope/", "/sitemaps/stations-99.xml"} {
		for range 2 {
			rec := serve(s, http.MethodGet, target, "Accept-Encoding", "gzip")
			if rec.Code < 400 || rec.Header().Get("Cache-Control") != "no-store" || rec.Header().Get("ETag") != "" {
				t.Errorf("%s: %d, Cache-Control %q, ETag %q", target, rec.Code, rec.Header().Get("Cache-Control"), rec.Header().Get("ETag"))
			}
		}
	}
	if st := s.CacheStats(); st.Entries != 0 {
		t.Errorf("errors entered the cache: %+v", st)
	}
	// "*" names any current representation: a station that does not exist
	// has none, so it stays a 404.
	if rec := serve(s, http.MethodGet, "/api/stations/00000000-0000-4000-8000-000000000000", "If-None-Match", "*"); rec.Code != http.StatusNotFound {
		t.Errorf("If-None-Match: * on a missing station: %d, want 404", rec.Code)
	}
}

// TestRangeIgnoredOnAnswers: Range is ignored on answers built from the
// index (RFC 9110 14.2) and honoured on static files.
func TestRangeIgnoredOnAnswers(t *testing.T) {
	s := newDemoServer(t, nil)
	rec := serve(s, http.MethodGet, "/api/stations?q=radio", "Range", "bytes=0-9")
	if rec.Code != http.StatusOK || rec.Header().Get("Accept-Ranges") != "" {
		t.Errorf("search with Range: %d, Accept-Ranges %q; want 200 and none", rec.Code, rec.Header().Get("Accept-Ranges"))
	}
	whole := serve(s, http.MethodGet, "/static/style.css")
	part := serve(s, http.MethodGet, "/static/style.css", "Range", "bytes=0-9")
	if part.Code != http.StatusPartialContent || !bytes.Equal(part.Body.Bytes(), whole.Body.Bytes()[:10]) {
		t.Errorf("style sheet range: %d, %q", part.Code, part.Body.Bytes())
	}
}

// TestCacheByTarget: an API request target answered from the cache names
// its entry from then on: the next request with it is a hit found by the
// target, with the same bytes; spellings of one search share the entry up
// to maxTargets; and the targets go with the entry when it is evicted.
func TestCacheByTarget(t *testing.T) {
	ix := demoIx(t)
	s := newServerWithCache(t, fixedSource{ix}, 0)
	spellings := []string{"/api/stations?q=radio&limit=20", "/api/stations?limit=20&q=radio",
		"/api/stations?q=radio", "/api/stations?q=radio&offset=0", "/api/stations?limit=020&q=radio"}
	first := serve(s, http.MethodGet, spellings[0], "Accept-Encoding", "gzip")
	for _, target := range spellings {
		for range 2 {
			if rec := serve(s, http.MethodGet, target, "Accept-Encoding", "gzip"); !bytes.Equal(rec.Body.Bytes(), first.Body.Bytes()) {
				t.Fatalf("%s: another body than %s's", target, spellings[0])
			}
		}
	}
	const key = core.PathStations + "?q=radio&limit=20&offset=0"
	for i, target := range spellings {
		e, k := s.Cache.GetTarget(ix, target)
		if known := e != nil && k == key; known != (i < core.MaxTargets) {
			t.Errorf("%s: known by target %v (key %q); want only the first %d spellings", target, known, k, core.MaxTargets)
		}
	}
	s.Cache.Purge()
	if e, _ := s.Cache.GetTarget(ix, spellings[0]); e != nil {
		t.Error("a target outlived its entry")
	}
}

// TestCacheTargetsEvicted: targets are counted in the bound and dropped
// with their entry.
func TestCacheTargetsEvicted(t *testing.T) {
	ix := demoIx(t)
	body := bytes.Repeat([]byte("x"), 1000)
	one := core.EntrySize("k0", &core.Entity{Body: body})
	c := core.NewResponseCache(2*one+core.TargetOverhead+2, 1)
	c.Put(ix, "k0", "t0", &core.Entity{Body: body})
	if e, k := c.GetTarget(ix, "t0"); e == nil || k != "k0" {
		t.Fatalf("t0 not known: %v %q", e, k)
	}
	if st := c.Stats(); st.Bytes != one+core.TargetOverhead+2 {
		t.Errorf("with a target: %d bytes, want %d", st.Bytes, one+core.TargetOverhead+2)
	}
	c.Put(ix, "k1", "", &core.Entity{Body: body})
	c.Put(ix, "k2", "", &core.Entity{Body: body}) // evicts k0, the least recently used
	if e, _ := c.GetTarget(ix, "t0"); e != nil || c.TargetCount() != 0 {
		t.Errorf("the target of an evicted entry is still known (%d targets)", c.TargetCount())
	}
}

// TestWildcardAndRefusedIdentity: every kind of answer (API, pages and
// twins, data dump, style sheet) answers "Accept-Encoding: *" with gzip or
// as it is, never zstd, which such clients may not decode; and
// "identity;q=0" with nothing else acceptable with the identity body,
// status 200, the same for every kind.
func TestWildcardAndRefusedIdentity(t *testing.T) {
	s := newDemoServer(t, nil)
	targets := append(slices.Clone(respondTargets), core.PathDumpNDJSON, pages.StylePath)
	gzipped := 0
	for _, target := range targets {
		plain := serve(s, http.MethodGet, target, "Accept-Encoding", "identity")
		star := serve(s, http.MethodGet, target, "Accept-Encoding", "*")
		switch enc := star.Header().Get("Content-Encoding"); enc {
		case "gzip":
			gzipped++
			if body := gunzip(t, star.Body.Bytes()); !bytes.Equal(body, plain.Body.Bytes()) {
				t.Errorf("%s with *: the gzip body is not the identity body", target)
			}
		case "":
			if !bytes.Equal(star.Body.Bytes(), plain.Body.Bytes()) {
				t.Errorf("%s with *: not the identity body", target)
			}
		default:
			t.Errorf("%s with *: Content-Encoding %s", target, enc)
		}
		refused := serve(s, http.MethodGet, target, "Accept-Encoding", "identity;q=0")
		if refused.Code != http.StatusOK || refused.Header().Get("Content-Encoding") != "" || !bytes.Equal(refused.Body.Bytes(), plain.Body.Bytes()) {
			t.Errorf("%s with identity;q=0: status %d, encoding %q", target, refused.Code, refused.Header().Get("Content-Encoding"))
		}
	}
	if gzipped < len(targets)/2 {
		t.Errorf("only %d of %d answers to * were gzip", gzipped, len(targets))
	}
}

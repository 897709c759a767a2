package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"stationdex/internal/dim"
	"stationdex/internal/stationjson"
	"stationdex/query"
	"stationdex/server/api"
	"stationdex/server/core"
	"stationdex/server/params"
)

// TestEnvelopesAppendAsEncodingJSON: the envelopes' appenders write exactly
// what encoding/json writes for them, for searches over the hostile demo
// stations with and without filters, echoes and next links; the search
// envelope's dimension echoes, written from the dimension table, are
// checked by requireEchoes.
func TestEnvelopesAppendAsEncodingJSON(t *testing.T) {
	s := newDemoServer(t, nil)
	ix, _ := demoIndex()
	meta := ix.Meta()
	for _, raw := range []string{"", "q=radio&limit=3", "q=%3Cscript%3E", "country=us&limit=50", "genre=jazz&language=en", "q=zzzz",
		"location=berlin&https=false&codec=mp3,aac&distinct=true", "https=true&near=52.5,13.4&radius_km=80"} {
		env := encodedSearch(t, s, ix, raw)
		requireSearchAppendsAsJSON(t, raw, &env)
		for _, st := range env.Results {
			vs, total, err := api.VariantsOf(ix, s.Base, mustUUID(t, st.ID))
			if err != nil {
				t.Fatal(err)
			}
			requireAppendsAsJSON(t, &api.StationEnvelope{SchemaVersion: "1.0", SnapshotAt: env.SnapshotAt, Source: meta.Source,
				Station: api.StationWithVariants{Station: st, Variants: vs, VariantsTotal: total}})
		}
	}
}

// encodedSearch is the envelope of the search raw with its stations
// decoded from their records, as the server built it before the index
// stored their JSON.
func encodedSearch(t *testing.T, s *Server, ix *query.Index, raw string) api.SearchEnvelope {
	t.Helper()
	p, err := params.ParseSearchParams(raw)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(p.Query())
	if err != nil {
		t.Fatal(err)
	}
	return s.api.SearchEnvelope(ix.Meta(), p, res)
}

// requireSearchAppendsAsJSON: the search envelope of the query raw is, but
// for its dimension echoes, what encoding/json writes for it, and the
// echoes are what requireEchoes says, in the table's order, where the spec
// places them: the dimensions of schema 1.0 after q, the others after
// radius_km.
func requireSearchAppendsAsJSON(t *testing.T, raw string, env *api.SearchEnvelope) {
	t.Helper()
	want, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	got := env.AppendJSON(nil)
	wantKeys, gotKeys := topKeys(t, want), topKeys(t, got)
	var always, given []string
	for _, row := range dim.Rows {
		if row.Param.EchoAlways {
			always = append(always, row.Name)
		} else if env.Filters[dimOf(t, row.Name)] != nil {
			given = append(given, row.Name)
		}
	}
	at := slices.Index(wantKeys, "q") + 1
	wantKeys = slices.Insert(wantKeys, at, always...)
	at = slices.Index(wantKeys, "radius_km") + 1
	wantKeys = slices.Insert(wantKeys, at, given...)
	if !slices.Equal(gotKeys, wantKeys) {
		t.Fatalf("%s: keys\n%q, want\n%q", raw, gotKeys, wantKeys)
	}
	var gotMap, wantMap map[string]any
	if err := json.Unmarshal(got, &gotMap); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &wantMap); err != nil {
		t.Fatal(err)
	}
	requireEchoes(t, raw, gotMap)
	var back api.SearchEnvelope
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatalf("%s: decoding AppendJSON: %v", raw, err)
	}
	if !reflect.DeepEqual(back.Filters, env.Filters) {
		t.Errorf("%s: echoes decode as %q, want %q", raw, back.Filters, env.Filters)
	}
	for _, row := range dim.Rows {
		delete(gotMap, row.Name)
	}
	if !reflect.DeepEqual(gotMap, wantMap) {
		t.Fatalf("%s: AppendJSON:\n%s\nencoding/json:\n%s", raw, got, want)
	}
}

// requireEchoes: each dimension's echo in env is the filter of the query
// raw as given, typed by its parameter: a list as an array of its values,
// a boolean as true or false, a code or text as the string; null when
// absent for the dimensions always echoed.
func requireEchoes(t *testing.T, raw string, env map[string]any) {
	t.Helper()
	q, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range dim.Rows {
		v, ok := env[row.Name]
		given := q.Get(row.Name)
		var want any
		switch {
		case given == "":
			want = nil
		case row.Param.Value == dim.List:
			var items []any
			for _, item := range strings.Split(strings.ToUpper(given), ",") {
				items = append(items, item)
			}
			want = items
		case row.Param.Value == dim.Boolean:
			want = given == "true"
		default:
			want = given
		}
		if given == "" && !row.Param.EchoAlways {
			if ok {
				t.Errorf("%s: %s echoed as %v though not given", raw, row.Name, v)
			}
			continue
		}
		if !ok || !reflect.DeepEqual(v, want) {
			t.Errorf("%s: %s echo %#v (present %v), want %#v", raw, row.Name, v, ok, want)
		}
	}
}

// topKeys lists the top-level keys of the JSON object b in order.
func topKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func dimOf(t *testing.T, name string) dim.Dim {
	t.Helper()
	d, ok := dim.ByName(name)
	if !ok {
		t.Fatalf("no dimension %s", name)
	}
	return d
}

func requireAppendsAsJSON(t *testing.T, v core.JSONAppender) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.AppendJSON(nil); !bytes.Equal(got, want) {
		t.Fatalf("AppendJSON:\n%s\nencoding/json:\n%s", got, want)
	}
}

// TestAPISendsStoredStationsAsEncoded: the API copies stations as the
// index stores them, with the base URL spliced in; for several base URLs
// (a path prefix, characters JSON escapes) every search below and every
// demo station answers byte for byte what encoding the decoded records
// gives.
func TestAPISendsStoredStationsAsEncoded(t *testing.T) {
	ix, _ := demoIndex()
	meta := ix.Meta()
	for _, rawBase := range []string{testBase, "https://radio.example.org/dex", "https://a.example/x&y<z>"} {
		base, err := url.Parse(rawBase + "/")
		if err != nil {
			t.Fatal(err)
		}
		s := New(Config{BaseURL: base}, fixedSource{ix})
		t.Cleanup(func() { _ = s.Close() })
		get := func(target string) []byte {
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
			if rec.Code != http.StatusOK {
				t.Fatalf("%s: status %d", target, rec.Code)
			}
			return rec.Body.Bytes()
		}
		for _, raw := range []string{"", "q=radio&limit=3", "q=%3Cscript%3E", "country=us&limit=50", "genre=jazz&language=en",
			"q=zzzz", "limit=50&offset=40", "facets=country,genre&codec=MP3"} {
			env := encodedSearch(t, s, ix, raw)
			if want, got := append(env.AppendJSON(nil), '\n'), get(core.PathStations+"?"+raw); !bytes.Equal(got, want) {
				t.Fatalf("base %s, search %q:\nsent:\n%s\nencoded:\n%s", rawBase, raw, got, want)
			}
		}
		all, err := ix.Search(query.Query{Limit: query.MaxLimit})
		if err != nil || len(all.Stations) < 40 {
			t.Fatalf("%d demo stations, err %v", len(all.Stations), err)
		}
		for i := range all.Stations {
			r := &all.Stations[i]
			vs, total, err := api.VariantsOf(ix, s.Base, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			env := api.StationEnvelope{SchemaVersion: core.SchemaVersion(meta), SnapshotAt: core.SnapshotAt(meta), Source: meta.Source,
				Station: api.StationWithVariants{Station: stationjson.New(s.Base, r), Variants: vs, VariantsTotal: total}}
			if want, got := append(env.AppendJSON(nil), '\n'), get(core.PathStation+r.ID.String()); !bytes.Equal(got, want) {
				t.Fatalf("base %s, station %s:\nsent:\n%s\nencoded:\n%s", rawBase, r.ID, got, want)
			}
		}
	}
}

// apiAllocCeilings are the allocations of one whole API response on the
// demo snapshot (routing, parameters, the engine, the envelope, headers,
// the test's request and recorder), response cache off, as measured + 10%.
// Before the index stored the stations' JSON (format 6), a response built
// a Station per result, its URLs and lists included; the header values and
// the ETag then lost 11 more (shared header values, one hash buffer), and
// the engine's plain searches most of the rest (reading the page tree in
// place, no bitmaps: query/plain.go).
var apiAllocCeilings = map[string]float64{
	"/api/stations?q=radio&limit=20":             26, // 24 since an answer built for one request is tagged in one allocation; 27 before; 31 before an answer sent once stopped keeping its header fields; 41 before the envelope's absent filters stopped allocating, more before the search key was appended to one buffer; 85 with roaring and bbolt cursors; 556 in format 6
	"/api/stations?q=radio&country=de&genre=pop": 26, // 24 (see the first); 29 before; 33 before, 36 before that; 114 before that; 168 in format 6
	"station": 46, // 42 (see the first); 45 before; 49 before (see the first); 54 with its variants (a second read transaction for its group); 44 before; 74 in format 6
}

// allocsPerGet is the allocations of one GET of target through h, which
// must answer 200, averaged over runs after a first request has warmed
// the pools; the test's request and recorder are counted.
func allocsPerGet(t *testing.T, h http.Handler, target string, runs int) float64 {
	t.Helper()
	serveOnce := func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: status %d", target, rec.Code)
		}
	}
	serveOnce()
	return testing.AllocsPerRun(runs, serveOnce)
}

func TestAllocsPerAPIResponse(t *testing.T) {
	if pagesRace {
		t.Skip("the race detector drops pooled buffers at random")
	}
	ix, _ := demoIndex()
	s := newServerWithCache(t, fixedSource{ix}, -1)
	h := s.Handler()
	for target, ceiling := range apiAllocCeilings {
		path := target
		if target == "station" {
			res, err := ix.Search(query.Query{Q: "radio", Limit: 1})
			if err != nil || len(res.Stations) == 0 {
				t.Fatalf("no station: %v", err)
			}
			path = core.PathStation + res.Stations[0].ID.String()
		}
		n := allocsPerGet(t, h, path, 100)
		t.Logf("%-45s %4.0f allocs per response (ceiling %.0f)", target, n, ceiling)
		if n > ceiling {
			t.Errorf("%s: %.0f allocations per response, ceiling %.0f", target, n, ceiling)
		}
	}
}

// cachedAllocCeilings are the allocations of one API response answered
// from the response cache (the test's request and recorder included), as
// measured + a small margin, per Accept-Encoding. A hot node answers most
// requests so; before the search key was appended to one buffer and the
// Content-Encoding field shared, they were 23 and 31; before a known
// request target was answered without parsing it (responseCache.getTarget),
// 20 and 27. The gzip answer has more because its ninth header field grows
// net/http's header maps (the handler's and the copy written) past a small
// map.
var cachedAllocCeilings = map[string]float64{
	"":     19, // measured 17
	"gzip": 21, // measured 19; 24 before 16f5ad3 (an answer's tag and fields made in one allocation)
}

func TestAllocsPerCachedAPIResponse(t *testing.T) {
	if pagesRace {
		t.Skip("the race detector drops pooled buffers at random")
	}
	ix, _ := demoIndex()
	s := newServerWithCache(t, fixedSource{ix}, 0)
	h := s.Handler()
	const path = "/api/stations?limit=20&q=radio"
	for enc, ceiling := range cachedAllocCeilings {
		serveOnce := func() {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodGet, path, nil)
			if enc != "" {
				req.Header.Set("Accept-Encoding", enc)
			}
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK || rec.Header().Get("Content-Encoding") != enc {
				t.Fatalf("%s (%q): status %d, coding %q", path, enc, rec.Code, rec.Header().Get("Content-Encoding"))
			}
		}
		serveOnce() // store the body and its variant, warm the pools
		serveOnce()
		n := testing.AllocsPerRun(200, serveOnce)
		t.Logf("Accept-Encoding %-5q %4.0f allocs per cached response (ceiling %.0f)", enc, n, ceiling)
		if n > ceiling {
			t.Errorf("Accept-Encoding %q: %.0f allocations per cached response, ceiling %.0f", enc, n, ceiling)
		}
	}
}

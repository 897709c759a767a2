package server

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"stationdex/indexer"
	"stationdex/indexer/realdata"
	"stationdex/internal/fold"
	"stationdex/server/rbapi"
)

// TestNPMClient runs the real npm client radio-browser-api 6.0.3 (pinned
// in tools/npm) against a node serving the demo snapshot and the real
// one, and checks every answer it hands its caller against an oracle over
// the input records: which stations (membership from the records, order
// from the node's own name order), the lists' counts, the click, and the
// statuses of what the node refuses.
func TestNPMClient(t *testing.T) {
	t.Parallel() // one of the long tests, run beside each other (server_test.go)
	node, err := exec.LookPath("node")
	if err != nil {
		realdata.Missing(t, "node (for the npm client): %v", err)
	}
	module := npmClientModule(t)
	t.Run("demo", func(t *testing.T) {
		checkNPMClient(t, node, module, newDemoServer(t, nil), demoInput(t))
	})
	t.Run("real", func(t *testing.T) {
		if testing.Short() {
			t.Skip("indexes the real snapshot")
		}
		realdata.Need(t)
		s, recs := realServer(t)
		checkNPMClient(t, node, module, s, recs)
	})
}

// npmClientModule finds the client's ESM build: in tools/npm (npm ci
// --ignore-scripts there) or the npm prefix .ci/run installs to.
func npmClientModule(t *testing.T) string {
	const rel = "node_modules/radio-browser-api/dist/prod/index.modern.js"
	prefix := os.Getenv("STATIONDEX_NPM_PREFIX")
	if prefix == "" {
		home, _ := os.UserHomeDir()
		prefix = filepath.Join(home, ".cache", "stationdex-npm")
	}
	for _, dir := range []string{filepath.Join("..", "tools", "npm"), prefix} {
		if p, err := filepath.Abs(filepath.Join(dir, rel)); err == nil {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	realdata.Missing(t, "the npm client radio-browser-api (cd tools/npm && npm ci --ignore-scripts)")
	return ""
}

// realServer serves the real snapshot's index, the one the package's
// tests share (realIndexOnce: indexed once per test binary, with the Radio
// Browser API's section and the input's snapshot time, as newBuiltServer
// would); the records are the snapshot's as read.
func realServer(t *testing.T) (*Server, []map[string]any) {
	ix, err := realIndexOnce()
	if err != nil {
		t.Fatal(err)
	}
	s := New(testConfig(nil), fixedSource{ix})
	t.Cleanup(func() { _ = s.Close() })
	recs, err := realSourceRecords()
	if err != nil {
		t.Fatal(err)
	}
	return s, recs
}

// realSourceRecords is the real snapshot's records as the source has them
// (readSourceRecords), read once per test binary; the tests only read
// them.
var realSourceRecords = sync.OnceValues(func() ([]map[string]any, error) {
	return readSourceRecords(realdata.Path())
})

// readSourceRecords decodes the records of a gzipped NDJSON snapshot as
// the source has them; lines that are not JSON objects are left out.
func readSourceRecords(path string) ([]map[string]any, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	var recs []map[string]any
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r map[string]any
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			recs = append(recs, r)
		}
	}
	return recs, sc.Err()
}

// npmOracle answers the client's calls from the input records.
type npmOracle struct {
	all []string                  // every station the node has, in its name order
	in  map[string]map[string]any // the record kept for each id (the first)
}

func (o *npmOracle) ids(keep func(r map[string]any) bool) []string {
	ids := []string{}
	for _, id := range o.all {
		if keep(o.in[id]) {
			ids = append(ids, id)
		}
	}
	return ids
}

// top is the first n stations by the number field, most first, ties in
// reverse name order (the reverse of ascending by field, then name).
func (o *npmOracle) top(field string, n int) []string {
	ids := slices.Clone(o.all)
	slices.Reverse(ids)
	slices.SortStableFunc(ids, func(a, b string) int { return cmp.Compare(recNum(o.in[b], field), recNum(o.in[a], field)) })
	return ids[:min(n, len(ids))]
}

func recText(r map[string]any, k string) string { v, _ := r[k].(string); return v }
func recNum(r map[string]any, k string) float64 { v, _ := r[k].(float64); return v }
func working(r map[string]any) bool             { return recNum(r, "lastcheckok") == 1 }

func checkNPMClient(t *testing.T, node, module string, s *Server, recs []map[string]any) {
	o := &npmOracle{all: rbIDs(t, serveUp(s, "GET", "/json/stations", "", "").Body.Bytes()), in: map[string]map[string]any{}}
	for _, r := range recs {
		if id := strings.ToLower(recText(r, "stationuuid")); o.in[id] == nil {
			o.in[id] = r
		}
	}
	a, b := o.all[0], o.all[len(o.all)/2]
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "npmclient.mjs"))
	cmd.Env = append(os.Environ(), "RB_MODULE="+module, "RB_BASE="+ts.URL, "RB_IDS="+a+","+b, "RB_URL="+recText(o.in[a], "url"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %.500s", err, out)
	}
	o.checkStations(t, got, a, b)
	o.checkLists(t, got)
	o.checkRefusals(t, got, a)
}

// checkStations: the station lists the client hands back.
func (o *npmOracle) checkStations(t *testing.T, got map[string]json.RawMessage, a, b string) {
	url := recText(o.in[a], "url")
	for name, want := range map[string][]string{
		"all":           o.ids(working),
		"allWithBroken": o.all,
		"searchCountryCode": o.ids(func(r map[string]any) bool {
			return working(r) && strings.EqualFold(strings.TrimSpace(recText(r, "countrycode")), "PT")
		}),
		"searchTagExact": o.ids(func(r map[string]any) bool { return hasTag(storedText(r, "tags"), "pop") }),
		"searchBitrate": o.ids(func(r map[string]any) bool { // the source's codec, as upstream's filter
			return working(r) && strings.EqualFold(strings.TrimSpace(recText(r, "codec")), "MP3") && recNum(r, "bitrate") >= 128 &&
				recNum(r, "bitrate") <= indexer.MaxBitrateKbps && r["geo_lat"] != nil && r["geo_long"] != nil
		}),
		"byCountryCodeExact": o.ids(func(r map[string]any) bool {
			return strings.EqualFold(strings.TrimSpace(recText(r, "countrycode")), "DE")
		}),
		"byUuid": {b, a},
		"byUrl":  o.ids(func(r map[string]any) bool { return recText(r, "url") == url }),
		"substring": o.ids(func(r map[string]any) bool {
			// The name as the node keeps it: entities decoded (README's
			// cleaning), as the sample's "&#82;&#97;..." station shows.
			return working(r) && nameHolds(html.UnescapeString(recText(r, "name")), "jazz")
		}),
		"topVote":      o.top("votes", 5),
		"byClickCount": o.top("clickcount", 7),
	} {
		var ids []string
		if err := json.Unmarshal(got[name], &ids); err != nil {
			t.Errorf("%s: %v: %.300s", name, err, got[name])
			continue
		}
		if !slices.Equal(ids, want) {
			t.Errorf("%s: %d stations, want %d (%s)", name, len(ids), len(want), firstDifferentID(ids, want))
		}
	}
}

// hasTag: one of the comma-separated tags, trimmed and lower-cased (as
// upstream's tag cache has them), is tag.
func hasTag(tags, tag string) bool {
	for _, t := range strings.Split(tags, ",") {
		if strings.ToLower(strings.TrimSpace(t)) == tag {
			return true
		}
	}
	return false
}

func firstDifferentID(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("first difference at %d: %s, want %s", i, got[i], want[i])
		}
	}
	return "one is a prefix of the other"
}

// checkLists: the countries' and the MP3 codec's counts are the
// records'; the filtered tags hold the filter, most stations first.
func (o *npmOracle) checkLists(t *testing.T, got map[string]json.RawMessage) {
	var countries, codecs, tags []rbapi.RBEntry
	for name, dst := range map[string]*[]rbapi.RBEntry{"countries": &countries, "codecs": &codecs, "tagsFiltered": &tags} {
		if err := json.Unmarshal(got[name], dst); err != nil {
			t.Fatalf("%s: %v: %.300s", name, err, got[name])
		}
	}
	for _, c := range countries {
		want := len(o.ids(func(r map[string]any) bool {
			return strings.EqualFold(strings.TrimSpace(recText(r, "countrycode")), c.ISO3166_1)
		}))
		if c.StationCount != want {
			t.Errorf("country %s: %d stations, records %d", c.ISO3166_1, c.StationCount, want)
		}
	}
	mp3 := len(o.ids(func(r map[string]any) bool { // the source's codec, as upstream lists it
		return strings.EqualFold(strings.TrimSpace(recText(r, "codec")), "MP3")
	}))
	if i := slices.IndexFunc(codecs, func(e rbapi.RBEntry) bool { return e.Name == "MP3" }); i < 0 || codecs[i].StationCount != mp3 {
		t.Errorf("codecs %+v, records MP3 %d", codecs, mp3)
	}
	if len(tags) == 0 || !slices.IsSortedFunc(tags, func(x, y rbapi.RBEntry) int { return y.StationCount - x.StationCount }) {
		t.Errorf("tags holding jaz: %+v", tags)
	}
	for _, e := range tags {
		if !strings.Contains(fold.String(e.Name), "jaz") {
			t.Errorf("tag %q does not hold jaz", e.Name)
		}
	}
}

// checkRefusals: the click names the stream; a vote is refused as a
// mirror refuses it.
func (o *npmOracle) checkRefusals(t *testing.T, got map[string]json.RawMessage, a string) {
	var click rbapi.RBClick
	if err := json.Unmarshal(got["click"], &click); err != nil {
		t.Fatal(err)
	}
	want := recText(o.in[a], "url_resolved")
	if want == "" {
		want = recText(o.in[a], "url")
	}
	if !click.OK || click.StationUUID != a || click.URL != want {
		t.Errorf("click: %+v, want url %s", click, want)
	}
	for name, status := range map[string]int{"vote": 403} {
		var st struct{ Status int }
		if err := json.Unmarshal(got[name], &st); err != nil || st.Status != status {
			t.Errorf("%s: %s, want status %d", name, got[name], status)
		}
	}
}

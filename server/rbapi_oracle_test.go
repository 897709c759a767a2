package server

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"stationdex/internal/format"
	"stationdex/oracle"
	"stationdex/query"
	"stationdex/server/rbapi"
)

// TestRBAPIOracleAgrees: several hundred /json/stations/search
// requests, drawn deterministically from the real snapshot's stations
// (their names, labels, tags, codes, bitrates and positions; every
// filter, flag and order, reversed or not, paged or not, parameter
// names as upstream spells them or lowercased as the npm client sends
// them, GET or POST, one text filter as its by{column} path when it is
// the only one), answer exactly the stations, in exactly the order,
// of the oracle written from upstream's documentation and API.md's
// deliberate differences (oracle.Upstream); random is compared as a set.
// Spoilt variants of them (a value upstream takes as its default, an
// unknown order, an unknown parameter) answer what the oracle answers
// for upstream's reading of them; those upstream fails on (a tri-state
// flag that is neither true nor false) are a 400 with a JSON error,
// never a 5xx.
func TestRBAPIOracleAgrees(t *testing.T) {
	t.Parallel() // one of the long tests, run beside each other (server_test.go)
	start := time.Now()
	ix := realIx(t)
	data, err := realRBAPIOracle()
	t.Logf("index and oracle ready in %v", time.Since(start))
	start = time.Now()
	if err != nil {
		t.Fatal(err)
	}
	up, source := data.up, data.source
	s := serverAt(t, ix, testBase)
	rng := rand.New(rand.NewPCG(27, 20250227))
	const requests = 600
	agreed, nonEmpty, hostile, byPath, lenient := 0, 0, 0, 0, 0
	for i := range requests {
		g := newRBGen(rng, source[rng.IntN(len(source))])
		if rng.IntN(6) == 0 {
			if g.spoil() {
				hostile++
				requireRefused(t, s, g)
				continue
			}
			lenient++
		}
		want := up.Search(g.req)
		got := g.serve(t, s, i%8 == 0) // every 8th through the OpenAPI check
		if g.req.Order == "random" {
			got, want = shuffledPage(g.req, up, got, want)
		}
		if !slices.Equal(got, idStrings(want)) {
			t.Errorf("%s %s?%s: %d stations, oracle %d (%s)", g.method, g.path, g.query(), len(got), len(want), firstDifferentID(got, idStrings(want)))
			continue
		}
		agreed++
		if g.path != "/json/stations/search" {
			byPath++
		}
		if len(want) > 0 {
			nonEmpty++
		}
	}
	t.Logf("%d requests agree (%d with stations, %d by a by{column} path, %d spoilt as upstream takes them), %d refused, in %v",
		agreed, nonEmpty, byPath, lenient, hostile, time.Since(start))
	if nonEmpty < requests/3 {
		t.Errorf("only %d of %d requests found stations: the drawn terms say too little", nonEmpty, requests)
	}
}

// realRBAPIOracle is the compatible search's oracle over the real
// snapshot (built on the shared linear-scan oracle), and the snapshot's
// source records, which the requests are drawn from.
var realRBAPIOracle = sync.OnceValues(func() (rbOracleData, error) {
	o, err := realOracle()
	if err != nil {
		return rbOracleData{}, err
	}
	source, err := realSourceRecords()
	return rbOracleData{oracle.NewUpstream(o, source), source}, err
})

type rbOracleData struct {
	up     *oracle.Upstream
	source []map[string]any
}

func idStrings(ids []format.UUID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}

// shuffledPage compares a page of a random order: as many stations as
// the oracle's page, each once, all among the oracle's matches. It
// returns the two sides to compare: got sorted, and got itself when it
// passes (else the oracle's page sorted, to show the difference).
func shuffledPage(q oracle.UpstreamRequest, up *oracle.Upstream, got []string, want []format.UUID) ([]string, []format.UUID) {
	q.Offset, q.Limit = 0, 0
	all := map[string]bool{}
	for _, id := range up.Search(q) {
		all[id.String()] = true
	}
	got = slices.Sorted(slices.Values(got))
	ok := len(got) == len(want) && len(slices.Compact(slices.Clone(got))) == len(got)
	for _, id := range got {
		ok = ok && all[id]
	}
	if ok {
		ids := make([]format.UUID, len(got))
		for i, s := range got {
			ids[i], _ = format.ParseUUID(s)
		}
		return got, ids
	}
	return got, slices.SortedFunc(slices.Values(want), func(a, b format.UUID) int { return strings.Compare(a.String(), b.String()) })
}

// rbGen is one generated request: its parameters, in the order given,
// and the oracle's reading of them.
type rbGen struct {
	rng    *rand.Rand
	path   string // /json/stations/search or a by{column} path
	params [][2]string
	req    oracle.UpstreamRequest
	method string
	lower  bool // names lowercased, as the npm client sends them
}

// newRBGen draws a request from the source record r: one to three of
// its values as filters, some flags, an order and paging.
func newRBGen(rng *rand.Rand, r map[string]any) *rbGen {
	g := &rbGen{rng: rng, path: "/json/stations/search", method: http.MethodGet, lower: rng.IntN(4) == 0}
	if rng.IntN(5) == 0 {
		g.method = http.MethodPost
	}
	selective := false
	for _, f := range rng.Perm(len(rbFilters))[:1+rng.IntN(3)] { // each parameter once
		selective = rbFilters[f](g, r) || selective
	}
	for _, f := range []struct {
		name string
		set  func(v string)
	}{
		{"has_geo_info", func(v string) { g.req.HasGeoInfo = v }},
		{"has_extended_info", func(v string) { g.req.HasExtendedInfo = v }},
		{"is_https", func(v string) { g.req.IsHTTPS = v }},
		{"hidebroken", func(v string) { g.req.HideBroken = v == "true" }},
	} {
		if rng.IntN(6) == 0 {
			v := strconv.FormatBool(rng.IntN(2) == 0)
			g.add(f.name, v)
			f.set(v)
		}
	}
	g.order()
	g.page(selective)
	if rng.IntN(2) == 0 {
		g.byPath()
	}
	return g
}

// rbColumnParams are the search parameters of the by{column} paths,
// with their exact flags.
var rbColumnParams = map[string]string{
	"name": "nameExact", "country": "countryExact", "state": "stateExact", "language": "languageExact",
	"tag": "tagExact", "countrycode": "",
}

// byPath asks a search of one text filter as its by{column} path
// (/json/stations/bytagexact/jazz), when it has no other filter.
func (g *rbGen) byPath() {
	var column, term string
	exact := false
	rest := g.params[:0:0]
	for _, p := range g.params {
		switch flag, isColumn := rbColumnParams[p[0]]; {
		case isColumn && column == "":
			column, term, exact = p[0], p[1], flag == ""
		case isColumn || !rbapi.RBPaging.Has(rbapi.RBParamByName[rbapi.RBFoldName(p[0])]) && !strings.HasSuffix(p[0], "Exact"):
			return // another filter: the path takes none
		case strings.HasSuffix(p[0], "Exact"):
			exact = p[1] == "true"
		default:
			rest = append(rest, p)
		}
	}
	if column == "" || strings.Contains(term, "/") || g.req.TagList != nil {
		return
	}
	if exact {
		column += "exact"
	}
	g.path, g.params = "/json/stations/by"+column+"/"+url.PathEscape(term), rest
}

func (g *rbGen) add(name, value string) { g.params = append(g.params, [2]string{name, value}) }

// pick is a random element of a comma list, trimmed; "" if none.
func (g *rbGen) pick(list string) string {
	var parts []string
	for _, p := range strings.Split(list, ",") {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return parts[g.rng.IntN(len(parts))]
}

// part is a piece of text of 2 to 6 characters, or the whole of a
// shorter one, in a random case.
func (g *rbGen) part(text string) string {
	r := []rune(text)
	if len(r) > 2 {
		n := 2 + g.rng.IntN(min(5, len(r)-1))
		start := g.rng.IntN(len(r) - n + 1)
		r = r[start : start+n]
	}
	return g.recase(string(r))
}

func (g *rbGen) recase(text string) string {
	switch g.rng.IntN(3) {
	case 0:
		return strings.ToUpper(text)
	case 1:
		return strings.ToLower(text)
	}
	return text
}

func srcText(r map[string]any, k string) string { v, _ := r[k].(string); return v }

// rbFilters each add a filter drawn from a source record; they report
// whether it narrows the search much (a text, a code).
var rbFilters = []func(g *rbGen, r map[string]any) bool{
	func(g *rbGen, r map[string]any) bool { // name
		if g.rng.IntN(4) == 0 {
			g.req.Name, g.req.NameExact = g.recase(srcText(r, "name")), true
			g.add("name", g.req.Name)
			g.add("nameExact", "true")
			return true
		}
		g.req.Name = g.part(srcText(r, "name"))
		g.add("name", g.req.Name)
		return utf8.RuneCountInString(g.req.Name) > 3
	},
	func(g *rbGen, r map[string]any) bool { // country label
		v := srcText(r, "country")
		if v == "" {
			return false
		}
		if g.rng.IntN(2) == 0 {
			g.req.Country, g.req.CountryExact = g.recase(v), true
			g.add("country", g.req.Country)
			g.add("countryExact", "true")
		} else {
			g.req.Country = g.part(v)
			g.add("country", g.req.Country)
		}
		return true
	},
	func(g *rbGen, r map[string]any) bool { // country code
		if v := srcText(r, "countrycode"); v != "" {
			g.req.CountryCode = g.recase(v)
			g.add("countrycode", g.req.CountryCode)
		}
		return true
	},
	func(g *rbGen, r map[string]any) bool { // state
		v := strings.TrimSpace(srcText(r, "state"))
		if v == "" {
			return false
		}
		if g.rng.IntN(2) == 0 {
			g.req.State, g.req.StateExact = g.recase(v), true
			g.add("state", g.req.State)
			g.add("stateExact", "true")
		} else {
			g.req.State = g.part(v)
			g.add("state", g.req.State)
		}
		return true
	},
	func(g *rbGen, r map[string]any) bool { // language
		v := g.pick(srcText(r, "language"))
		if v == "" {
			return false
		}
		if g.rng.IntN(2) == 0 {
			g.req.Language, g.req.LanguageExact = g.recase(v), true
			g.add("language", g.req.Language)
			g.add("languageExact", "true")
		} else {
			g.req.Language = g.part(v)
			g.add("language", g.req.Language)
		}
		return true
	},
	func(g *rbGen, r map[string]any) bool { // tag, or a list of them
		tags := srcText(r, "tags")
		if g.pick(tags) == "" {
			return false
		}
		exact := g.rng.IntN(2) == 0
		if exact {
			g.req.TagExact = true
		}
		if g.rng.IntN(3) == 0 {
			for range 2 {
				t := g.pick(tags)
				if !exact {
					t = g.part(t)
				}
				g.req.TagList = append(g.req.TagList, g.recase(t))
			}
			g.add("tagList", strings.Join(g.req.TagList, ","))
		} else {
			g.req.Tag = g.pick(tags)
			if !exact {
				g.req.Tag = g.part(g.req.Tag)
			}
			g.req.Tag = g.recase(g.req.Tag)
			g.add("tag", g.req.Tag)
		}
		if exact {
			g.add("tagExact", "true")
		}
		return true
	},
	func(g *rbGen, r map[string]any) bool { // codec
		if v := g.pick(srcText(r, "codec")); v != "" {
			g.req.Codec = g.recase(v)
			g.add("codec", g.req.Codec)
		}
		return false
	},
	func(g *rbGen, r map[string]any) bool { // bitrate bounds about the station's
		b, _ := r["bitrate"].(float64)
		if b <= 0 {
			return false
		}
		if g.rng.IntN(2) == 0 {
			g.req.BitrateMin = int(b) - g.rng.IntN(int(b))
			g.add("bitrateMin", strconv.Itoa(g.req.BitrateMin))
		}
		if g.req.BitrateMin == 0 || g.rng.IntN(2) == 0 {
			g.req.BitrateMax = int(b) + g.rng.IntN(64)
			g.add("bitrateMax", strconv.Itoa(g.req.BitrateMax))
		}
		return false
	},
	func(g *rbGen, r map[string]any) bool { // around the station's position
		lat, ok1 := r["geo_lat"].(float64)
		lon, ok2 := r["geo_long"].(float64)
		if !ok1 || !ok2 || lat < -90 || lat > 90 || lon < -180 || lon > 180 {
			return false
		}
		m := float64(1000 * (1 + g.rng.IntN(500)))
		g.req.Near = &oracle.Near{Lat: lat, Lon: lon, RadiusKm: m / 1000}
		g.add("geo_lat", strconv.FormatFloat(lat, 'f', -1, 64))
		g.add("geo_long", strconv.FormatFloat(lon, 'f', -1, 64))
		g.add("geo_distance", strconv.FormatFloat(m, 'f', -1, 64))
		return true
	},
}

// order draws an order (upstream's spelling or the npm client's case)
// and a direction, or none.
func (g *rbGen) order() {
	if g.rng.IntN(5) == 0 {
		return
	}
	g.req.Order = query.RBAPIOrders[g.rng.IntN(len(query.RBAPIOrders))]
	g.add("order", g.recase(g.req.Order))
	if g.rng.IntN(2) == 0 {
		g.req.Reverse = g.rng.IntN(2) == 0
		g.add("reverse", strconv.FormatBool(g.req.Reverse))
	}
}

// page draws an offset and a limit; an unselective search gets a limit,
// so that no answer is the whole snapshot.
func (g *rbGen) page(selective bool) {
	if g.rng.IntN(3) == 0 {
		g.req.Offset = g.rng.IntN(60)
		g.add("offset", strconv.Itoa(g.req.Offset))
	}
	if !selective || g.rng.IntN(2) == 0 {
		g.req.Limit = 1 + g.rng.IntN(300)
		g.add("limit", strconv.Itoa(g.req.Limit))
	}
}

// spoil gives the request a parameter upstream reads leniently (a
// boolean that is not one is false, a count that is not one its
// default, an unknown order name, an unknown name nothing), the oracle's
// request read as upstream reads it; or one upstream fails on (a
// tri-state flag that is neither true nor false), which a node refuses:
// it reports which.
func (g *rbGen) spoil() (refused bool) {
	bad := []struct {
		name, value string
		read        func(q *oracle.UpstreamRequest)
	}{
		{"hidebroken", "yes", func(q *oracle.UpstreamRequest) { q.HideBroken = false }},
		{"reverse", "1", func(q *oracle.UpstreamRequest) { q.Reverse = false }},
		{"offset", "ten", func(q *oracle.UpstreamRequest) { q.Offset = 0 }},
		{"order", "click", func(q *oracle.UpstreamRequest) { q.Order = "" }}, // streamtuner2's
		{"order", "bogus", func(q *oracle.UpstreamRequest) { q.Order = "" }},
		{"search", "jazz", nil}, // streamtuner2's
		{"countryCod", "PL", nil},
		{"is_https", "True", nil},
		{"has_geo_info", "", nil},
	}
	spoilt := bad[g.rng.IntN(len(bad))]
	for i, p := range g.params {
		if strings.EqualFold(p[0], spoilt.name) {
			g.params = slices.Delete(g.params, i, i+1) // not repeated by accident
			break
		}
	}
	g.params = append(g.params, [2]string{spoilt.name, spoilt.value})
	if spoilt.read != nil {
		spoilt.read(&g.req)
	}
	// the tri-state flags are taken by the search alone: a by{column}
	// path ignores them
	return (strings.HasPrefix(spoilt.name, "is_") || strings.HasPrefix(spoilt.name, "has_")) && g.path == "/json/stations/search"
}

// query is the request's parameters encoded, names lowercased for the
// npm client's spelling.
func (g *rbGen) query() string {
	var b strings.Builder
	for i, p := range g.params {
		if i > 0 {
			b.WriteByte('&')
		}
		name := p[0]
		if g.lower {
			name = strings.ToLower(name)
		}
		b.WriteString(url.QueryEscape(name) + "=" + url.QueryEscape(p[1]))
	}
	return b.String()
}

// serve sends the request, checked against OpenAPI when asked, and
// returns the ids of its answer.
func (g *rbGen) serve(t *testing.T, s *Server, checked bool) []string {
	t.Helper()
	rec := g.do(s, checked)
	if rec.Code != http.StatusOK {
		t.Fatalf("%s %s?%s: %d %s", g.method, g.path, g.query(), rec.Code, rec.Body)
	}
	var objs []struct {
		ID string `json:"stationuuid"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &objs); err != nil {
		t.Fatalf("%s %s: %v", g.method, g.query(), err)
	}
	ids := make([]string, len(objs))
	for i, o := range objs {
		ids[i] = o.ID
	}
	return ids
}

func (g *rbGen) do(s *Server, checked bool) *httptest.ResponseRecorder {
	target, body, ctype := g.path+"?"+g.query(), "", ""
	if g.method == http.MethodPost {
		target, body, ctype = g.path, g.query(), "application/x-www-form-urlencoded"
	}
	if checked {
		return serveUp(s, g.method, target, ctype, body)
	}
	req := httptest.NewRequest(g.method, target, strings.NewReader(body))
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	return rec
}

// requireRefused: a spoilt request is a 400 whose body is a JSON error.
func requireRefused(t *testing.T, s *Server, g *rbGen) {
	t.Helper()
	rec := g.do(s, true)
	var e struct {
		Code    string `json:"error"`
		Message string `json:"message"`
	}
	if rec.Code != http.StatusBadRequest || json.Unmarshal(rec.Body.Bytes(), &e) != nil || e.Code == "" || e.Message == "" {
		t.Errorf("%s %s?%s: %d %.300s, want a 400 with a JSON error", g.method, g.path, g.query(), rec.Code, rec.Body)
	}
}

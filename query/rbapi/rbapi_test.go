package rbapi

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer"
	"stationdex/internal/fold"
	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/query/core"
	"stationdex/query/internal/testindex"
)

func upstreamInput(t *testing.T) (text string, records []map[string]any) {
	t.Helper()
	return testindex.RBAPIInput(t)
}

// TestUpstreamJSONIsTheInputRecord: every field of the stored upstream
// object is the input record's, but for the bounds (a homepage over
// MaxURLBytes dropped), the nulls ("" or null for a missing string, as
// the source sends each) and page_url, the station's page here.
func TestUpstreamJSONIsTheInputRecord(t *testing.T) {
	text, records := upstreamInput(t)
	ix := openIndex(t, buildIndex(t, text))
	const base = "https://radio.example/dex"
	for _, in := range records {
		id, _ := format.ParseUUID(in["stationuuid"].(string))
		stored, err := JSON(ix, id, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(stationjson.Splice(nil, stored, stationjson.EscapeBase(base)), &got); err != nil {
			t.Fatalf("%s: %v in %s", id, err, stored)
		}
		want := maps.Clone(in)
		want["page_url"] = base + "/stations/" + id.String() + "/"
		if h := want["homepage"].(string); len(h) > 2048 {
			want["homepage"] = ""
		}
		requireSameObject(t, id.String(), got, want)
	}
	if _, err := JSON(ix, format.UUID{1}, nil); err != core.ErrNotFound {
		t.Errorf("unknown id: %v, want core.ErrNotFound", err)
	}
}

// requireSameObject compares decoded JSON objects field by field (JSON
// numbers compare as float64 on both sides).
func requireSameObject(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	wantJSON, _ := json.Marshal(want)
	var norm map[string]any
	_ = json.Unmarshal(wantJSON, &norm)
	for _, k := range slices.Sorted(maps.Keys(norm)) {
		if fmt.Sprint(got[k]) != fmt.Sprint(norm[k]) {
			t.Errorf("%s: %s = %#v, want %#v", what, k, got[k], norm[k])
		}
	}
	if len(got) != len(norm) {
		t.Errorf("%s: %d fields, want %d", what, len(got), len(norm))
	}
}

// TestUpstreamJSONEscapes: station text is escaped as encoding/json
// escapes it, markup included, byte for byte.
func TestUpstreamJSONEscapes(t *testing.T) {
	text, _ := upstreamInput(t)
	ix := openIndex(t, buildIndex(t, text))
	for i, want := range []string{`"name":"Alpha \u003cscript\u003e"`, `"name":"beta\t\"quoted\"\u2028"`} {
		id, _ := format.ParseUUID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i))
		stored, err := JSON(ix, id, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(stored), want) || !strings.Contains(string(stored), `"tags":"rock,Pop \u0026 \u003cb\u003e"`) {
			t.Errorf("station %d: %s\nwant %s", i, stored, want)
		}
	}
}

// TestUpstreamPage: pages of every selection, forward and reverse, at
// every offset, are the oracle's stations in name order.
func TestUpstreamPage(t *testing.T) {
	text, records := upstreamInput(t)
	ix := openIndex(t, buildIndex(t, text))
	order := []int{0, 1, 3, 4, 2} // Alpha, beta, Delta, Épsilon, Gamma
	cases := []struct {
		name string
		sel  Select
		keep func(r map[string]any) bool
	}{
		{"all", Select{}, func(map[string]any) bool { return true }},
		{"hidebroken", Select{CheckOK: Yes}, func(r map[string]any) bool { return r["lastcheckok"] == 1 }},
		{"extended", Select{ExtendedInfo: Yes}, func(r map[string]any) bool { return r["has_extended_info"] == true }},
		{"no geo", Select{Geo: No}, func(r map[string]any) bool { return r["geo_long"] == nil }},
		{"url", Select{URL: "http://stream.example/1"}, func(r map[string]any) bool { return r["url"] == "http://stream.example/1" }},
		{"url none", Select{URL: "http://stream.example/"}, func(map[string]any) bool { return false }},
		{"name exact", Select{NameExact: "GAMMA"}, func(r map[string]any) bool { return r["name"] == "Gamma" }},
		{"country label", Select{CountryLabel: "the netherlands"}, func(map[string]any) bool { return true }},
		{"country label none", Select{CountryLabel: "Netherlands"}, func(map[string]any) bool { return false }},
		{"country code", Select{Query: core.Query{Filter: core.Filters{core.DimCountry: {"NL"}}}, CheckOK: No},
			func(r map[string]any) bool { return r["lastcheckok"] == 0 }},
	}
	for _, tc := range cases {
		var want []string
		for _, i := range order {
			if tc.keep(records[i]) {
				want = append(want, records[i]["stationuuid"].(string))
			}
		}
		for _, reverse := range []bool{false, true} {
			tc.sel.Reverse = reverse
			w := slices.Clone(want)
			if reverse {
				slices.Reverse(w)
			}
			for offset := 0; offset <= len(w); offset++ {
				for limit := 1; limit <= len(w)+1; limit++ {
					got := upstreamIDs(t, ix, tc.sel, offset, limit)
					exp := w[offset:min(offset+limit, len(w))]
					if !slices.Equal(got, exp) {
						t.Errorf("%s reverse %v offset %d limit %d: %v, want %v", tc.name, reverse, offset, limit, got, exp)
					}
				}
			}
		}
	}
}

func upstreamIDs(t *testing.T, ix *core.Index, sel Select, offset, limit int) []string {
	t.Helper()
	js, n, err := Page(ix, sel, offset, limit, nil)
	if err != nil {
		t.Fatal(err)
	}
	var objs []struct {
		ID string `json:"stationuuid"`
	}
	if err := json.Unmarshal(stationjson.Splice([]byte("["), append(js, ']'), ""), &objs); err != nil {
		t.Fatalf("%v in %s", err, js)
	}
	if n != len(objs) {
		t.Fatalf("Page says %d, gave %d", n, len(objs))
	}
	ids := []string{}
	for _, o := range objs {
		ids = append(ids, o.ID)
	}
	return ids
}

// TestUpstreamCounts: a list counts every station of a value, or with
// checkOK only those that passed their last check (one of five here).
func TestUpstreamCounts(t *testing.T) {
	text, _ := upstreamInput(t)
	ix := openIndex(t, buildIndex(t, text))
	for _, checkOK := range []bool{false, true} {
		want := 5
		if checkOK {
			want = 4
		}
		countries, err := Counts(ix, core.DimCountry, checkOK)
		if err != nil {
			t.Fatal(err)
		}
		if len(countries) != 1 || countries[0] != (Count{Key: "NL", Label: "The Netherlands", Stations: want}) {
			t.Errorf("countries (checkOK %v): %+v", checkOK, countries)
		}
		states, err := States(ix, checkOK)
		if err != nil {
			t.Fatal(err)
		}
		if len(states) != 1 || states[0] != (State{Name: "Noord", Country: "The Netherlands", Stations: want}) {
			t.Errorf("states (checkOK %v): %+v", checkOK, states)
		}
	}
	working, err := Working(ix)
	if err != nil || working != 4 {
		t.Errorf("working: %d, %v", working, err)
	}
	if _, err := Counts(ix, core.DimHTTPS, false); err == nil {
		t.Error("a list of https")
	}
}

// containsCases are substring conditions with the oracle's reading of
// them over a cleaned record: folded text held by the folded field.
var containsCases = []struct {
	c    Contains
	keep func(r *format.Record, obj map[string]any) bool
}{}

func init() {
	holds := func(field, text string, key func(string) string) bool {
		return strings.Contains(key(field), key(text))
	}
	anyHolds := func(fields []string, text string, key func(string) string) bool {
		return slices.ContainsFunc(fields, func(f string) bool { return holds(f, text, key) })
	}
	for _, text := range []string{"a", "ö", "jazz", "o3", "rádio com", "北京", "fm ", "radio", "xyzqj", "1", "du", "rock n", "-"} {
		containsCases = append(containsCases, struct {
			c    Contains
			keep func(r *format.Record, obj map[string]any) bool
		}{Contains{Name: text}, func(r *format.Record, _ map[string]any) bool { return holds(r.Name, text, fold.String) }})
	}
	for _, text := range []string{"roc", "hip h", "pop", "ö"} {
		containsCases = append(containsCases, struct {
			c    Contains
			keep func(r *format.Record, obj map[string]any) bool
		}{Contains{Tags: []string{text, "o"}}, func(_ *format.Record, obj map[string]any) bool {
			// a tag as the source writes it (the stored object's), lower-cased
			tags := storedTags(obj)
			return anyHolds(tags, text, strings.ToLower) && anyHolds(tags, "o", strings.ToLower)
		}})
	}
	for _, text := range []string{"states", "rep", "ö"} {
		containsCases = append(containsCases, struct {
			c    Contains
			keep func(r *format.Record, obj map[string]any) bool
		}{Contains{Country: text, Language: "eng"}, func(r *format.Record, _ map[string]any) bool {
			return holds(r.Country, text, format.FacetKey) && anyHolds(r.Languages, "eng", format.FacetKey)
		}})
	}
	containsCases = append(containsCases, struct {
		c    Contains
		keep func(r *format.Record, obj map[string]any) bool
	}{Contains{State: "no", Codec: "aa"}, func(r *format.Record, obj map[string]any) bool {
		codec, _ := obj["codec"].(string) // the source's codec, lower-cased
		return holds(r.Location, "no", format.FacetKey) && strings.Contains(strings.ToLower(codec), "aa")
	}})
}

// requireContains: each substring condition selects what the oracle
// selects over recs, in the index's order.
func requireContains(t *testing.T, ix *core.Index, recs []format.Record) {
	byID := map[string]*format.Record{}
	for i := range recs {
		if byID[recs[i].ID.String()] == nil {
			byID[recs[i].ID.String()] = &recs[i]
		}
	}
	all := upstreamIDs(t, ix, Select{}, 0, 1<<30)
	objs := storedObjects(t, ix)
	for _, tc := range containsCases {
		var want []string
		for _, id := range all {
			if tc.keep(byID[id], objs[id]) {
				want = append(want, id)
			}
		}
		got := upstreamIDs(t, ix, Select{Contains: tc.c}, 0, 1<<30)
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%+v: %d stations, oracle %d", tc.c, len(got), len(want))
		}
	}
}

// storedObjects are the index's stored station objects by uuid,
// decoded by encoding/json.
func storedObjects(t *testing.T, ix *core.Index) map[string]map[string]any {
	js, _, err := Page(ix, Select{}, 0, 1<<30, nil)
	if err != nil {
		t.Fatal(err)
	}
	var list []map[string]any
	if err := json.Unmarshal(stationjson.Splice([]byte("["), append(js, ']'), ""), &list); err != nil {
		t.Fatal(err)
	}
	objs := make(map[string]map[string]any, len(list))
	for _, o := range list {
		objs[o["stationuuid"].(string)] = o
	}
	return objs
}

// storedTags are an object's tags as upstream's tag cache has them:
// each of the comma list, trimmed and lower-cased.
func storedTags(obj map[string]any) []string {
	text, _ := obj["tags"].(string)
	var tags []string
	for _, t := range strings.Split(text, ",") {
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
			tags = append(tags, t)
		}
	}
	return tags
}

func TestUpstreamContains(t *testing.T) {
	text, _ := upstreamInput(t)
	ix := openIndex(t, buildIndex(t, text))
	requireContains(t, ix, readRecords(t, indexer.Input{Name: "upstream", R: strings.NewReader(text)}))
}

func TestUpstreamContainsRealData(t *testing.T) {
	ix, recs := realIndex(t)
	requireContains(t, ix, recs)
}

// requireOrders: every order but random lists the stations as an
// oracle sorts their objects decoded by encoding/json (by the field, then
// by name order), forwards and reversed, and random is a permutation of
// them, another for another seed.
func requireOrders(t *testing.T, ix *core.Index, orders []Order) {
	js, _, err := Page(ix, Select{}, 0, 1<<30, nil)
	if err != nil {
		t.Fatal(err)
	}
	var objs []map[string]any
	if err := json.Unmarshal(stationjson.Splice([]byte("["), append(js, ']'), ""), &objs); err != nil {
		t.Fatal(err)
	}
	for _, o := range orders {
		field := format.RBAPISorts[o.stored()].Field
		byField := slices.Clone(objs)
		slices.SortStableFunc(byField, func(a, b map[string]any) int {
			if x, ok := a[field].(float64); ok {
				return cmp.Compare(x, b[field].(float64))
			}
			return strings.Compare(a[field].(string), b[field].(string))
		})
		want := make([]string, len(byField))
		for i, obj := range byField {
			want[i] = obj["stationuuid"].(string)
		}
		if got := upstreamIDs(t, ix, Select{Order: o}, 0, 1<<30); !slices.Equal(got, want) {
			t.Errorf("order %s: %s", Orders[o], firstMismatch(got, want))
		}
		slices.Reverse(want)
		if got := upstreamIDs(t, ix, Select{Order: o, Reverse: true}, 3, 7); !slices.Equal(got, want[3:min(10, len(want))]) {
			t.Errorf("order %s reversed, offset 3: %v", Orders[o], got)
		}
	}
	a := upstreamIDs(t, ix, Select{Order: OrderRandom, Seed: 1}, 0, 1<<30)
	b := upstreamIDs(t, ix, Select{Order: OrderRandom, Seed: 2}, 0, 1<<30)
	if slices.Equal(a, b) || len(a) != len(objs) || len(slices.Compact(slices.Sorted(slices.Values(a)))) != len(objs) {
		t.Errorf("random: %d and %d stations, equal %v", len(a), len(b), slices.Equal(a, b))
	}
}

func firstMismatch(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("at %d: %s, want %s", i, got[i], want[i])
		}
	}
	return fmt.Sprintf("%d stations, want %d", len(got), len(want))
}

func TestUpstreamOrders(t *testing.T) {
	text, _ := upstreamInput(t)
	var every []Order
	for o := OrderURL; o < OrderRandom; o++ {
		every = append(every, o)
	}
	requireOrders(t, openIndex(t, buildIndex(t, text)), every)
}

func TestUpstreamOrdersRealData(t *testing.T) {
	ix, _ := realIndex(t)
	// a number, a text with escapes (favicon URLs), a time, a list
	requireOrders(t, ix, []Order{OrderVotes, OrderFavicon, OrderChangeTimestamp, OrderTags})
}

// BenchmarkUpstreamNameContains times name substrings of the compatible
// API on the real snapshot, selection and first page: one gram (a key
// range), and longer texts whose candidates are read.
func BenchmarkUpstreamNameContains(b *testing.B) {
	ix, _ := realIndex(b)
	for _, text := range []string{"fm", "radio", "jazz", "rock fm", "bayern"} {
		b.Run(text, func(b *testing.B) {
			sel := Select{Contains: Contains{Name: text}}
			var page []byte
			for b.Loop() {
				u, err := Stations(ix, sel)
				if err != nil {
					b.Fatal(err)
				}
				if page, _, err = PageOf(ix, u, 0, 100, page[:0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFoldedNamesAreTheRecordsNames: the names folded once per index are
// every record's name folded, in record order.
func TestFoldedNamesAreTheRecordsNames(t *testing.T) {
	ix, _ := realIndex(t)
	err := ix.View(func(tx *bolt.Tx) error {
		f, err := foldedNamesOf(ix, tx)
		if err != nil {
			return err
		}
		rr := core.NewRecordReader(tx)
		for n := range uint32(ix.Meta().Stations) {
			v, err := rr.Get(n)
			if err != nil {
				return err
			}
			var r format.Record
			if err := format.DecodeRecord(v, &r); err != nil {
				return err
			}
			got, err := f.of(n)
			if err != nil || got != fold.String(r.Name) {
				t.Fatalf("record %d: folded name %q (%v), want %q", n, got, err, fold.String(r.Name))
			}
		}
		if _, err := f.of(uint32(ix.Meta().Stations)); err == nil {
			t.Error("a record past the last has a name")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

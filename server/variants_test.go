package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"stationdex/query"
	"stationdex/server/core"
)

// groupNDJSON is n entries of one stream, "Copy 01" to "Copy n", entry i
// of bitrate i, and one station of its own.
func groupNDJSON(n int) []byte {
	var b strings.Builder
	line := func(i int, name, stream string) {
		fmt.Fprintf(&b, `{"stationuuid":"00000000-0000-4000-8000-%012d","name":%q,"countrycode":"US","country":"US",`+
			`"url":%q,"bitrate":%d,"codec":"MP3","lastchecktime":"2025-01-01 00:00:00"}`+"\n", i, name, stream, i)
	}
	for i := 1; i <= n; i++ {
		line(i, fmt.Sprintf("Copy %02d", i), "http://same.example/live")
	}
	line(n+1, "Alone FM", "")
	return []byte(b.String())
}

// TestStationVariants: a station of a group larger than a page of variants
// answers the first query.MaxVariants, the best first, and counts all;
// its page and Markdown twin list them under "Also listed as"; a station
// of its own has none and no such section; the directory counts entries
// and stations.
func TestStationVariants(t *testing.T) {
	const n = query.MaxVariants + 5
	s := serverAt(t, indexOf(t, "test", groupNDJSON(n)), testBase)
	var env struct {
		Station struct {
			Variants []struct {
				ID, PageURL string
				Codec       *string
				Bitrate     *int `json:"bitrate_kbps"`
			}
			Total int `json:"variants_total"`
		}
	}
	if err := json.Unmarshal(fetchOK(t, s, "/api/stations/00000000-0000-4000-8000-000000000001").Body.Bytes(), &env); err != nil {
		t.Fatal(err)
	}
	vs := env.Station.Variants
	if len(vs) != query.MaxVariants || env.Station.Total != n-1 || vs[0].Bitrate == nil || *vs[0].Bitrate != n ||
		vs[0].ID != fmt.Sprintf("00000000-0000-4000-8000-%012d", n) || *vs[0].Codec != "MP3" {
		t.Fatalf("variants %+v of %d, want %d of %d, entry %d first", vs, env.Station.Total, query.MaxVariants, n-1, n)
	}
	html := fetchOK(t, s, "/stations/00000000-0000-4000-8000-000000000001/").Body.String()
	md := fetchOK(t, s, "/stations/00000000-0000-4000-8000-000000000001/index.md").Body.String()
	for _, body := range []string{html, md} {
		if !strings.Contains(body, "Also listed as") || !strings.Contains(body, fmt.Sprintf("Copy %02d", n)) ||
			!strings.Contains(body, "and 4 more") {
			t.Errorf("the station page lists no variants:\n%s", body)
		}
	}
	alone := fetchOK(t, s, fmt.Sprintf("/stations/00000000-0000-4000-8000-%012d/", n+1)).Body.String()
	if strings.Contains(alone, "Also listed as") {
		t.Error("a station of its own lists variants")
	}
	if us := fetchOK(t, s, "/countries/us/").Body.String(); !strings.Contains(us, fmt.Sprintf("2 stations with the country United States, listed as %d entries", n+1)) {
		t.Errorf("the country page does not count entries and stations:\n%s", us)
	}
}

// TestDistinctSearch: the API lists every entry unless asked; with
// distinct=true a group of more entries than a page is one result, total
// and the codec facet count groups and entries the records; the search
// page shows each station once by default, notes the other entries and
// links to all of them, and distinct=false lists every entry.
func TestDistinctSearch(t *testing.T) {
	const n = query.MaxVariants + 5
	s := serverAt(t, indexOf(t, "test", groupNDJSON(n)), testBase)
	type envelope struct {
		Distinct *bool
		Total    int
		Entries  *int
		Results  []struct{ ID string }
		Facets   struct{ Codec []struct{ Count int } }
	}
	read := func(target string) envelope {
		var env envelope
		if err := json.Unmarshal(fetchOK(t, s, target).Body.Bytes(), &env); err != nil {
			t.Fatal(err)
		}
		return env
	}
	every := read(core.PathStations + "?facets=codec&limit=50")
	if every.Total != n+1 || every.Entries != nil || every.Distinct != nil || every.Facets.Codec[0].Count != n+1 {
		t.Errorf("without distinct: total %d entries %v distinct %v codec %+v; want %d, none, none, %d", every.Total, every.Entries, every.Distinct, every.Facets.Codec, n+1, n+1)
	}
	one := read(core.PathStations + "?distinct=true&facets=codec&limit=50")
	if one.Total != 2 || one.Entries == nil || *one.Entries != n+1 || one.Distinct == nil || !*one.Distinct ||
		len(one.Results) != 2 || one.Facets.Codec[0].Count != 2 {
		t.Errorf("distinct: %+v; want 2 results standing for %d entries, two MP3 groups", one, n+1)
	}
	if one.Results[0].ID == one.Results[1].ID || one.Results[1].ID != every.Results[1].ID {
		t.Errorf("distinct results %+v: want Alone FM, then the group's first entry by name", one.Results)
	}
	page := fetchOK(t, s, "/search/?q=copy").Body.String()
	md := fetchOK(t, s, "/search/index.md?q=copy").Body.String()
	for _, body := range []string{page, md} {
		for _, want := range []string{fmt.Sprintf("1 station matches, listed as %d entries", n), fmt.Sprintf("%d more entries", n-1),
			fmt.Sprintf("Every entry (%d)", n), "distinct=false"} {
			if !strings.Contains(body, want) {
				t.Errorf("the search page lacks %q:\n%s", want, body)
			}
		}
	}
	all := fetchOK(t, s, "/search/?q=copy&distinct=false").Body.String()
	if !strings.Contains(all, fmt.Sprintf("%d stations match", n)) || !strings.Contains(all, "Each station once") {
		t.Errorf("distinct=false does not list every entry:\n%s", all)
	}
}

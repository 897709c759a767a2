package groups

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"stationdex/internal/format"
	"stationdex/query/core"
)

// entry is one record of a grouping test: a UUID ending in n, and the
// fields grouping reads.
type entry struct {
	n                          int
	name, cc, stream, homepage string
	bitrate                    int
	codec                      string
}

func (e entry) uuid() format.UUID { return station{N: e.n}.UUID() }

func entriesNDJSON(es []entry) string {
	var b strings.Builder
	for _, e := range es {
		line, _ := json.Marshal(map[string]any{
			"stationuuid": e.uuid().String(), "name": e.name, "countrycode": e.cc, "country": e.cc,
			"url": e.stream, "homepage": e.homepage, "bitrate": e.bitrate, "codec": e.codec,
			"lastchecktime": "2025-01-01 00:00:00",
		})
		b.Write(append(line, '\n'))
	}
	return b.String()
}

// variantIDs is the ids of station n's variants and their total.
func variantIDs(t *testing.T, ix *core.Index, n int) (string, int) {
	t.Helper()
	vs, total, err := Variants(ix, station{N: n}.UUID())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, v := range vs {
		ids = append(ids, fmt.Sprintf("%x", v.ID[15])) // the UUID ends in n's decimal digits
	}
	return strings.Join(ids, " "), total
}

// TestGroupsJoinAndStandAlone: one stream address however written, and
// one name, homepage and country, join entries, transitively; an entry
// without stream address and homepage stands alone, even beside entries
// of its name and country; the representative comes first by bitrate,
// then a known codec, then id.
func TestGroupsJoinAndStandAlone(t *testing.T) {
	ix := openIndex(t, buildIndex(t, entriesNDJSON([]entry{
		{1, "Radio One", "DE", "HTTP://Stream.Example:80/one/", "", 64, "MP3"},
		{2, "Radio One Backup", "AT", "http://stream.example/one", "https://one.example/", 128, ""},
		{3, "radio one backup", "AT", "https://other.example/x", "HTTPS://ONE.example:443", 128, "AAC"},
		{4, "Radio One", "DE", "", "", 320, "MP3"},
		{5, "Radio One", "DE", "", "", 320, "MP3"},
		{6, "Radio One Backup", "FR", "", "https://one.example/", 0, ""},
	})))
	for _, c := range []struct {
		n     int
		want  string
		total int
	}{
		{1, "3 2", 2}, // 1-2 one stream, 2-3 one station: the best, 3, first
		{2, "3 1", 2},
		{3, "2 1", 2},
		{4, "", 0}, // no stream address, no homepage: alone
		{5, "", 0},
		{6, "", 0}, // its homepage is 2's, its country is not
	} {
		if got, total := variantIDs(t, ix, c.n); got != c.want || total != c.total {
			t.Errorf("station %d: variants %q of %d, want %q of %d", c.n, got, total, c.want, c.total)
		}
	}
	if m := ix.Meta(); m.Groups != 1 || m.GroupedStations != 3 {
		t.Errorf("meta: %d groups of %d entries, want 1 of 3", m.Groups, m.GroupedStations)
	}
}

// TestGroupLargerThanVariants: a group of more entries than Variants
// lists gives the first MaxVariants, best first, and counts the rest.
func TestGroupLargerThanVariants(t *testing.T) {
	var es []entry
	for i := 1; i <= MaxVariants+5; i++ {
		es = append(es, entry{i, fmt.Sprintf("Copy %02d", i), "US", "http://same.example/live", "", i, "MP3"})
	}
	ix := openIndex(t, buildIndex(t, entriesNDJSON(es)))
	got, total := variantIDs(t, ix, 1)
	var want []string
	for i := MaxVariants + 5; len(want) < MaxVariants; i-- { // highest bitrate first
		want = append(want, fmt.Sprint(i))
	}
	if got != strings.Join(want, " ") || total != MaxVariants+4 {
		t.Errorf("variants %q of %d, want %q of %d", got, total, strings.Join(want, " "), MaxVariants+4)
	}
	us, _, err := ix.Listing(core.DimCountry, "US")
	if err != nil || us.Groups != 1 || us.Stations != MaxVariants+5 {
		t.Errorf("US lists %d entries of %d groups (%v), want %d of 1", us.Stations, us.Groups, err, MaxVariants+5)
	}
}

package traffic

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"stationdex/bench/internal/raw"
)

// upTiny is a hand-made set of stations with every field the upstream
// mix draws from.
func upTiny() []raw.Station {
	var all []raw.Station
	words := []string{"Jazz", "Klassik", "Welle", "Rockland", "Antenne", "Kultur", "Bayern", "Nordsee"}
	for i := range 300 {
		all = append(all, raw.Station{
			StationUUID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i),
			Name:        fmt.Sprintf("Radio %s %s", words[i%len(words)], words[(i/3)%len(words)]),
			URL:         fmt.Sprintf("http://stream.example/%d.mp3", i),
			CountryCode: []string{"DE", "AT", "FR", "US"}[i%4],
			Language:    []string{"German", "french", "english,german"}[i%3],
			Tags:        []string{"pop,rock", "jazz", "news,talk"}[i%3],
			Codec:       []string{"MP3", "AAC", "unknown"}[i%3],
		})
	}
	return all
}

// TestUpstreamMix: the mix is deterministic and distinct, holds every
// kind, every path is under /json/ and parses, and a twin exists only
// where /api can ask the same (no hidebroken, a page of at most 50).
func TestUpstreamMix(t *testing.T) {
	a, err := Upstream(upTiny(), 7, 400)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Upstream(upTiny(), 7, 400)
	kinds := map[string]int{}
	seen := map[string]bool{}
	for i, r := range a {
		if r.Path != b[i].Path || r.API != b[i].API {
			t.Fatalf("request %d differs between two runs: %s, %s", i, r.Path, b[i].Path)
		}
		if seen[r.Path] {
			t.Errorf("%s drawn twice", r.Path)
		}
		seen[r.Path] = true
		kinds[r.Kind]++
		u, err := url.Parse(r.Path)
		if err != nil || !strings.HasPrefix(u.Path, "/json/") {
			t.Errorf("%s: not a /json/ path (%v)", r.Path, err)
		}
		if (r.Search != nil) != strings.HasPrefix(r.Kind, "search_") || (r.Search != nil && r.Search.Path() != r.Path) {
			t.Errorf("%s (%s): search filters %+v", r.Path, r.Kind, r.Search)
		}
		if r.API != "" && (r.Search == nil || r.Search.HideBroken || r.Search.Limit > apiMaxLimit || !strings.HasPrefix(r.API, "/api/stations?")) {
			t.Errorf("%s has the twin %s", r.Path, r.API)
		}
	}
	for _, k := range UpKinds {
		if kinds[k.Name] == 0 {
			t.Errorf("no request of kind %s in %v", k.Name, kinds)
		}
	}
	json, api := UpPaths(a, true)
	if len(json) != len(api) || len(api) == 0 {
		t.Errorf("%d requests with twins, %d twins", len(json), len(api))
	}
}

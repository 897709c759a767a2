package core

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"stationdex/indexer"
	qoracle "stationdex/oracle"
	"stationdex/query/internal/testindex"
)

// duplicatedStations is a generated snapshot shaped like the scaled sets
// at their worst for distinct counts: most entries in groups of several,
// linked by a shared stream (whose entries may differ in every facet:
// country, languages, tags, place, codec, last check) or by name, homepage
// and country, beside stations that stand alone; few words, so that
// searches match thousands of entries and both ways of counting (by
// records and by posting lists) are taken.
func duplicatedStations(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 17))
	pick := func(l []string) string { return l[rng.IntN(len(l))] }
	words := []string{"radio", "fm", "jazz", "rock", "news", "hits", "classic", "love", "city", "sound"}
	countries := []string{"DE", "US", "FR", "BR", "ES", "IT", "GB", "MX"}
	langs := []string{"de", "en", "fr", "pt", "es", "it"}
	tags := []string{"pop", "rock", "jazz", "news", "talk", "dance", "classical", "oldies", "country", "hip hop", "80s", "chill"}
	places := []string{"Berlin", "Paris", "Lyon", "Austin", "Madrid", "Roma", "Leeds", "Bahia", ""}
	codecs := []string{"MP3", "AAC", "AAC+", "OGG", ""}
	var b strings.Builder
	brands := n / 8
	for i := range n {
		brand := rng.IntN(brands)
		name := fmt.Sprintf("%s %s %d", words[brand%len(words)], words[brand/len(words)%len(words)], brand)
		stream := fmt.Sprintf("https://stream.example/%d", brand)
		home := fmt.Sprintf("https://home.example/%d", brand)
		country := countries[brand%len(countries)]
		switch rng.IntN(10) {
		case 0, 1, 2: // alone
			name, stream, home = fmt.Sprintf("%s alone %d", pick(words), i), fmt.Sprintf("https://alone.example/%d", i), ""
			country = pick(countries)
		case 3, 4: // the brand's stream, anywhere
			country, home = pick(countries), ""
		case 5: // the brand's station by name, another stream
			stream = fmt.Sprintf("https://other.example/%d", i)
		}
		var ts, ls []string
		for range rng.IntN(4) {
			ts = append(ts, pick(tags))
		}
		for range rng.IntN(3) {
			ls = append(ls, pick(langs))
		}
		line, err := json.Marshal(map[string]any{
			"stationuuid": fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1), "name": name,
			"url": stream, "homepage": home, "countrycode": country, "state": pick(places),
			"languagecodes": strings.Join(ls, ","), "tags": strings.Join(ts, ","),
			"codec": pick(codecs), "bitrate": 64 * rng.IntN(4), "lastcheckok": rng.IntN(2),
			"lastchecktime": "2025-01-01 00:00:00",
		})
		if err != nil {
			panic(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestDistinctFacetsMatchOracleOnDuplicatedSample: on a generated set
// where most entries share a group and a group's entries differ, every
// facet a distinct search counts (each a search can) is the oracle's,
// counted by records, by value-group pairs and value by value.
func TestDistinctFacetsMatchOracleOnDuplicatedSample(t *testing.T) {
	text := duplicatedStations(6000, 43)
	ix := openIndex(t, buildIndex(t, text))
	o := &oracle{Oracle: qoracle.New(testindex.ReadRecords(t, indexer.Input{Name: "dup.ndjson", R: strings.NewReader(text)}))}
	var all DimSet
	for d := range NumDims {
		if d.Facetable() {
			all = all.With(d)
		}
	}
	queries := []Query{{}, {Q: "radio"}, {Q: "fm"}, {Q: "jazz rock"}, {Q: "r"}, {Q: "alone"}, {Q: "love 3"},
		{Filter: oneFilter(DimCountry, "DE")}, {Filter: oneFilter(DimGenre, "pop")}, {Q: "radio", Filter: oneFilter(DimCountry, "US")},
		{Q: "city", Filter: oneFilter(DimLanguage, "es")}, {Q: "sound", Filter: oneFilter(DimCodec, "AAC")},
		{Q: "news", Filter: oneFilter(DimWorking, "true")}, {Q: "hits", Filter: oneFilter(DimLocation, "berlin")}}
	for _, way := range distinctWays(1<<30, *PairedMax) {
		t.Run(way.name, func(t *testing.T) {
			defer way.set()()
			differ := 0
			for _, q := range queries {
				for _, k := range []int{3, 8} {
					q.Facets, q.FacetLimit, q.Limit, q.Distinct = all, k, 5, true
					res, err := search(ix, q)
					if err != nil {
						t.Fatalf("%s: %v", q.String(), err)
					}
					for d := range NumDims {
						if !all.Has(d) {
							continue
						}
						name := d.Name()
						want := oracleTop(o.DistinctFacets(request(q), name), name, k)
						if got := res.Facets[d]; !sameCounts(got, want) {
							t.Errorf("%s: distinct facet %s k=%d\n got %v\nwant %v", q.String(), name, k, got, want)
						}
						if !sameCounts(res.Facets[d], oracleTop(o.Facets(request(q), name), name, k)) {
							differ++
						}
					}
				}
			}
			if differ < 50 {
				t.Errorf("only %d facets differ from the record counts: groups are not exercised", differ)
			}
		})
	}
}

func oneFilter(d Dim, v string) Filters {
	var f Filters
	f[d] = []string{v}
	return f
}

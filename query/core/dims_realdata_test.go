package core

import (
	"slices"
	"testing"

	"stationdex/internal/dim"
	qoracle "stationdex/oracle"
)

// dimQueries search the real snapshot by the location, https and codec
// dimensions: alone, with words, with the other filters and with each
// other, at the most common values and at rare ones.
func dimQueries(t *testing.T, ix *Index) []Query {
	t.Helper()
	_, locations, err := ix.Listings(DimLocation, ByStations, 0, 12)
	if err != nil || len(locations) < 12 {
		t.Fatalf("locations: %v (%d)", err, len(locations))
	}
	_, rare, err := ix.Listings(DimLocation, ByStations, 400, 4)
	if err != nil || len(rare) < 4 {
		t.Fatalf("rare locations: %v (%d)", err, len(rare))
	}
	var qs []Query
	for _, text := range []string{"", "radio", "fm", "jazz", "ra"} {
		for _, l := range slices.Concat(locations, rare) {
			// a label as stations spell it, to be folded by the engine
			qs = append(qs, Query{Q: text, Filter: Filters{DimLocation: {l.Label}}})
		}
		for _, https := range []string{"true", "false"} {
			qs = append(qs, Query{Q: text, Filter: Filters{DimHTTPS: {https}}},
				Query{Q: text, Filter: Filters{DimHTTPS: {https}, DimCountry: {"DE"}}},
				Query{Q: text, Filter: Filters{DimHTTPS: {https}, DimCodec: {"AAC", "MP3"}}},
				Query{Q: text, Filter: Filters{DimHTTPS: {https}, DimLocation: {locations[0].Label}}})
		}
		qs = append(qs, Query{Q: text, Filter: Filters{DimCodec: {"OGG"}, DimLocation: {locations[1].Label}}},
			Query{Q: text, Filter: Filters{DimLocation: {"no such place"}}},
			Query{Q: text, Filter: Filters{DimHTTPS: {"maybe"}}})
	}
	return qs
}

func TestLocationHTTPSAndCodecMatchOracleOnRealSnapshot(t *testing.T) {
	ix, o := realIndex(t)
	walkAll(t, ix, o, dimQueries(t, ix), 100)
}

// TestNewFacetsMatchOracleOnRealSnapshot counts the location and codec
// facets, alone and beside the others, and runs every entry's search.
func TestNewFacetsMatchOracleOnRealSnapshot(t *testing.T) {
	ix, o := realIndex(t)
	qs := slices.Concat(facetQueries(), dimQueries(t, ix)[:40])
	all := DimsOf(DimCountry, DimLanguage, DimGenre, DimLocation, DimCodec)
	urls := 0
	for _, q := range qs {
		for _, k := range []int{3, 10} {
			q.Facets, q.FacetLimit, q.Limit = all, k, 1
			res, err := search(ix, q)
			if err != nil {
				t.Fatalf("%s: %v", q.String(), err)
			}
			for _, name := range []string{qoracle.FacetLocation, qoracle.FacetCodec} {
				got := res.Facets[dimOfFacet(name)]
				if want := oracleTop(o.Facets(request(q), name), name, k); !sameCounts(got, want) {
					t.Fatalf("%s: facet %s k=%d\n got %v\nwant %v", q.String(), name, k, got, want)
				}
				urls += checkFacetURLs(t, ix, q, name, got)
			}
			if res.Facets[DimHTTPS] != nil {
				t.Fatalf("%s: an https facet nobody can ask for", q.String())
			}
		}
	}
	if urls < 500 {
		t.Errorf("only %d facet urls counted", urls)
	}
	if _, err := search(ix, Query{Facets: DimsOf(DimHTTPS), FacetLimit: 3, Limit: 1}); err == nil {
		t.Error("an https facet was counted; it is a filter only")
	}
}

// TestLocationLabelsAsStationsSpellThem: a location facet entry is
// labelled as a station spells the place, and that label selects it.
func TestLocationLabelsAsStationsSpellThem(t *testing.T) {
	ix, _ := realIndex(t)
	res, err := search(ix, Query{Facets: DimsOf(DimLocation, DimCodec), FacetLimit: 5, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Facets[DimLocation] {
		l, ok, err := ix.Listing(DimLocation, c.Value)
		if err != nil || !ok || l.Label != c.Label || l.Stations != c.Count {
			t.Errorf("facet entry %+v, directory says %+v (%v, %v)", c, l, ok, err)
		}
	}
	for _, c := range res.Facets[DimCodec] {
		if c.Label != c.Value || c.Value == "" {
			t.Errorf("codec facet entry %+v: a codec is labelled by its name", c)
		}
	}
}

// DimWorking is the dimension of the source's last check.
const DimWorking = dim.Working

// workingQueries search the real snapshot by the working dimension, both
// values, alone and beside words and each other filter kind, and a value
// that is neither.
func workingQueries() []Query {
	var qs []Query
	for _, text := range []string{"", "radio", "fm", "jazz", "ra", "zzzz"} {
		for _, w := range []string{"true", "false"} {
			qs = append(qs, Query{Q: text, Filter: Filters{DimWorking: {w}}},
				Query{Q: text, Filter: Filters{DimWorking: {w}, DimCountry: {"DE"}}},
				Query{Q: text, Filter: Filters{DimWorking: {w}, DimHTTPS: {"true"}, DimCodec: {"AAC", "MP3"}}},
				Query{Q: text, Filter: Filters{DimWorking: {w}, DimGenre: {"pop"}}, Distinct: true},
				Query{Q: text, Filter: Filters{DimWorking: {w}, DimLanguage: {"english"}}, BitrateMin: 128})
		}
		qs = append(qs, Query{Q: text, Filter: Filters{DimWorking: {"maybe"}}})
	}
	return qs
}

// TestWorkingMatchesOracleOnRealSnapshot: the working filter selects what
// the oracle selects for both values, and its facet counts both values
// as the oracle does, beside the other facets, with and without a
// working filter of its own.
func TestWorkingMatchesOracleOnRealSnapshot(t *testing.T) {
	ix, o := realIndex(t)
	qs := workingQueries()
	walkAll(t, ix, o, qs, 60)
	both := 0
	for _, q := range qs {
		if q.Distinct {
			continue // the oracle's facets count stations, not groups
		}
		q.Facets, q.FacetLimit, q.Limit = DimsOf(DimCountry, DimWorking, DimCodec), 10, 1
		res, err := search(ix, q)
		if err != nil {
			t.Fatalf("%s: %v", q.String(), err)
		}
		got := res.Facets[DimWorking]
		if want := oracleTop(o.Facets(request(q), DimWorking.Name()), DimWorking.Name(), 10); !sameCounts(got, want) {
			t.Fatalf("%s: facet working\n got %v\nwant %v", q.String(), got, want)
		}
		if len(got) == 2 {
			both++
		}
		checkFacetURLs(t, ix, q, DimWorking.Name(), got)
	}
	if both < 10 {
		t.Errorf("only %d searches counted both values of working; the snapshot has both", both)
	}
}

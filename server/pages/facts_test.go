package pages

import (
	"testing"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
)

// TestFacetFactsAsLinkedOneByOne: a station page's location, languages
// and genres, their addresses written into one string, are the links
// locationValue and facetValues make one by one (each address by
// stationjson.FacetURL), for clean and hostile values, values without a
// page, and none.
func TestFacetFactsAsLinkedOneByOne(t *testing.T) {
	for _, r := range []format.Record{
		{},
		{Location: "Berlin", Languages: []string{"german", "English"}, Genres: []string{"rock", "Hip-Hop", "drum & bass"}},
		{Location: "..", Languages: []string{"."}, Genres: []string{"", "!!!", "ünïcode/ß", "a\u202eb"}},
		{Location: "São Paulo / SP", Genres: []string{"pop"}},
		{Languages: []string{"french"}},
	} {
		var got, want pageLinks
		loc, langs, genres := got.facetFacts("https://x.example/dex", &r)
		wantLoc := want.add(locationValue("https://x.example/dex", r.Location))
		wantLangs := want.facetValues("https://x.example/dex", r.Languages, stationjson.KindLanguages, languageLabel)
		wantGenres := want.facetValues("https://x.example/dex", r.Genres, stationjson.KindGenres, nil)
		for _, c := range []struct {
			name      string
			got, want []Link
		}{{"location", loc, wantLoc}, {"languages", langs, wantLangs}, {"genres", genres, wantGenres}} {
			if len(c.got) != len(c.want) || cap(c.got) != len(c.got) {
				t.Errorf("%+v %s: %d links (room for %d), want %d", r, c.name, len(c.got), cap(c.got), len(c.want))
				continue
			}
			for i := range c.got {
				if c.got[i] != c.want[i] {
					t.Errorf("%+v %s: %+v, want %+v", r, c.name, c.got[i], c.want[i])
				}
			}
		}
	}
}

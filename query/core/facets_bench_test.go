package core

import "testing"

// BenchmarkFacetsReal compares searches with and without all three
// facets on the real snapshot, the broadest search (every station) with
// them, and the suggestions of a zero-result query.
func BenchmarkFacetsReal(b *testing.B) {
	ix, _ := realIndex(b)
	if err := Warm(ix); err != nil { // as query.Holder does for the server
		b.Fatal(err)
	}
	all := threeFacets
	cases := []namedQuery{
		{"radio", Query{Q: "radio"}},
		{"radio_facets", Query{Q: "radio", Facets: all}},
		{"jazz", Query{Q: "jazz"}},
		{"jazz_facets", Query{Q: "jazz", Facets: all}},
		{"country_de", Query{Filter: filters("DE", "", "")}},
		{"country_de_facets", Query{Filter: filters("DE", "", ""), Facets: all}},
		{"broadest_facets", Query{Facets: all}},
		// Two keys: match sets of a few thousand stations, counted by
		// visiting their records (the memo holds one-key sets only).
		{"radio_us", Query{Q: "radio", Filter: filters("US", "", "")}},
		{"radio_us_facets", Query{Q: "radio", Filter: filters("US", "", ""), Facets: all}},
		{"pop_de", Query{Filter: filters("DE", "", "pop")}},
		{"pop_de_facets", Query{Filter: filters("DE", "", "pop"), Facets: all}},
		// An intersection that is a whole stored list (every US station
		// matches "am") takes that list's memo.
		{"am_us_conservative", Query{Q: "am", Filter: filters("US", "", "conservative")}},
		{"am_us_conservative_facets", Query{Q: "am", Filter: filters("US", "", "conservative"), Facets: all}},
		// A country just above the memo floor, its records scattered.
		{"country_ph", Query{Filter: filters("PH", "", "")}},
		{"country_ph_facets", Query{Filter: filters("PH", "", ""), Facets: all}},
		// Two filters: the country facet counts the 4,927 stations of
		// language=english&q=radio for a search that finds 3.
		{"radio_fi_english", Query{Q: "radio", Filter: filters("FI", "english", "")}},
		{"radio_fi_english_facets", Query{Q: "radio", Filter: filters("FI", "english", ""), Facets: all}},
		// The suite's costliest against their plain search: a word and a
		// genre that find one station, whose genre facet counts the word's
		// few hundred (countSparse); a filter alone paged deep, whose own
		// facet is every station's (topOfEveryStation).
		{"media_anchorage", Query{Q: "media", Filter: filters("", "", "anchorage")}},
		{"media_anchorage_facets", Query{Q: "media", Filter: filters("", "", "anchorage"), Facets: all}},
		{"international_music_videos", Query{Q: "international", Filter: filters("", "", "music videos")}},
		{"international_music_videos_facets", Query{Q: "international", Filter: filters("", "", "music videos"), Facets: all}},
		{"country_gb_deep", Query{Filter: filters("GB", "", ""), Offset: 3100}},
		{"country_gb_deep_facets", Query{Filter: filters("GB", "", ""), Offset: 3100, Facets: all}},
		{"suggest_typo", Query{Q: "jazzz radoi", Suggest: true}},
		{"near_berlin_50km", Query{Near: &Near{Lat: 52.52, Lon: 13.405, RadiusKm: 50}}},
	}
	benchNamed(b, ix, cases)
}

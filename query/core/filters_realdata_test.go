package core

import (
	"fmt"
	"strings"
	"testing"

	"stationdex/internal/fold"
	qoracle "stationdex/oracle"
	"stationdex/query/internal/testindex"
)

// rangeFilters are the codec, bitrate and distance filters the real
// snapshot is searched with: each alone, with words and with the other
// filters. The places are cities with many stations, a remote spot, both
// sides of the antimeridian and a pole, at radii from 0.1 km to the globe.
var rangeFilters = []Query{
	{Filter: filters("", "", "", "MP3")}, {Filter: filters("", "", "", "AAC", "AAC+")}, {Filter: filters("", "", "", "OGG", "FLAC", "OPUS")},
	{BitrateMin: 128}, {BitrateMax: 64}, {BitrateMin: 96, BitrateMax: 128}, {BitrateMin: 320, BitrateMax: 10000},
	{BitrateMin: 1, BitrateMax: 1}, {BitrateMin: 128, BitrateMax: 128},
	{Near: &Near{Lat: 52.52, Lon: 13.405, RadiusKm: 50}}, {Near: &Near{Lat: 40.7128, Lon: -74.006, RadiusKm: 25}},
	{Near: &Near{Lat: 48.8566, Lon: 2.3522, RadiusKm: 0.1}}, {Near: &Near{Lat: -33.87, Lon: 151.21, RadiusKm: 1000}},
	{Near: &Near{Lat: 0, Lon: 179.9, RadiusKm: 3000}}, {Near: &Near{Lat: -17.7, Lon: -179.5, RadiusKm: 800}},
	{Near: &Near{Lat: 89.9, Lon: 0, RadiusKm: 2500}}, {Near: &Near{Lat: 64.1, Lon: -21.9, RadiusKm: 20000}},
	{Near: &Near{Lat: 35.68, Lon: 139.69, RadiusKm: 300}},
	{Filter: filters("", "", "", "MP3"), BitrateMin: 128, Near: &Near{Lat: 50.11, Lon: 8.68, RadiusKm: 200}},
}

func rangeFilterQueries() []Query {
	texts := []string{"", "radio", "jazz", "fm", "news", "ra", "北京", "klassik"}
	base := []Query{{}, {Filter: filters("DE", "", "")}, {Filter: filters("", "english", "")}, {Filter: filters("", "", "pop")}, {Filter: filters("US", "", "rock")}}
	var qs []Query
	for _, f := range rangeFilters {
		for _, t := range texts {
			q := f
			q.Q = t
			qs = append(qs, q)
		}
		for _, b := range base {
			q := f
			q.Filter[DimCountry], q.Filter[DimLanguage], q.Filter[DimGenre] = b.Filter[DimCountry], b.Filter[DimLanguage], b.Filter[DimGenre]
			qs = append(qs, q)
		}
	}
	return qs
}

func TestFiltersMatchOracleOnRealSnapshot(t *testing.T) {
	ix, o := realIndex(t)
	walkAll(t, ix, o, rangeFilterQueries(), 200)
}

// walkAll compares every page of each search with the oracle; at least
// least searches, half of them with results, must exercise them.
func walkAll(t *testing.T, ix *Index, o *oracle, qs []Query, least int) {
	t.Helper()
	pages, nonEmpty := 0, 0
	for _, q := range qs {
		q.Limit = MaxLimit
		pages += walkPages(t, ix, o, q)
		if len(o.search(q)) > 0 {
			nonEmpty++
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("%d queries (%d with results), %d pages compared", len(qs), nonEmpty, pages)
	if len(qs) < least || nonEmpty < len(qs)/2 {
		t.Errorf("%d queries, %d with results: the filters are not exercised", len(qs), nonEmpty)
	}
}

// facetQueries mix words, the faceted filters themselves and the new ones.
func facetQueries() []Query {
	qs := []Query{{}, {Q: "radio"}, {Q: "jazz"}, {Q: "fm"}, {Q: "rock fm"}, {Q: "北京"}, {Q: "zzzzqx"},
		{Filter: filters("DE", "", "")}, {Filter: filters("US", "", ""), Q: "news"}, {Filter: filters("", "german", "")}, {Filter: filters("", "english/russian", "")},
		{Filter: filters("", "", "pop")}, {Filter: filters("", "", "pop"), Q: "radio"}, {Filter: filters("FR", "fr", "news")},
		{Filter: filters("", "", "", "AAC")}, {BitrateMin: 256}, {Near: &Near{Lat: 52.52, Lon: 13.405, RadiusKm: 100}},
		{Q: "a", Filter: filters("MX", "", "")}, {Q: "klassik", Filter: filters("", "de", "")}, {Filter: filters("GB", "", "80s")}}
	for _, w := range testindex.SampledWords(real.recs, 20) {
		qs = append(qs, Query{Q: w})
	}
	return qs
}

func TestFacetsMatchOracleOnRealSnapshot(t *testing.T) {
	ix, o := realIndex(t)
	urls := 0
	for _, q := range facetQueries() {
		for _, k := range []int{10, 50} {
			q.Facets, q.FacetLimit, q.Limit = threeFacets, k, 1
			res, err := search(ix, q)
			if err != nil {
				t.Fatalf("%s: %v", q.String(), err)
			}
			got := [...][]FacetCount{res.Facets[DimCountry], res.Facets[DimLanguage], res.Facets[DimGenre]}
			for d, name := range []string{qoracle.FacetCountry, qoracle.FacetLanguage, qoracle.FacetGenre} {
				want := oracleTop(o.Facets(request(q), name), name, k)
				if !sameCounts(got[d], want) {
					t.Errorf("%s: facet %s k=%d\n got %v\nwant %v", q.String(), name, k, got[d], want)
				}
				urls += checkFacetURLs(t, ix, q, name, got[d])
			}
		}
		if t.Failed() {
			break
		}
	}
	t.Logf("%d facet urls counted", urls)
}

// oracleTop keeps the k best values that a filter can name.
func oracleTop(all []qoracle.FacetCount, facet string, k int) []qoracle.FacetCount {
	var out []qoracle.FacetCount
	for _, c := range all {
		if (facet == qoracle.FacetGenre || facet == qoracle.FacetLocation) && !Filterable(dimOfFacet(facet), c.Value) {
			continue
		}
		if out = append(out, c); len(out) == k {
			break
		}
	}
	return out
}

func sameCounts(got []FacetCount, want []qoracle.FacetCount) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i].Value != want[i].Value || got[i].Count != want[i].Count || got[i].Label == "" {
			return false
		}
	}
	return true
}

// checkFacetURLs runs the search each facet value links to: the same
// search with that filter set must find exactly the value's count.
func checkFacetURLs(t *testing.T, ix *Index, q Query, facet string, got []FacetCount) int {
	t.Helper()
	for _, c := range got {
		link := q
		link.Facets, link.Limit, link.Offset = 0, 1, 0
		link.Filter[dimOfFacet(facet)] = []string{c.Value}
		res, err := search(ix, link)
		if err != nil || res.Total != c.Count {
			t.Errorf("%s: facet %s value %q counts %d, its search finds %d (%v)", q.String(), facet, c.Value, c.Count, res.Total, err)
		}
	}
	return len(got)
}

func TestSuggestionsOnRealSnapshot(t *testing.T) {
	ix, o := realIndex(t)
	var words []string
	for _, w := range testindex.SampledWords(real.recs, 80) {
		if !strings.Contains(w, " ") {
			words = append(words, w)
		}
	}
	zero, suggested := 0, 0
	for i, text := range testindex.Typos(words) {
		q := Query{Q: text, Limit: 10, Suggest: true}
		if i%5 == 0 {
			q.Filter[DimCountry] = []string{"US"}
		}
		res, err := search(ix, q)
		if err != nil {
			t.Fatalf("%s: %v", q.String(), err)
		}
		if res.Total > 0 {
			if len(res.Suggestions) != 0 {
				t.Errorf("%s: %d results and suggestions %v", q.String(), res.Total, res.Suggestions)
			}
			continue
		}
		zero++
		if len(res.Suggestions) > 0 {
			suggested++
		}
		checkSuggestions(t, o, q, res.Suggestions)
	}
	t.Logf("%d zero-result typos, %d with suggestions", zero, suggested)
	if zero < 30 || suggested < zero*2/3 {
		t.Errorf("%d zero-result typos, only %d with suggestions", zero, suggested)
	}
}

// checkSuggestions holds each suggestion to the rules: a total the oracle
// agrees with, words within the allowed distance of the query's, the
// edits they add up to, and the order.
func checkSuggestions(t *testing.T, o *oracle, q Query, sg []Suggestion) {
	t.Helper()
	if len(sg) > MaxSuggestions {
		t.Errorf("%s: %d suggestions", q.String(), len(sg))
	}
	words := fold.Tokens(q.Q)
	for i, s := range sg {
		alt := q
		alt.Q = s.Q
		if n := o.Count(request(alt)); n != s.Total || n == 0 {
			t.Errorf("%s: suggestion %q says %d, oracle %d", q.String(), s.Q, s.Total, n)
		}
		if err := checkEdits(words, fold.Tokens(s.Q), s.Edits); err != nil {
			t.Errorf("%s: suggestion %q: %v", q.String(), s.Q, err)
		}
		if i > 0 && (sg[i-1].Edits > s.Edits || sg[i-1].Edits == s.Edits && sg[i-1].Total < s.Total) {
			t.Errorf("%s: suggestions out of order: %v", q.String(), sg)
		}
	}
}

func checkEdits(words, alt []string, edits int) error {
	if len(words) != len(alt) {
		return fmt.Errorf("%d words for %d", len(alt), len(words))
	}
	sum := 0
	for i := range words {
		d := qoracle.EditDistance(words[i], alt[i])
		if d > int(MaxEdits(words[i])) {
			return fmt.Errorf("%q is %d edits from %q", alt[i], d, words[i])
		}
		sum += d
	}
	if sum != edits || edits == 0 {
		return fmt.Errorf("edits %d, words differ by %d", edits, sum)
	}
	return nil
}

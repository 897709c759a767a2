package core

import (
	"fmt"
	"strings"
	"testing"

	"stationdex/internal/fold"
	"stationdex/internal/format"
)

// allocsPerSearch measures the allocations of one Search.
func allocsPerSearch(t *testing.T, ix *Index, q Query) float64 {
	t.Helper()
	res, err := search(ix, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stations) != q.Limit {
		t.Fatalf("%s: page of %d, the comparison needs a full page", q.String(), len(res.Stations))
	}
	return testing.AllocsPerRun(50, func() {
		if _, err := search(ix, q); err != nil {
			t.Fatal(err)
		}
	})
}

// allocSlack covers what legitimately differs between two queries with
// the same page size: the number of posting lists read (a prefix posting
// or up to PrefixFanout token postings) and the containers they have. It
// is far below one allocation per match.
const allocSlack = 60

// TestAllocsDoNotGrowWithMatches builds a directory where one word matches
// every station and another only a few, and compares full pages of each.
func TestAllocsDoNotGrowWithMatches(t *testing.T) {
	var set []station
	for i := range 3000 {
		name := fmt.Sprintf("Common Station %d", i)
		if i%600 == 0 {
			name = fmt.Sprintf("Common Rare %d", i)
		}
		set = append(set, station{N: i + 1, Name: name, CC: "DE", Country: "Germany", Language: "german", Tags: "pop"})
	}
	ix := openIndex(t, buildIndex(t, ndjson(set)))
	common := allocsPerSearch(t, ix, Query{Q: "common", Limit: 5})
	rare := allocsPerSearch(t, ix, Query{Q: "rare", Limit: 5})
	t.Logf("allocs per search: %d matches %.0f, 5 matches %.0f", 3000, common, rare)
	if common > rare+allocSlack {
		t.Errorf("a query matching 3000 stations allocates %.0f, one matching 5 allocates %.0f", common, rare)
	}
}

func TestAllocsDoNotGrowWithMatchesOnRealSnapshot(t *testing.T) {
	ix, o := realIndex(t)
	rare := rareWord(o, real.recs)
	counts := map[string]float64{}
	for _, text := range []string{"a", "r", "radio", rare} {
		counts[text] = allocsPerSearch(t, ix, Query{Q: text, Limit: 5})
	}
	t.Logf("allocs per search (limit 5): %v; %q matches %d", counts, rare, len(o.search(Query{Q: rare})))
	for _, text := range []string{"a", "r", "radio"} {
		if counts[text] > counts[rare]+allocSlack {
			t.Errorf("%q allocates %.0f per search, rare %q %.0f", text, counts[text], rare, counts[rare])
		}
	}
}

// rareWord is a word of the real snapshot that matches between 5 and 20
// stations, found by the oracle.
func rareWord(o *oracle, recs []format.Record) string {
	for i := 0; i < len(recs); i += 97 {
		for _, tok := range fold.Tokens(recs[i].Name) {
			if len(tok) < 6 || strings.ContainsFunc(tok, func(r rune) bool { return r > 'z' }) {
				continue
			}
			if n := len(o.search(Query{Q: tok})); n >= 5 && n <= 20 {
				return tok
			}
		}
	}
	return "deutschlandfunk"
}

// allocCeilings are the allocations per search of each query class on the
// real snapshot, as measured, plus two for the pool refills a garbage
// collection during the measurement causes. Allocation counts do not
// depend on timing, so this guards against regressions in `make test`.
// A plain search reads the page tree in place and intersects the lists
// key by key in its pooled workspace (plain.go, pagetree): what it
// allocates is the page's records (the buffer they share, the Record
// slice, their lists) and the query's words. Faceted searches still
// combine roaring bitmaps, which allocate a container value per container
// read and per container of a result.
var allocCeilings = map[string]float64{
	"name_word":           9,
	"two_words":           11,
	"one_letter":          10,
	"two_letter_prefix":   10,
	"three_letter_prefix": 9,
	"non_latin":           10,
	"genre_filter":        8,
	"country_language":    10,
	"word_and_filters":    11,
	"all_stations":        7,
	"deep_offset":         12,
	"zero_result":         3,
	"unknown_filter":      3,
	"facets_radio":        30,
	"facets_jazz":         29,
	"facets_country":      17,
	"facets_broadest":     16,
}

func TestAllocsPerSearchClass(t *testing.T) {
	requireAllocCeilings(t, allocCeilings, func(ix *Index, q Query) error {
		_, err := search(ix, q)
		return err
	})
}

// allocCeilingsJSON are allocCeilings for SearchJSON, the JSON API's
// search, measured + 2: the page's stored JSON copied into a buffer the
// caller reuses (as the server's pool does) instead of its records
// decoded, so a plain search allocates only for its words, and a search
// of no words none at all.
var allocCeilingsJSON = map[string]float64{
	"name_word":           5,
	"two_words":           7,
	"one_letter":          5,
	"two_letter_prefix":   5,
	"three_letter_prefix": 5,
	"non_latin":           6,
	"genre_filter":        3,
	"country_language":    5,
	"word_and_filters":    7,
	"all_stations":        2,
	"deep_offset":         5,
	"zero_result":         3,
	"unknown_filter":      3,
	"facets_radio":        25,
	"facets_jazz":         25,
	"facets_country":      12,
	"facets_broadest":     11,
}

func TestAllocsPerSearchJSONClass(t *testing.T) {
	buf := make([]byte, 0, 64<<10)
	requireAllocCeilings(t, allocCeilingsJSON, func(ix *Index, q Query) error {
		_, b, err := searchJSON(ix, q, buf[:0])
		buf = b
		return err
	})
}

// requireAllocCeilings measures the allocations of search for every
// query class of the real snapshot against its ceiling.
func requireAllocCeilings(t *testing.T, ceilings map[string]float64, search func(*Index, Query) error) {
	ix, _ := realIndex(t)
	all := threeFacets
	classes := map[string]Query{
		"facets_radio":    {Q: "radio", Facets: all, Limit: 20},
		"facets_jazz":     {Q: "jazz", Facets: all, Limit: 20},
		"facets_country":  {Filter: filters("DE", "", ""), Facets: all, Limit: 20},
		"facets_broadest": {Facets: all, Limit: 20},
	}
	for _, bq := range benchQueries {
		classes[bq.name] = bq.q
	}
	for name, q := range classes {
		if err := search(ix, q); err != nil { // warm: facet columns, pools
			t.Fatal(err)
		}
		n := testing.AllocsPerRun(100, func() {
			if err := search(ix, q); err != nil {
				t.Fatal(err)
			}
		})
		ceiling, ok := ceilings[name]
		if !ok {
			t.Errorf("%s: no allocation ceiling", name)
			continue
		}
		t.Logf("%-20s %4.0f allocs per search (ceiling %.0f)", name, n, ceiling)
		if n > ceiling {
			t.Errorf("%s: %.0f allocations per search, ceiling %.0f", name, n, ceiling)
		}
	}
}

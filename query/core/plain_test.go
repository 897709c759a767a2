package core

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"stationdex/indexer"
	"stationdex/internal/format"
	"stationdex/query/internal/testindex"
)

// TestPlainMatchesBitmapPathAcrossKeys compares the plain path (key by key
// conjunctions) with the bitmap path a faceted search takes, on an index of
// more than two container keys (65,536 records each): totals, pages and
// their order, with offsets that cross key boundaries. The real snapshot
// fits in one key, so the oracle tests do not reach this.
func TestPlainMatchesBitmapPathAcrossKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an index of 140,000 stations")
	}
	const n = acrossKeysStations
	path, err := acrossKeysIndex()
	if err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, path)
	if got := ix.Meta().Stations; got != n {
		t.Fatalf("%d stations indexed, want %d", got, n)
	}
	queries := []Query{
		{},
		{Q: "radio"},
		{Q: "radio rock"},
		{Q: "jazz", Filter: filters("FR", "", "")},
		{Q: "rock fm", Filter: filters("de", "german", "")},
		{Q: "st"},
		{Q: "1"},
		{Q: "classic", Filter: filters("", "", "news")},
		{Q: "germany"},
		{Q: "radio", Filter: filters("", "", "nova")},
		{Q: "jazz jazz"},
		{Filter: filters("GR", "", "")},
		{Filter: filters("US", "english", "sun")},
		{Q: "zzz"},
	}
	for _, q := range queries {
		faceted := q
		faceted.Facets = DimsOf(DimCountry)
		q.Limit, faceted.Limit = 20, 20
		first, err := search(ix, q)
		if err != nil {
			t.Fatal(err)
		}
		total := first.Total
		// pages at offsets across the whole match list, which spreads
		// over every key (names are in random word order)
		for _, offset := range []int{0, 7, total / 3, total / 2, 2 * total / 3, total - 5, 65536, 131072} {
			q.Offset, faceted.Offset = max(offset, 0), max(offset, 0)
			plain, err := search(ix, q)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := search(ix, faceted)
			if err != nil {
				t.Fatal(err)
			}
			if plain.Total != ref.Total {
				t.Fatalf("%+v: total %d, bitmap path %d", q, plain.Total, ref.Total)
			}
			if !slices.Equal(ids(plain.Stations), ids(ref.Stations)) {
				t.Fatalf("%+v offset %d: page %v, bitmap path %v", q, offset, ids(plain.Stations), ids(ref.Stations))
			}
		}
		if q.Q == "radio" && len(q.Filter[DimGenre]) == 0 && total < 40000 {
			t.Fatalf("q=radio matches %d stations, want a set over every key", total)
		}
	}
}

// acrossKeysStations is the number of stations of acrossKeysIndex: over
// two container keys of 65,536 records.
const acrossKeysStations = 140000

// acrossKeysIndex is the index file of TestPlainMatchesBitmapPathAcrossKeys,
// built once per test binary into the shared directory, with the options
// of testindex.Build: TestConjunctionWithoutKernels runs that test again
// with the array kernels off, which play no part in building, and each
// run opens the file afresh.
var acrossKeysIndex = sync.OnceValues(func() (string, error) {
	const n = acrossKeysStations
	rng := rand.New(rand.NewPCG(3, 5))
	words := []string{"radio", "rock", "jazz", "news", "classic", "fm", "nova", "star", "sun", "deep"}
	countries := [][2]string{{"DE", "Germany"}, {"FR", "France"}, {"US", "The United States Of America"}, {"GR", "Greece"}}
	langs := []string{"german", "french", "english", "greek", ""}
	stations := make([]station, n)
	for i := range stations {
		name := words[rng.IntN(len(words))]
		for range rng.IntN(3) {
			name += " " + words[rng.IntN(len(words))]
		}
		if rng.IntN(4) == 0 {
			name += fmt.Sprintf(" %d", rng.IntN(300))
		}
		c := countries[rng.IntN(len(countries))]
		tags := words[rng.IntN(len(words))] + "," + words[rng.IntN(len(words))]
		stations[i] = station{N: i + 1, Name: name, CC: c[0], Country: c[1], State: "",
			Language: langs[rng.IntN(len(langs))], Tags: tags}
	}
	path := filepath.Join(sharedDir, "across-keys.idx")
	opts := indexer.Options{SnapshotAt: testindex.Snapshot, Sections: format.SectionRBAPI}
	_, err := indexer.Build(context.Background(), path, opts, indexer.Input{Name: "test.ndjson", R: strings.NewReader(ndjson(stations))})
	return path, err
})

package core

import (
	"runtime"
	"testing"
)

// pageSearchBytes bounds what the search page's default search (distinct,
// every facet, each result's other entries counted: pageQueryOf)
// allocates on the real snapshot, whatever the size of its match set: the
// facets of a broad set are read from the memo, a smaller set's counted
// in pooled counters, so that what is left is the page's records and the
// facet lists. Bytes, not allocations: a broad set's bitmaps allocate a
// container value per container read, which is few, where the 5M
// stations' broadest distinct search allocated 12 MB in a few thousand.
const pageSearchBytes = 64 << 10

// TestPageSearchAllocationBoundedOnRealSnapshot: the search page's
// default search of broad words, filters and a pair of them, of a rare
// word, and of a search that matches every station allocates at most
// pageSearchBytes a search on average.
func TestPageSearchAllocationBoundedOnRealSnapshot(t *testing.T) {
	ix, o := realIndex(t)
	rare := rareWord(o, real.recs)
	for _, q := range []Query{{Q: "radio"}, {Q: "r"}, {Q: "fm"}, {Q: "music radio"}, {Q: rare}, {},
		{Filter: oneFilter(DimCountry, "DE")}, {Q: "radio", Filter: oneFilter(DimCountry, "US")},
		{Q: "jazz", Filter: oneFilter(DimGenre, "jazz")}, {Q: "radio", Offset: 400}} {
		q = pageQueryOf(q)
		if _, err := search(ix, q); err != nil { // the columns, the memo, the pools
			t.Fatal(err)
		}
		const runs = 20
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			if _, err := search(ix, q); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > pageSearchBytes {
			t.Errorf("%s: the search page's search allocates %d bytes, more than %d", q.String(), per, pageSearchBytes)
		} else {
			t.Logf("%s: %d bytes", q.String(), per)
		}
	}
}

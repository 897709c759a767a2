package core

import (
	"slices"
	"testing"

	"stationdex/internal/format"
)

// maxOffset is the deepest offset the API serves.
const maxOffset = 5000

// walkPages compares every page of q with the oracle, the way a client
// follows `next`: limit at a time from q.Offset while the next offset stays
// within maxOffset. It reports the first difference and the pages walked.
func walkPages(t testing.TB, ix *Index, o *oracle, q Query) int {
	t.Helper()
	want := o.search(q)
	pages := 0
	for off := q.Offset; off <= maxOffset; off += q.Limit {
		page := q
		page.Offset = off
		pages++
		if !samePage(t, ix, page, want) {
			return pages
		}
		if off+q.Limit >= len(want) {
			break
		}
	}
	return pages
}

func samePage(t testing.TB, ix *Index, q Query, want []format.UUID) bool {
	t.Helper()
	res, err := search(ix, q)
	if err != nil {
		t.Errorf("%s: %v", q.String(), err)
		return false
	}
	if res.Total != len(want) {
		t.Errorf("%s: total %d, oracle %d", q.String(), res.Total, len(want))
		return false
	}
	wantPage := want[min(q.Offset, len(want)):min(q.Offset+q.Limit, len(want))]
	got := ids(res.Stations)
	if !slices.Equal(got, wantPage) {
		t.Errorf("%s: page differs at %d: got %v\nwant %v", q.String(), firstDiff(got, wantPage), got, wantPage)
		return false
	}
	return true
}

func firstDiff(a, b []format.UUID) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

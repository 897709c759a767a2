package facets

import (
	"cmp"
	"runtime"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"stationdex/query/core"
)

// A pass over a broad set's records waits on memory (see facetlists.go),
// one column after another; the columns are independent, each with its
// own counters, so two goroutines can each read half of them over the
// same records, and a core that is free halves the wait. At 5M stations
// the search page's broadest searches not in the memo ("fm the", "radio
// rock": 200,000 entries, four columns passed over) spent 8 ms in the
// pass. On a node whose cores are all busy the split gains nothing and
// costs a goroutine and an iterator per such search, which is why it
// waits for sets of SplitMin records.

// SplitMin is the smallest set whose pass is split between two
// goroutines (a variable for the tests, which split small sets).
var SplitMin = 1 << 15

// countHeads counts the head part of each task's column over src, in
// one pass, or in two side by side (see above) for a set of at least
// SplitMin records when the process may run two goroutines at once.
func countHeads(s *core.Search, src records, fold int, group []*facetTask, k int) {
	head := func(t *facetTask) *slotColumn { return &t.col.head }
	if len(group) < 2 || src.size() < SplitMin || runtime.GOMAXPROCS(0) < 2 {
		countPart(s, src, src.n, fold, group, k, head)
		return
	}
	one, other := splitByWidth(group)
	mine := src
	mine.buf, mine.it = core.RecordBuffer(s), &s.Work.Many
	theirs := src
	theirs.buf, theirs.it = make([]uint32, len(mine.buf)), new(roaring.ManyIntIterator)
	var wg sync.WaitGroup
	var panicked any
	wg.Go(func() {
		// a panic here would end the process, past the request's recover:
		// it is raised again on the search's own goroutine
		defer func() { panicked = recover() }()
		countPart(s, theirs, theirs.n, fold, other, k, head)
	})
	countPart(s, mine, mine.n, fold, one, k, head)
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
}

// splitByWidth deals the tasks into two groups of about equal slots per
// record, the widest first.
func splitByWidth(group []*facetTask) (one, other []*facetTask) {
	var byWidth [core.NumDims]*facetTask
	sorted := append(byWidth[:0], group...)
	slices.SortStableFunc(sorted, func(a, b *facetTask) int { return cmp.Compare(b.col.head.width, a.col.head.width) })
	wOne, wOther := 0, 0
	for _, t := range sorted {
		if wOne <= wOther {
			one, wOne = append(one, t), wOne+t.col.head.width
		} else {
			other, wOther = append(other, t), wOther+t.col.head.width
		}
	}
	return one, other
}

package pagetree

import (
	"bytes"
	"cmp"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"stationdex/internal/format"
)

// maxWalkers bounds the goroutines that sum buckets at once.
const maxWalkers = 4

// walkParallel walks buckets on up to GOMAXPROCS goroutines, each taking
// the next task of the list when done with one, and adds their sums to
// w.sums. Pages are claimed atomically in w.seen, so a page shared by two
// buckets is still found, whichever goroutine reaches it second.
//
// A task is a whole bucket or, for a bucket large beside the rest (the
// station blocks are half of a large file), a run of its root's children
// (splitBucket): one walker would otherwise sum that bucket alone while the
// others had long finished. The runs' sums are joined in order afterwards.
func (w *pageWalker) walkParallel(buckets []rootEntry, stored []format.BucketSum) error {
	n := min(max(runtime.GOMAXPROCS(0), 1), maxWalkers, len(buckets))
	tasks, err := w.planWalk(buckets, n, stored)
	if err != nil {
		return err
	}
	walkers := make([]*pageWalker, n)
	errs := make([]error, n)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for i := range walkers {
		wk := &pageWalker{data: w.data, size: w.size, file: w.file, pageSize: w.pageSize, highWater: w.highWater, seen: w.seen, later: w.later}
		walkers[i] = wk
		wg.Go(func() { errs[i] = wk.walkTasks(tasks, &next, &failed) })
	}
	wg.Wait()
	for i, wk := range walkers {
		if errs[i] != nil {
			return errs[i]
		}
		w.sums = append(w.sums, wk.sums...)
		for name, spans := range wk.large {
			w.noteSpans(name, spans)
		}
	}
	w.sums = append(w.sums, joinSplit(tasks)...)
	for _, spans := range w.large { // runs of a bucket were walked in any order
		slices.SortFunc(spans, func(a, b Span) int { return bytes.Compare(a.Key, b.Key) })
	}
	return nil
}

// walkTask is a bucket to walk, or a run of its root branch's children.
type walkTask struct {
	bucket rootEntry
	index  int    // of the bucket in the walk's list: names may repeat in a damaged file
	size   uint64 // bytes, for the order of the list
	// A run: the bucket's root branch page (already claimed and checked
	// by splitBucket), the run's children [lo, hi), which of the runs it
	// is and, once walked, its sum.
	rootID uint64
	root   page
	lo, hi uint64
	run    int // -1: the whole bucket
	sum    format.SumPart
}

// walkTasks walks tasks[next] until none is left or a walker failed.
// Faults and panics are its own to catch: they belong to its goroutine.
func (w *pageWalker) walkTasks(tasks []walkTask, next *atomic.Int64, failed *atomic.Bool) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: verifying pages: %v", format.ErrCorrupt, p)
		}
		if err != nil {
			failed.Store(true)
		}
	}()
	for !failed.Load() {
		i := next.Add(1) - 1
		if i >= int64(len(tasks)) {
			return nil
		}
		t := &tasks[i]
		if t.run < 0 {
			err = w.walkBucket(t.bucket)
		} else {
			b := w.bucketWalk(t.bucket.name)
			_, err = w.walkChildren(t.rootID, t.root, t.lo, t.hi, b)
			t.sum = b.part() // tasks[i] is this walker's alone
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// splitShare and maxRuns: a bucket recorded at more than 1/splitShare of
// all the buckets' bytes per walker is walked as up to maxRuns runs per
// walker, so that the list ends with runs small enough to even out.
const (
	splitShare = 2
	maxRuns    = 4
)

// planWalk lists the tasks for n walkers, largest first by the lengths
// the stored sums record. A file written before they were recorded has
// none: its buckets are walked whole, in the order given.
func (w *pageWalker) planWalk(buckets []rootEntry, n int, stored []format.BucketSum) ([]walkTask, error) {
	sizes := bucketSizes(buckets, stored)
	var total uint64
	for _, sz := range sizes {
		total += sz
	}
	var tasks []walkTask
	for i, b := range buckets {
		whole := walkTask{bucket: b, index: i, size: sizes[i], run: -1}
		if n < 2 || sizes[i]*uint64(n)*splitShare <= total {
			tasks = append(tasks, whole)
			continue
		}
		runs, err := w.splitBucket(whole, n*maxRuns)
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, runs...)
	}
	slices.SortStableFunc(tasks, func(a, b walkTask) int { return cmp.Compare(b.size, a.size) })
	return tasks, nil
}

// splitBucket cuts a bucket whose root is a branch page into runs of its
// children, at most limit; a bucket of another shape is left whole, for
// walkBucket to check. The root page is claimed and checked here, as
// walkPage would.
func (w *pageWalker) splitBucket(whole walkTask, limit int) ([]walkTask, error) {
	value := whole.bucket.value
	if len(value) < boltBucketHeader {
		return []walkTask{whole}, nil
	}
	id := boltOrder.Uint64(value[0:])
	if id < 2 || id >= w.highWater {
		return []walkTask{whole}, nil
	}
	h, err := w.read(id*w.pageSize, boltPageHeader)
	if err != nil || boltOrder.Uint16(h[8:]) != boltBranchPage || boltOrder.Uint16(h[10:]) < 2 {
		return []walkTask{whole}, nil
	}
	root, _, count, err := w.claimPage(id)
	if err != nil {
		return nil, err
	}
	if _, err := elements(root, count); err != nil {
		return nil, err
	}
	k := uint64(min(limit, int(count)))
	runs := make([]walkTask, k)
	for r := range k {
		lo, hi := r*uint64(count)/k, (r+1)*uint64(count)/k
		runs[r] = walkTask{bucket: whole.bucket, index: whole.index, size: whole.size * (hi - lo) / uint64(count),
			rootID: id, root: root, lo: lo, hi: hi, run: int(r)}
	}
	return runs, nil
}

// joinSplit joins the runs of every split bucket into its sum.
func joinSplit(tasks []walkTask) []format.BucketSum {
	runs := slices.DeleteFunc(slices.Clone(tasks), func(t walkTask) bool { return t.run < 0 })
	slices.SortFunc(runs, func(a, b walkTask) int { return cmp.Or(cmp.Compare(a.index, b.index), cmp.Compare(a.run, b.run)) })
	var sums []format.BucketSum
	for len(runs) > 0 {
		n := 1
		for n < len(runs) && runs[n].index == runs[0].index {
			n++
		}
		parts := make([]format.SumPart, n)
		for i, r := range runs[:n] {
			parts[i] = r.sum
		}
		sums = append(sums, format.JoinParts(runs[0].bucket.name, parts))
		runs = runs[n:]
	}
	return sums
}

// bucketSizes is the bytes each bucket sums to, as the stored sums record
// them (0 where they do not). A damaged record only makes the plan uneven;
// the sums themselves are compared after the walk.
func bucketSizes(buckets []rootEntry, stored []format.BucketSum) []uint64 {
	recorded := make(map[string]int64, len(stored))
	for _, s := range stored {
		recorded[s.Bucket] = s.Bytes
	}
	sizes := make([]uint64, len(buckets))
	for i, b := range buckets {
		sizes[i] = uint64(max(recorded[string(b.name)], 0))
	}
	return sizes
}

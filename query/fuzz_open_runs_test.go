package query

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"

	"stationdex/indexer/format"
)

// runsIndex is an index of five blocks of stations and more, so that its
// station_json bucket has a branch root and the start-up check sums it in
// runs (planWalk); the small index's buckets are all single pages.
var runsIndex struct {
	once sync.Once
	path string
	err  error
}

func runsPath(tb testing.TB) string {
	tb.Helper()
	runsIndex.once.Do(func() {
		countries := []string{"DE", "FR", "GB", "US", "BR", "JP"}
		var set []station
		for i := range 5*format.RecordsPerBlock + 100 {
			set = append(set, station{n: i + 1, name: fmt.Sprintf("Station %d Radio", i), cc: countries[i%len(countries)],
				language: "english", tags: fmt.Sprintf("pop,genre%d", i%40)})
		}
		runsIndex.path, runsIndex.err = buildShared(ndjson(set), "runs.idx")
	})
	if runsIndex.err != nil {
		tb.Fatal(runsIndex.err)
	}
	return runsIndex.path
}

// rootPlan walks a sound file's root and meta bucket as walkFile does and
// returns the walk plan for two walkers.
func rootPlan(tb testing.TB, data []byte) []walkTask {
	tb.Helper()
	w := &pageWalker{data: data, size: uint64(len(data))}
	root, err := w.readMetas()
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := w.walkPage(root, nil); err != nil {
		tb.Fatal(err)
	}
	meta := slices.IndexFunc(w.buckets, func(b rootEntry) bool { return string(b.name) == string(format.BucketMeta) })
	if meta < 0 {
		tb.Fatal("no meta bucket")
	}
	if err := w.walkBucket(w.buckets[meta]); err != nil {
		tb.Fatal(err)
	}
	stored, err := format.DecodeChecksums(w.stored)
	if err != nil {
		tb.Fatal(err)
	}
	tasks, err := w.planWalk(slices.Delete(slices.Clone(w.buckets), meta, meta+1), 2, stored)
	if err != nil {
		tb.Fatal(err)
	}
	return tasks
}

// FuzzOpenInRuns is FuzzOpen on a file whose largest bucket the start-up
// check sums in runs on two walkers: damage to its root branch page, its
// children or its values must be refused or harmless, never a crash, and a
// file Open accepts must serve every kind of read. The seeds edit the root
// page's header and elements.
func FuzzOpenInRuns(f *testing.F) {
	sound, err := os.ReadFile(runsPath(f))
	if err != nil {
		f.Fatal(err)
	}
	var root uint64
	pageSize := uint64(os.Getpagesize())
	for _, task := range rootPlan(f, sound) {
		if task.run >= 0 {
			root = task.rootID
		}
	}
	if root == 0 {
		f.Fatal("the fuzzed file's largest bucket is not summed in runs: the target would not reach planWalk's runs")
	}
	at := func(off uint64, x byte) []byte {
		off += root * pageSize
		return []byte{byte(off >> 16), byte(off >> 8), byte(off), x}
	}
	f.Add([]byte{}, uint32(0))
	f.Add(at(10, 0x01), uint32(0))   // the root's element count
	f.Add(at(8, 0x03), uint32(0))    // its flags
	f.Add(at(16+8, 0x01), uint32(0)) // the first child's page id
	f.Add(at(16+16+8, 0x02), uint32(0))
	f.Add(at(16+4, 0x10), uint32(0)) // the first element's key size
	f.Add([]byte{}, uint32(root*pageSize+100))
	f.Fuzz(func(t *testing.T, edits []byte, cut uint32) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0)))) // two walkers at least
		openDamaged(t, sound, edits, cut)
	})
}

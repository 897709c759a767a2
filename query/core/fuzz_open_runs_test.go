package core

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
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
			set = append(set, station{N: i + 1, Name: fmt.Sprintf("Station %d Radio", i), CC: countries[i%len(countries)],
				Language: "english", Tags: fmt.Sprintf("pop,genre%d", i%40)})
		}
		runsIndex.path, runsIndex.err = buildShared(ndjson(set), "runs.idx")
	})
	if runsIndex.err != nil {
		tb.Fatal(runsIndex.err)
	}
	return runsIndex.path
}

// stationBlocksRoot is the root page of the station blocks' bucket, as
// bbolt reports it, and whether it is a branch page: what the start-up
// check cuts into runs for its walkers (see pagetree's walk plan).
func stationBlocksRoot(tb testing.TB, path string) (id uint64, branch bool) {
	tb.Helper()
	db, err := bolt.Open(path, 0o444, &bolt.Options{ReadOnly: true, PreLoadFreelist: true}) // Page needs it
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		id = uint64(tx.Bucket(format.BucketStationJSON).Root())
		info, err := tx.Page(int(id))
		branch = err == nil && info != nil && info.Type == "branch"
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return id, branch
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
	pageSize := uint64(os.Getpagesize())
	root, branch := stationBlocksRoot(f, runsPath(f))
	if !branch {
		f.Fatal("the fuzzed file's largest bucket has no branch root: the target would not reach the walk's runs")
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

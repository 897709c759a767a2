package pagetree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer"
	"stationdex/internal/format"
)

// runsStations is enough stations past format.RecordsPerBlock that the
// station blocks' bucket has a branch root, which the walk cuts into runs.
const runsStations = 5*format.RecordsPerBlock + 100

// generated is the NDJSON of n generated stations.
func generated(n int) io.Reader {
	var b strings.Builder
	countries := []string{"DE", "FR", "GB", "US", "BR", "JP"}
	for i := range n {
		fmt.Fprintf(&b, `{"stationuuid":"00000000-0000-4000-8000-%012d","name":"Station %d Radio","countrycode":%q,"language":"english","tags":"pop,genre%d","url":"https://s%d.example/live"}`+"\n",
			i+1, i, countries[i%len(countries)], i%40, i)
	}
	return strings.NewReader(b.String())
}

// buildIndex writes an index of in into a temporary file and returns its
// bytes and path.
func buildIndex(tb testing.TB, in io.Reader) ([]byte, string) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "test.idx")
	opts := indexer.Options{SnapshotAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	if _, err := indexer.Build(context.Background(), path, opts, indexer.Input{Name: "test", R: in}); err != nil {
		tb.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return data, path
}

// rootPlan walks a sound file's root and meta bucket as Walk does and
// returns the walk plan for two walkers.
func rootPlan(t *testing.T, data []byte) []walkTask {
	t.Helper()
	w := &pageWalker{data: data, size: uint64(len(data))}
	root, err := w.readMetas()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.walkPage(root, nil); err != nil {
		t.Fatal(err)
	}
	meta := slices.IndexFunc(w.buckets, func(b rootEntry) bool { return string(b.name) == string(format.BucketMeta) })
	if meta < 0 {
		t.Fatal("no meta bucket")
	}
	if err := w.walkBucket(w.buckets[meta]); err != nil {
		t.Fatal(err)
	}
	stored, err := format.DecodeChecksums(w.stored)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := w.planWalk(slices.Delete(slices.Clone(w.buckets), meta, meta+1), 2, stored)
	if err != nil {
		t.Fatal(err)
	}
	return tasks
}

// TestWalkSumsTheLargestBucketInRuns checks that the walk plan cuts the
// station blocks, the largest buckets (the API's station JSON and the
// upstream objects of the Radio Browser API), into runs for two walkers,
// each covering its root's children once and in order, that no other
// bucket is cut, and that the joined runs give the stored sums.
func TestWalkSumsTheLargestBucketInRuns(t *testing.T) {
	data, _ := buildIndex(t, generated(runsStations))
	runs := map[string][]walkTask{}
	for _, task := range rootPlan(t, data) {
		name := string(task.bucket.name)
		switch {
		case name == string(format.BucketStationJSON) || name == string(format.BucketRBAPIJSON):
			if task.run >= 0 {
				runs[name] = append(runs[name], task)
			}
		case task.run >= 0:
			t.Errorf("bucket %s is cut into runs too", name)
		}
	}
	if len(runs[string(format.BucketStationJSON)]) < 2 {
		t.Fatalf("the station blocks are walked in %d runs", len(runs[string(format.BucketStationJSON)]))
	}
	for name, r := range runs {
		requireRunsCover(t, name, r)
	}
	if _, err := Walk(data, nil); err != nil {
		t.Fatalf("the sums joined from runs do not match: %v", err)
	}
}

// requireRunsCover: the runs of one bucket cover its root's children
// once, in order.
func requireRunsCover(t *testing.T, name string, runs []walkTask) {
	t.Helper()
	slices.SortFunc(runs, func(a, b walkTask) int { return a.run - b.run })
	next := uint64(0)
	for i, r := range runs {
		if r.run != i || r.lo != next || r.hi <= r.lo {
			t.Fatalf("%s: run %d covers children [%d, %d), want it to start at %d", name, r.run, r.lo, r.hi, next)
		}
		next = r.hi
	}
	if n := uint64(boltOrder.Uint16(runs[0].root.data[10:])); next != n {
		t.Fatalf("%s: runs end at child %d of %d", name, next, n)
	}
}

// TestVerifyRefusesAFlippedByteOfALargeValue damages a value large enough
// to be summed from the file rather than through the mapping
// (sumFromFile), in the real snapshot's index, and checks that Verify
// refuses the copy, naming the bucket.
func TestVerifyRefusesAFlippedByteOfALargeValue(t *testing.T) {
	path := realPath(t)
	sound, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The first and the last station block: with two walkers or more the
	// bucket is summed in runs (TestWalkSumsTheLargestBucketInRuns), and
	// these are in the first run and the last.
	_, db := mapped(t, path)
	var blocks [2][]byte
	if err := db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(format.BucketStationJSON).Cursor()
		_, first := c.First()
		_, last := c.Last()
		blocks = [2][]byte{bytes.Clone(first), bytes.Clone(last)}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for b, value := range blocks {
		if len(value) < 2*fileSummed {
			t.Fatalf("station block %d of %d bytes: too small to be summed from the file (from %d)", b, len(value), fileSummed)
		}
		at := bytes.Index(sound, value)
		if at < 0 || bytes.LastIndex(sound, value) != at {
			t.Fatalf("station block %d is not in the file exactly once", b)
		}
		for _, into := range []int{0, fileChunk + 3, len(value) - 1} { // first chunk, a later one, the last byte
			if into >= len(value) {
				continue
			}
			d := bytes.Clone(sound)
			d[at+into] ^= 0x04
			flipped := filepath.Join(t.TempDir(), "flipped.idx")
			if err := os.WriteFile(flipped, d, 0o644); err != nil {
				t.Fatal(err)
			}
			err := verifyPath(t, flipped)
			if !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), "bucket "+string(format.BucketStationJSON)) {
				t.Errorf("block %d, byte %d flipped: err %v, want ErrCorrupt naming bucket %s", b, into, err, format.BucketStationJSON)
			}
		}
	}
}

// verifyPath runs Verify on the file at path.
func verifyPath(t *testing.T, path string) error {
	t.Helper()
	f, size := openSized(t, path)
	defer f.Close()
	_, err := Verify(f, size)
	return err
}

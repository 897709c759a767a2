package indexer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"stationdex/indexer/realdata"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
)

func openRealSnapshot(tb testing.TB) Input {
	tb.Helper()
	in, c, err := OpenInput(context.Background(), realdata.Need(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return in
}

// maxLiveHeap bounds the live heap (as measured at each garbage collection)
// of a real-snapshot build under a budget of realBudget. The input is
// 62 MB of JSON; the build buffers 16 MiB of it before spilling, plus what
// the writer holds for one bbolt transaction. (The default budget holds
// the whole snapshot, so it would bound nothing here.) The heap
// in use peaks at about 1.2 times the live heap (watchHeap sets GOGC=20).
// Grouping entries (groups.go: the relations and ranks sorters, a chunk
// of at least 1 MiB each) and counting genre spellings took the measured
// peak from 36 to 40 MiB alone, 44 under a parallel make test. Each
// record in the read pipeline's batches (4096 in flight) carries its
// upstream object (about 1.4 KB on this data, upstream.go), which took the
// peak from 42 to 50 MiB, and its name grams (one posting key per rune of
// the name, format.AppendNameGrams) to 53 alone, 59 under a parallel run. The
// build is made with format.SectionRBAPI, the larger of the two kinds.
const (
	maxLiveHeap = 60 << 20
	realBudget  = 16 << 20
)

func TestBuildRealSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the whole real snapshot")
	}
	in := openRealSnapshot(t)
	t.Logf("data: %s", realdata.Describe())
	path := filepath.Join(t.TempDir(), "real.idx")
	peak := watchHeap(t)
	start := time.Now()
	sum, err := Build(context.Background(), path, Options{MemoryBudget: realBudget, Sections: format.SectionRBAPI}, in)
	if err != nil {
		t.Fatal(err)
	}
	live, inUse := peak()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stations %d, read %d, skipped %+v, snapshot %s, file %d bytes, %s, peak live heap %d MiB, peak heap in use %d MiB",
		sum.Stations, sum.Read, sum.Skipped, sum.SnapshotAt, st.Size(), time.Since(start), live>>20, inUse>>20)
	if sum.Stations < realdata.Stations() {
		t.Errorf("indexed %d stations of %s, want >= %d", sum.Stations, realdata.Describe(), realdata.Stations())
	}
	if sum.Stations+sum.Skipped.Total() != sum.Read {
		t.Errorf("indexed %d + skipped %d != read %d", sum.Stations, sum.Skipped.Total(), sum.Read)
	}
	if want := time.Date(2025, 2, 27, 12, 38, 23, 0, time.UTC); !sum.SnapshotAt.Equal(want) {
		t.Errorf("snapshot at %s, want %s", sum.SnapshotAt, want)
	}
	if live > maxLiveHeap {
		t.Errorf("peak live heap %d MiB, want at most %d MiB", live>>20, maxLiveHeap>>20)
	}
	checkIndex(t, path, sum.Stations)

	// Again under the default budget, which holds the whole snapshot: the
	// runs spilled under realBudget must change nothing, not even a byte
	// of the file.
	again := filepath.Join(t.TempDir(), "again.idx")
	if _, err := Build(context.Background(), again, Options{Sections: format.SectionRBAPI}, openRealSnapshot(t)); err != nil {
		t.Fatal(err)
	}
	if fileSum(t, path) != fileSum(t, again) { // the same bytes hold the same pairs: no need to read them
		if digestIndex(t, path) != digestIndex(t, again) {
			t.Error("two builds of the real snapshot differ")
		} else {
			t.Error("two builds of the real snapshot hold the same pairs in different files")
		}
	}
}

// fileSum is the SHA-256 of the file at path.
func fileSum(t testing.TB, path string) string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// digestIndex hashes every bucket's keys and values.
func digestIndex(t testing.TB, path string) string {
	h := sha256.New()
	err := openIndex(t, path).View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			fmt.Fprintf(h, "[%s]", name)
			return b.ForEach(func(k, v []byte) error {
				fmt.Fprintf(h, "%d:%s%d:%s", len(k), k, len(v), v)
				return nil
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestReadRealSnapshot: every record cleaned from the real dump satisfies
// the invariants the fuzz target checks.
func TestReadRealSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the whole real snapshot")
	}
	n := 0
	sk, err := ReadRecords(context.Background(), func(r *format.Record) error {
		n++
		if err := checkRecord(r); err != nil {
			t.Errorf("%s: %v", r.ID, err)
		}
		return nil
	}, openRealSnapshot(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d records, skipped %+v", n, sk)
	if n < realdata.Stations() {
		t.Errorf("%d records of %s, want >= %d", n, realdata.Describe(), realdata.Stations())
	}
}

// watchHeap samples the heap while a test runs and returns a function that
// stops sampling and reports the peaks of the live heap and of the heap in
// use (live plus not yet collected).
func watchHeap(t *testing.T) func() (live, inUse uint64) {
	// The live heap the runtime reports is what the last collection
	// marked, and that includes what was allocated while it marked: on a
	// busy machine (make test runs packages in parallel) it overstated the
	// build's heap by up to the default GOGC's 100%. Collecting at 20%
	// growth keeps that error to about a fifth.
	gcPercent := debug.SetGCPercent(20)
	t.Cleanup(func() { debug.SetGCPercent(gcPercent) })
	runtime.GC()
	var (
		peaks [2]uint64
		done  = make(chan struct{})
		wg    sync.WaitGroup
	)
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(samples)
			for i, s := range samples {
				peaks[i] = max(peaks[i], s.Value.Uint64())
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() (uint64, uint64) {
		close(done)
		wg.Wait()
		return peaks[0], peaks[1]
	}
}

func BenchmarkBuildRealSnapshot(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.idx")
	snapshot := realdata.Need(b)
	b.ReportAllocs()
	for b.Loop() {
		in, c, err := OpenInput(context.Background(), snapshot)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Build(context.Background(), path, Options{}, in); err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"stationdex/indexer"
	"stationdex/indexer/realdata"
	"stationdex/internal/format"
	qoracle "stationdex/oracle"
	"stationdex/query/internal/testindex"
)

// sharedDir holds the indexes built once per test binary and shared by
// tests and benchmarks; TestMain removes it.
var sharedDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "stationdex-query-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sharedDir = dir
	code := m.Run()
	closeShared()
	os.RemoveAll(dir)
	os.Exit(code)
}

func buildShared(text, name string) (string, error) {
	path := filepath.Join(sharedDir, name)
	in := indexer.Input{Name: name, R: strings.NewReader(text)}
	_, err := indexer.Build(context.Background(), path, indexer.Options{SnapshotAt: testSnapshot}, in)
	return path, err
}

// real is the real snapshot, indexed and loaded into the oracle once.
var real struct {
	once   sync.Once
	ix     *Index
	oracle *oracle
	recs   []format.Record
	build  time.Duration
	err    error
}

func closeShared() {
	for _, ix := range []*Index{real.ix, smallIndex} {
		if ix != nil {
			ix.Close()
		}
	}
}

// realIndex returns the index of the real snapshot and its oracle, or
// skips (fails under CI=true) when the snapshot is absent.
func realIndex(tb testing.TB) (*Index, *oracle) {
	tb.Helper()
	if raceEnabled {
		// Built with the race detector, indexing and scanning the real
		// snapshot takes minutes; these tests run without it (make
		// test-unit) and nothing in them is concurrent.
		tb.Skip("real-snapshot tests run without -race")
	}
	realdata.Need(tb)
	real.once.Do(loadReal)
	if real.err != nil {
		tb.Fatal(real.err)
	}
	return real.ix, real.oracle
}

func loadReal() {
	start := time.Now()
	path := filepath.Join(sharedDir, "real.idx")
	if real.err = buildFile(path); real.err != nil {
		return
	}
	real.build = time.Since(start)
	if real.ix, real.err = Open(path); real.err != nil {
		return
	}
	real.recs, real.err = qoracle.ReadRecords(realdata.Path())
	if real.err == nil {
		real.oracle = newOracle(real.recs)
	}
}

func buildFile(path string) error { return testindex.BuildReal(path) }

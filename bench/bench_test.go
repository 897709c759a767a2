// Package bench holds the quick Go benchmarks of the suite (`make bench`):
// the engine on the real snapshot, per query class of the committed mix,
// and the index build. The full comparison (peers, HTTP, growth to 5M) is
// cmd/benchsuite. Timing assertions never live here.
//
//	go test -run '^$' -bench 'Search|Build' -benchmem .
//	go test -run '^$' -bench 'Peer' -benchmem .   # SQLite FTS5 and Bleve, slower set-up
package bench

import (
	"context"
	"os"
	"path/filepath"
	"stationdex/indexer/realdata"
	"sync"
	"testing"

	"stationdex/bench/internal/engines"
	"stationdex/bench/internal/mix"
	"stationdex/indexer"
	"stationdex/query"
)

var fixture struct {
	once sync.Once
	dir  string
	ix   *query.Index
	qs   []mix.Query
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixture.ix != nil {
		fixture.ix.Close()
	}
	if fixture.dir != "" {
		os.RemoveAll(fixture.dir)
	}
	os.Exit(code)
}

func needSnapshot(b testing.TB) { realdata.Need(b) }

func build(path string) error {
	f, err := os.Open(realdata.Path())
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = indexer.Build(context.Background(), path, indexer.Options{}, indexer.Input{Name: realdata.FileName, R: f})
	return err
}

// load builds the real snapshot's index once per test binary.
func load(b *testing.B) (*query.Index, []mix.Query) {
	needSnapshot(b)
	fixture.once.Do(func() {
		fixture.dir, fixture.err = os.MkdirTemp("", "stationdex-bench-")
		if fixture.err != nil {
			return
		}
		path := filepath.Join(fixture.dir, "real.db")
		if fixture.err = build(path); fixture.err != nil {
			return
		}
		if fixture.ix, fixture.err = query.Open(path); fixture.err != nil {
			return
		}
		fixture.qs, fixture.err = mix.Load("queries/mix.tsv")
	})
	if fixture.err != nil {
		b.Fatal(fixture.err)
	}
	return fixture.ix, fixture.qs
}

func BenchmarkSearch(b *testing.B) {
	ix, qs := load(b)
	byClass := mix.ByClass(qs)
	for _, c := range append(mix.Classes, struct{ Name, What string }{"mix", "all"}) {
		idx := byClass[c.Name]
		if c.Name == "mix" {
			idx = make([]int, len(qs))
			for i := range idx {
				idx[i] = i
			}
		}
		b.Run(c.Name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := ix.Search(engines.Query(qs[idx[i%len(idx)]])); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

func BenchmarkBuild(b *testing.B) {
	needSnapshot(b)
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		if err := build(filepath.Join(dir, "build.db")); err != nil {
			b.Fatal(err)
		}
	}
}

var peers struct {
	once   sync.Once
	sqlite engines.Engine
	bleve  engines.Engine
	err    error
}

// BenchmarkPeer runs SQLite FTS5 and Bleve over the whole mix, loaded with
// the real snapshot's records (about a minute of set-up).
func BenchmarkPeer(b *testing.B) {
	_, qs := load(b)
	peers.once.Do(func() {
		dir := filepath.Join(fixture.dir, "peers")
		os.MkdirAll(filepath.Join(dir, "s"), 0o755)
		os.MkdirAll(filepath.Join(dir, "b"), 0o755)
		recs, err := engines.Records(realdata.Path())
		if err != nil {
			peers.err = err
			return
		}
		if peers.sqlite, peers.err = engines.NewSQLite(filepath.Join(dir, "s"), recs); peers.err != nil {
			return
		}
		peers.bleve, peers.err = engines.NewBleve(filepath.Join(dir, "b"), recs)
	})
	if peers.err != nil {
		b.Fatal(peers.err)
	}
	for _, e := range []engines.Engine{peers.sqlite, peers.bleve} {
		b.Run(e.Name(), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, _, err := e.Search(qs[i%len(qs)], false); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

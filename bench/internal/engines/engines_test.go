package engines

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"stationdex/indexer/realdata"
	"sync"
	"testing"

	"stationdex/bench/internal/mix"
	"stationdex/bench/internal/raw"
	"stationdex/indexer"
)

// TestPeersAgree loads a 1,500-station slice of the snapshot into every
// engine and checks that they agree on totals for the committed mix (our
// engine and the peers index the same tokens and keys, so they must).
func TestPeersAgree(t *testing.T) {
	snapshot := realdata.Need(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "small.ndjson")
	writeHead(t, snapshot, data, 1500)
	recs, err := Records(data)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := mix.Load("../../queries/mix.tsv")
	if err != nil {
		t.Fatal(err)
	}
	qs = mix.Sample(qs, 15)
	engines := []Engine{}
	sq, err := NewSQLite(dir, recs)
	if err != nil {
		t.Fatal(err)
	}
	engines = append(engines, sq)
	bl, err := NewBleve(dir, recs)
	if err != nil {
		t.Fatal(err)
	}
	engines = append(engines, bl)
	idx := filepath.Join(dir, "small.db")
	f, _ := os.Open(data)
	if _, err := indexer.Build(context.Background(), idx, indexer.Options{}, indexer.Input{Name: data, R: f}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	sd, err := OpenStationdex(idx)
	if err != nil {
		t.Fatal(err)
	}
	engines = append(engines, sd)
	defer func() {
		for _, e := range engines {
			e.Close()
		}
	}()
	disagree := 0
	for _, q := range qs {
		var totals []int
		for _, e := range engines {
			n, _, err := e.Search(q, true)
			if err != nil {
				t.Fatalf("%s %+v: %v", e.Name(), q, err)
			}
			totals = append(totals, n)
		}
		for i := 1; i < len(totals); i++ {
			if totals[i] != totals[0] {
				disagree++
				t.Logf("%+v: totals %v (sqlite, bleve, stationdex)", q, totals)
				break
			}
		}
	}
	if disagree > len(qs)/10 {
		t.Errorf("%d of %d queries disagree on totals", disagree, len(qs))
	}
}

func writeHead(t *testing.T, src, dst string, n int) {
	t.Helper()
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	k := 0
	raw.EachLine(src, func(line []byte) error {
		if k < n {
			f.Write(append(line, '\n'))
		}
		k++
		return nil
	})
}

// TestSQLiteStatementCacheConcurrent prepares the same statements from
// concurrent callers, as cmd/peerhttp's handlers do on their first
// requests: the statement cache must be safe for that (unlocked, two first
// uses at once were a concurrent map write that killed the peer
// mid-benchmark; under -race this test reports it every time).
func TestSQLiteStatementCacheConcurrent(t *testing.T) {
	sq, err := NewSQLite(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sq.Close()
	const texts = 200
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range texts {
				if _, err := sq.stmt(fmt.Sprintf("SELECT %d", i)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(sq.stmts) != texts {
		t.Errorf("%d statements cached, want %d", len(sq.stmts), texts)
	}
}

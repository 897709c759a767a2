package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"stationdex/bench/internal/engines"
	"stationdex/bench/internal/mix"
)

// peerBench times the peers in process on the base set, each on the
// committed mix or a sample of it, beside our times on the same queries;
// it fills res.Peers.
type peerBench struct {
	b     *base
	qs    []mix.Query
	procs *procs // a peer still open at an interrupt is closed with the children
	res   *Results
	lg    *logger
}

// run loads one peer, times it on qs[idx], and compares with ours.
func (pb peerBench) run(idx []int, t timing, load func() (engines.Engine, error), semantics string) error {
	t0 := time.Now()
	e, err := load()
	if err != nil {
		return err
	}
	closed := false
	pb.procs.onCleanup(func() {
		if !closed {
			e.Close()
		}
	})
	defer func() { closed = true; e.Close() }()
	p := Peer{Name: e.Name(), LoadSec: time.Since(t0).Seconds(), Queries: len(idx), Semantics: semantics}
	sub := make([]mix.Query, len(idx))
	ours := make([]float64, len(idx))
	ourTotals := make([]int, len(idx))
	for k, i := range idx {
		sub[k], ours[k], ourTotals[k] = pb.qs[i], pb.b.times[i], pb.b.totals[i]
	}
	times, totals, err := timeEngine(e, sub, t)
	if err != nil {
		return err
	}
	p.Stats = stats(sub, times, totals)
	p.Ours = stats(sub, ours, ourTotals)
	p.RatioMedian = p.Stats.MedianUs / p.Ours.MedianUs
	ratios := make([]float64, len(sub))
	for k := range sub {
		ratios[k] = times[k] / ours[k]
	}
	p.RatioGeo = geomean(ratios)
	if len(totals) > 0 && totals[0] >= 0 {
		agree := 0
		for k := range sub {
			if totals[k] == ourTotals[k] {
				agree++
			}
		}
		p.TotalsAgree = fmt.Sprintf("%d/%d", agree, len(sub))
		if agree < len(sub)*9/10 {
			return fmt.Errorf("%s agrees with stationdex on only %s totals: the comparison would not be like for like", p.Name, p.TotalsAgree)
		}
	}
	if p.Name == "sqlite-fts5" {
		var sample []mix.Query
		for _, i := range mix.SampleIndex(sub, 25) {
			sample = append(sample, sub[i])
		}
		p.PagesAgree = pagesAgree(pb.b.e, e, sample)
	}
	pb.lg.logf("   %s: loaded in %.1f s; median %.1f us vs ours %.2f us on the same %d queries: %.0fx (geomean %.0fx); totals agree %s",
		p.Name, p.LoadSec, p.Stats.MedianUs, p.Ours.MedianUs, len(sub), p.RatioMedian, p.RatioGeo, p.TotalsAgree)
	pb.res.Peers = append(pb.res.Peers, p)
	return nil
}

// pagesAgree counts queries whose first page has the same ids in the same
// order in both engines.
func pagesAgree(ours, peer engines.Engine, qs []mix.Query) string {
	agree := 0
	for _, q := range qs {
		_, a, err1 := ours.Search(q, true)
		_, b, err2 := peer.Search(q, true)
		if err1 == nil && err2 == nil && fmt.Sprint(a) == fmt.Sprint(b) {
			agree++
		}
	}
	return fmt.Sprintf("%d/%d", agree, len(qs))
}

// freshDir is parent/name, emptied.
func freshDir(parent, name string) string {
	d := filepath.Join(parent, name)
	os.RemoveAll(d)
	os.MkdirAll(d, 0o755)
	return d
}

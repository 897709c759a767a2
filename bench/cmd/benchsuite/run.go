package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"stationdex/bench/internal/engines"
	"stationdex/bench/internal/mix"
	"stationdex/bench/internal/raw"
)

// base holds what later stages need from the first (base) size.
type base struct {
	data   dataset
	idx    string
	e      *engines.Stationdex
	times  []float64
	totals []int
}

func (s *suite) runAll(mixFile string, skipMaria bool) {
	maria := s.preflight(skipMaria)
	var qs []mix.Query
	s.stage("load query mix", func() (err error) { qs, err = s.loadMix(mixFile); return err })
	if qs == nil {
		return
	}
	s.mixQueries = qs
	if !s.stage("build binaries", s.buildBinaries) {
		return
	}
	var b base
	for i := range s.cfg.sizes {
		d := s.cfg.sizes[i]
		sz, ok := s.sizeStages(&d, qs, i == len(s.cfg.sizes)-1, i == 0, &b)
		if ok {
			s.res.Sizes = append(s.res.Sizes, sz)
		}
		if s.mode == "full" && i > 0 {
			// A partial report survives if a later, larger size is cut short.
			s.stage("interim report", s.writeReport)
		}
		if i == 0 {
			if !ok {
				return // nothing to compare against
			}
			b.data = d
			if !s.cfg.skip["peers"] {
				s.peerStages(&b, qs, maria)
			}
			if !s.cfg.skip["http"] {
				s.stage("http: stationdex vs ceiling under wrk", func() (err error) {
					s.res.HTTP, err = s.httpStage(b.idx, qs, b.totals)
					return err
				})
			}
			if s.res.HTTP != nil && s.res.HTTP.Ceiling.RPS > 0 && !s.cfg.skip["peers"] {
				for _, name := range []string{"sqlite", "bleve"} {
					s.stage("http: "+name+" peer under wrk", func() error { return s.httpPeer(name, b.data.Path) })
				}
			}
			if !s.cfg.skip["mixes"] || !s.cfg.skip["facets"] || !s.cfg.skip["distinct"] {
				s.trafficStages(&b)
			}
			if !s.cfg.skip["upstream"] {
				s.stage("upstream "+b.data.Label+": /json/ vs ceiling, /api and mariadb", func() error { return s.upstreamStage(&b, maria) })
			}
			b.e.Close()
		}
	}
}

// sizeStages measures one data size: data, build, start-up, engine times.
func (s *suite) sizeStages(d *dataset, qs []mix.Query, largest, isBase bool, b *base) (Size, bool) {
	sz := Size{Label: d.Label}
	var idx string
	var e *engines.Stationdex
	ok := s.stage("data "+d.Label, func() error { return s.ensureData(d, &sz) }) &&
		s.stage("index build "+d.Label, func() (err error) { idx, err = s.buildIndex(d, &sz); return err }) &&
		s.stage("start-up "+d.Label, func() error { return s.startup(idx, &sz, s.cfg.startRuns) }) &&
		s.stage("engine "+d.Label, func() (err error) {
			if e, err = s.openEngine(idx, &sz, qs[0]); err != nil {
				return err
			}
			times, totals, err := timeEngine(e, qs, s.cfg.ours)
			if err != nil {
				return err
			}
			sz.Engine = stats(qs, times, totals)
			allocs(e, qs, &sz.Engine)
			sz.BitmapMedUs, sz.DecodeMedUs = split(e, qs)
			if z := sz.Engine.Classes["zero"]; z.N != z.ZeroTotals {
				return fmt.Errorf("%d of %d zero-class queries found stations", z.N-z.ZeroTotals, z.N)
			}
			s.logf("   %s: %d stations, median %.1f us, p99 %.1f us, %.1f allocs/search", d.Label, sz.Stations,
				sz.Engine.MedianUs, sz.Engine.P99Us, sz.Engine.AllocsPerOp)
			if isBase {
				b.idx, b.e, b.times, b.totals = idx, e, times, totals
			}
			return nil
		})
	if ok && !s.cfg.skip["facets"] {
		s.stage("broadest all-facet search "+d.Label, func() (err error) {
			sz.Broadest, err = broadest(e.Ix, 7)
			s.logf("   %s: broadest all-facet search median %.0f us", d.Label, sz.Broadest.MedianUs)
			return err
		})
	}
	if ok && isBase {
		s.stage("build profile "+d.Label, func() (err error) {
			s.res.BuildProfile, err = buildProfile(d.Path, filepath.Join(s.work, "index", "profile-scratch.db"), filepath.Join(s.raw, "build-"+d.Label+".prof"))
			return err
		})
	}
	if ok && largest {
		s.stage("cpu profile "+d.Label, func() (err error) {
			s.res.Profile, err = profile(e, qs, s.cfg.profileDur, filepath.Join(s.raw, "cpu-"+d.Label+".prof"))
			s.res.ProfileAt = fmt.Sprintf("%s (%d stations), the whole mix in a loop for %s", d.Label, sz.Stations, s.cfg.profileDur)
			return err
		})
	}
	if e != nil && !isBase {
		e.Close()
	}
	return sz, ok
}

// peerStages loads each peer with the base data and times it on the mix
// (MariaDB on a per-class sample), next to our times on the same queries.
func (s *suite) peerStages(b *base, qs []mix.Query, maria bool) {
	var recs = b.recs(s)
	if recs == nil {
		return
	}
	all := make([]int, len(qs))
	for i := range all {
		all[i] = i
	}
	dir := filepath.Join(s.work, "peers")
	s.stage("peer sqlite-fts5", func() error {
		return s.peer(b, qs, all, s.cfg.peer, dir, func() (engines.Engine, error) { return engines.NewSQLite(freshDir(dir, "sqlite"), recs) },
			"Same folded tokens and filter keys as ours (computed with our fold and iso packages); every word an FTS5 prefix query "+
				"(prefix='1 2 3' indexes), AND-ed; country, language and genre as indexed side tables; our three tiers spelled out "+
				"as ORDER BY CASE over the name key and a second MATCH on the name column; count(*) for the total, so two statements per search.")
	})
	s.stage("peer bleve", func() error {
		return s.peer(b, qs, all, s.cfg.peer, dir, func() (engines.Engine, error) { return engines.NewBleve(freshDir(dir, "bleve"), recs) },
			"Same folded tokens and keys (whitespace analyzer, keyword fields); a PrefixQuery per word in a conjunction with term "+
				"filters; sorted by name key, then record number. Bleve cannot sort by our name-match tiers (it would take custom "+
				"scoring), so its pages are purely alphabetical; totals are comparable, page order only where the query has no words.")
	})
	if !maria {
		s.res.Notes = append(s.res.Notes, "MariaDB peer not run (not installed or -skip-mariadb).")
		return
	}
	stations, err := raw.ReadAll(b.data.Path)
	if err != nil {
		s.stage("peer mariadb", func() error { return err })
		return
	}
	sample := mix.SampleIndex(qs, s.cfg.mariaPerCl)
	s.stage("peer mariadb", func() error {
		return s.peer(b, qs, sample, timing{Warm: false, Budget: 0, MaxReps: 1}, dir, func() (engines.Engine, error) {
			return engines.StartMariaDB(context.Background(), stations, s.logf)
		}, "The upstream statement as is (../shared/anchors/upstream-search.md): q is one substring of Name only "+
			"(LIKE '%q%'; utf8mb4_unicode_ci folds case and accents), not per-word prefixes over name, country, location, "+
			"languages and genres; language with the upstream exact-list test on the English label (our codes and names are "+
			"mapped to it first); genre with the exact-list test on Tags; ORDER BY Name, no tiers, no tie-break; no total "+
			"(upstream does not count). Loaded from the raw snapshot; mariadbd 10.11 defaults, on loopback.")
	})
}

// recs reads the base data's cleaned records once for the peers.
func (b *base) recs(s *suite) (out []engines.Record) {
	s.stage("peer records", func() (err error) {
		out, err = engines.Records(b.data.Path)
		return err
	})
	return out
}

func freshDir(parent, name string) string {
	d := filepath.Join(parent, name)
	removeAll(d)
	mkdirAll(d)
	return d
}

// peer loads one peer, times it on qs[idx], and compares with ours.
func (s *suite) peer(b *base, qs []mix.Query, idx []int, t timing, dir string, load func() (engines.Engine, error), semantics string) error {
	t0 := time.Now()
	e, err := load()
	if err != nil {
		return err
	}
	closed := false
	s.onCleanup(func() {
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
		sub[k], ours[k], ourTotals[k] = qs[i], b.times[i], b.totals[i]
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
		p.PagesAgree = pagesAgree(b.e, e, sample)
	}
	s.logf("   %s: loaded in %.1f s; median %.1f us vs ours %.2f us on the same %d queries: %.0fx (geomean %.0fx); totals agree %s",
		p.Name, p.LoadSec, p.Stats.MedianUs, p.Ours.MedianUs, len(sub), p.RatioMedian, p.RatioGeo, p.TotalsAgree)
	s.res.Peers = append(s.res.Peers, p)
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

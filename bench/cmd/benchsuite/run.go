package main

import (
	"context"
	"fmt"
	"path/filepath"

	"stationdex/bench/internal/engines"
	"stationdex/bench/internal/mix"
	"stationdex/bench/internal/raw"
	"stationdex/bench/internal/traffic"
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
	if !s.stage("build binaries", s.buildBinaries) {
		return
	}
	var b base
	z := &sizer{dir: s.dir, sv: s.sv, buildRuns: s.cfg.buildRuns, lg: s.lg}
	for i := range s.cfg.sizes {
		d := s.cfg.sizes[i]
		sz, ok := s.sizeStages(z, &d, qs, i == len(s.cfg.sizes)-1, i == 0, &b)
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
			s.baseStages(&b, qs, maria)
		}
	}
}

// sizeStages measures one data size: data, build, start-up, engine times.
func (s *suite) sizeStages(z *sizer, d *dataset, qs []mix.Query, largest, isBase bool, b *base) (Size, bool) {
	sz := Size{Label: d.Label}
	var idx string
	var e *engines.Stationdex
	ok := s.stage("data "+d.Label, func() error { return z.data(d, &sz) }) &&
		s.stage("index build "+d.Label, func() (err error) { idx, err = z.build(d, &sz); return err }) &&
		s.stage("start-up "+d.Label, func() error { return z.startup(idx, &sz, s.cfg.startRuns) }) &&
		s.stage("engine "+d.Label, func() (err error) {
			if e, err = z.open(idx, &sz, qs[0]); err != nil {
				return err
			}
			times, totals, err := timeEngine(e, qs, s.cfg.ours)
			if err != nil {
				return err
			}
			sz.Engine = stats(qs, times, totals)
			allocs(e, qs, &sz.Engine)
			sz.BitmapMedUs, sz.DecodeMedUs = split(e, qs)
			if zc := sz.Engine.Classes["zero"]; zc.N != zc.ZeroTotals {
				return fmt.Errorf("%d of %d zero-class queries found stations", zc.N-zc.ZeroTotals, zc.N)
			}
			s.lg.logf("   %s: %d stations, median %.1f us, p99 %.1f us, %.1f allocs/search", d.Label, sz.Stations,
				sz.Engine.MedianUs, sz.Engine.P99Us, sz.Engine.AllocsPerOp)
			if isBase {
				b.idx, b.e, b.times, b.totals = idx, e, times, totals
			}
			return nil
		})
	if ok && !s.cfg.skip["facets"] {
		s.stage("broadest all-facet search "+d.Label, func() (err error) {
			sz.Broadest, err = broadest(e.Ix, 7)
			s.lg.logf("   %s: broadest all-facet search median %.0f us", d.Label, sz.Broadest.MedianUs)
			return err
		})
	}
	if ok && isBase {
		s.stage("build profile "+d.Label, func() (err error) {
			s.res.BuildProfile, err = buildProfile(d.Path, filepath.Join(s.dir.work, "index", "profile-scratch.db"), filepath.Join(s.dir.raw, "build-"+d.Label+".prof"))
			return err
		})
	}
	if ok && largest {
		s.stage("cpu profile "+d.Label, func() (err error) {
			s.res.Profile, err = profile(e, qs, s.cfg.profileDur, filepath.Join(s.dir.raw, "cpu-"+d.Label+".prof"))
			s.res.ProfileAt = fmt.Sprintf("%s (%d stations), the whole mix in a loop for %s", d.Label, sz.Stations, s.cfg.profileDur)
			return err
		})
	}
	if e != nil && !isBase {
		e.Close()
	}
	return sz, ok
}

// baseStages are the stages of the base set after its engine: the peers,
// the committed mix over HTTP, the generated mixes, facets and distinct
// searches, and the Radio Browser API.
func (s *suite) baseStages(b *base, qs []mix.Query, maria bool) {
	if !s.cfg.skip["peers"] {
		s.peerStages(b, qs, maria)
	}
	hb := httpBench{sv: s.sv, load: s.load, rounds: s.cfg.rounds, lg: s.lg}
	if !s.cfg.skip["http"] {
		s.stage("http: stationdex vs ceiling under wrk", func() (err error) {
			s.res.HTTP, err = hb.run(b.idx, qs, b.totals)
			return err
		})
	}
	if s.res.HTTP != nil && s.res.HTTP.Ceiling.RPS > 0 && !s.cfg.skip["peers"] {
		for _, name := range []string{"sqlite", "bleve"} {
			s.stage("http: "+name+" peer under wrk", func() error { return hb.peer(s.res.HTTP, name, b.data.Path) })
		}
	}
	if !s.cfg.skip["mixes"] || !s.cfg.skip["facets"] || !s.cfg.skip["distinct"] || !s.cfg.skip["pages"] {
		s.trafficStages(b, qs)
	}
	if !s.cfg.skip["upstream"] {
		rb := &rbapiBench{b: b, sv: s.sv, load: s.load, rounds: s.cfg.rounds, distinct: s.cfg.upDistinct, mariaPerKind: s.cfg.mariaPerCl,
			res: &s.res, lg: s.lg}
		s.stage("upstream "+b.data.Label+": /json/ vs ceiling, /api and mariadb", func() error { return rb.run(maria) })
	}
	b.e.Close()
}

// peerStages loads each peer with the base data and times it on the mix
// (MariaDB on a per-class sample), next to our times on the same queries.
func (s *suite) peerStages(b *base, qs []mix.Query, maria bool) {
	var recs []engines.Record
	s.stage("peer records", func() (err error) {
		recs, err = engines.Records(b.data.Path)
		return err
	})
	if recs == nil {
		return
	}
	all := make([]int, len(qs))
	for i := range all {
		all[i] = i
	}
	dir := filepath.Join(s.dir.work, "peers")
	pb := peerBench{b: b, qs: qs, procs: s.procs, res: &s.res, lg: s.lg}
	s.stage("peer sqlite-fts5", func() error {
		return pb.run(all, s.cfg.peer, func() (engines.Engine, error) { return engines.NewSQLite(freshDir(dir, "sqlite"), recs) },
			"Same folded tokens and filter keys as ours (computed with our fold and iso packages); every word an FTS5 prefix query "+
				"(prefix='1 2 3' indexes), AND-ed; country, language and genre as indexed side tables; our three tiers spelled out "+
				"as ORDER BY CASE over the name key and a second MATCH on the name column; count(*) for the total, so two statements per search.")
	})
	s.stage("peer bleve", func() error {
		return pb.run(all, s.cfg.peer, func() (engines.Engine, error) { return engines.NewBleve(freshDir(dir, "bleve"), recs) },
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
		return pb.run(sample, timing{Warm: false, Budget: 0, MaxReps: 1}, func() (engines.Engine, error) {
			return engines.StartMariaDB(context.Background(), stations, s.lg.logf)
		}, "The upstream statement as is (../shared/anchors/upstream-search.md): q is one substring of Name only "+
			"(LIKE '%q%'; utf8mb4_unicode_ci folds case and accents), not per-word prefixes over name, country, location, "+
			"languages and genres; language with the upstream exact-list test on the English label (our codes and names are "+
			"mapped to it first); genre with the exact-list test on Tags; ORDER BY Name, no tiers, no tie-break; no total "+
			"(upstream does not count). Loaded from the raw snapshot; mariadbd 10.11 defaults, on loopback.")
	})
}

// trafficStages runs the generated HTTP mixes and the facet
// measurements on the base set.
func (s *suite) trafficStages(b *base, qs []mix.Query) {
	var src *traffic.Source
	if !s.stage("traffic vocabulary", func() error {
		all, err := raw.ReadAll(b.data.Path)
		if err != nil {
			return err
		}
		src = traffic.NewSource(all)
		return nil
	}) {
		return
	}
	if !s.cfg.skip["mixes"] {
		mb := &mixBench{b: b, sv: s.sv, load: s.load, rounds: s.cfg.rounds, coldPerRound: s.cfg.coldPerRound, coldProbes: s.cfg.coldProbes,
			hotDistinct: s.cfg.hotDistinct, hotRequests: s.cfg.hotRequests, calibrateRounds: s.mode != "smoke", res: &s.res, lg: s.lg}
		s.stage("http: cold, search page, crawl and hot mixes vs ceiling", func() error { return mb.run(src) })
	}
	if !s.cfg.skip["facets"] {
		s.stage("facets "+b.data.Label, func() (err error) {
			s.res.Facets, err = facetCosts(b, qs, src, s.cfg.facetTiming, s.cfg.typos, s.lg)
			return err
		})
	}
	if !s.cfg.skip["distinct"] {
		s.stage("distinct "+b.data.Label, func() (err error) {
			s.res.Distinct, err = distinctCosts(b, qs, s.cfg.facetTiming, s.lg)
			return err
		})
	}
	if !s.cfg.skip["pages"] {
		s.stage("search page searches "+b.data.Label, func() (err error) {
			s.res.SearchPage, err = searchPageSearches(b, src, s.cfg.pageSearches, s.lg)
			return err
		})
	}
}

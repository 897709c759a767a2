package main

import (
	"fmt"
	"strings"

	"stationdex/bench/internal/engines"
	"stationdex/bench/internal/mix"
	"stationdex/query"
)

// DistinctCosts is what issue #26 asks of distinct=true: the engine mix's
// searches with one result per group, against the same searches listing
// every entry, median and p99, per search as the facets are compared.
type DistinctCosts struct {
	Label    string  `json:"label"`
	Stations int     `json:"stations"`
	Plain    Summary `json:"plain"`
	Distinct Summary `json:"distinct"`
	// PerSearch is the ratio distinct / plain of every search of the mix
	// (perSearchRatios; its worst list names the distinct time FacetedUs).
	PerSearch RatioSpread `json:"per_search"`
	// Fewer is the searches whose distinct total is below their total:
	// the ones that had duplicates to leave out.
	Fewer int `json:"fewer_results"`
}

// distinctRatioGoal is the most a distinct search may cost beside the
// same search without.
const distinctRatioGoal = 1.5

// distinctCosts times the committed mix qs on the base set as it is and
// with distinct=true, each search alone.
func distinctCosts(b *base, qs []mix.Query, t timing, lg *logger) (*DistinctCosts, error) {
	d := &DistinctCosts{Label: b.data.Label, Stations: b.e.Ix.Meta().Stations}
	plain := make([]query.Query, len(qs))
	distinct := make([]query.Query, len(qs))
	for i, q := range qs {
		plain[i] = engines.Query(q)
		distinct[i] = plain[i]
		distinct[i].Distinct = true
	}
	pt, ptot, _, err := timeQueries(b.e.Ix, plain, t)
	if err != nil {
		return nil, err
	}
	dt, dtot, _, err := timeQueries(b.e.Ix, distinct, t)
	if err != nil {
		return nil, err
	}
	for i := range qs {
		switch {
		case dtot[i] > ptot[i]:
			return nil, fmt.Errorf("%s: %d groups of %d entries", qs[i].Path(), dtot[i], ptot[i])
		case dtot[i] < ptot[i]:
			d.Fewer++
		}
	}
	d.Plain, d.Distinct = summarize(pt), summarize(dt)
	if d.PerSearch, _, err = perSearchRatios(b.e.Ix, qs, plain, distinct, ptot, distinctRatioGoal); err != nil {
		return nil, err
	}
	lg.logf("   distinct: median %.1f us vs %.1f us (%.2fx), p99 %.1f us vs %.1f us (%.2fx); per search median %.2fx, p99 %.2fx, worst %.2fx (%s)",
		d.Distinct.MedianUs, d.Plain.MedianUs, d.Distinct.MedianUs/d.Plain.MedianUs, d.Distinct.P99Us, d.Plain.P99Us, d.Distinct.P99Us/d.Plain.P99Us,
		d.PerSearch.Median, d.PerSearch.P99, d.PerSearch.Max, d.PerSearch.Worst[0].Path)
	return d, nil
}

// distinctTargets are the goals on the distinct stage.
func distinctTargets(d *DistinctCosts) []Target {
	if d == nil {
		return nil
	}
	return []Target{
		atMost(fmt.Sprintf("distinct=true / the same search, median of the mix at %s", d.Label), "<= 1.5x", "x",
			d.Distinct.MedianUs/d.Plain.MedianUs, distinctRatioGoal),
		atMost(fmt.Sprintf("distinct=true / the same search, p99 of the mix at %s", d.Label), "<= 1.5x", "x",
			d.Distinct.P99Us/d.Plain.P99Us, distinctRatioGoal),
	}
}

// distinctSection: the cost of one result per group (issue #26).
func distinctSection(w *strings.Builder, d *DistinctCosts) {
	if d == nil {
		return
	}
	fmt.Fprintf(w, "\n## One result per group at %s (%d stations; issue #26)\n\n", d.Label, d.Stations)
	fmt.Fprintf(w, "The engine mix (%d queries) in process, each query as it is and with distinct=true, same run; %d of them "+
		"have duplicates to leave out. Median %.1f us without, %.1f us with (%.2fx %s); p99 %.1f us without, %.1f us with (%.2fx %s); goal <= 1.5x.\n\n",
		d.Plain.N, d.Fewer, d.Plain.MedianUs, d.Distinct.MedianUs, d.Distinct.MedianUs/d.Plain.MedianUs,
		verdict(d.Distinct.MedianUs/d.Plain.MedianUs <= distinctRatioGoal), d.Plain.P99Us, d.Distinct.P99Us,
		d.Distinct.P99Us/d.Plain.P99Us, verdict(d.Distinct.P99Us/d.Plain.P99Us <= distinctRatioGoal))
	ps := d.PerSearch
	if len(ps.Worst) == 0 {
		return
	}
	fmt.Fprintf(w, "Per search, distinct / plain, timed alternately as the facets are: median %.2fx, p90 %.2fx, p99 %.2fx, worst %.2fx; "+
		"%d above 1.5x. The worst:\n\n", ps.Median, ps.P90, ps.P99, ps.Max, ps.Over)
	w.WriteString("| search | class | total | us, every entry | us, distinct | ratio |\n|---|---|---:|---:|---:|---:|\n")
	for _, x := range ps.Worst[:min(8, len(ps.Worst))] {
		fmt.Fprintf(w, "| `%s` | %s | %d | %.1f | %.1f | %.2fx %s |\n", x.Path, x.Class, x.Total, x.PlainUs, x.FacetedUs, x.Ratio,
			verdict(x.Ratio <= distinctRatioGoal))
	}
}

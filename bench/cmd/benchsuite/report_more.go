package main

import (
	"fmt"
	"strings"

	"stationdex/bench/internal/mix"
)

// Goals of issues #10, #11, #24 and #43. The mixes' throughput goals
// are ratios to the same-size ceiling (mixThroughputGoal), their p99
// goals too (mixP99Goal): issue #43's, at 50k over HTTP, where it names
// one (the API's cold and hot mixes, the crawl, the search page cold);
// the search page hot has the hot mix's, the gzip mix its throughput
// goal of before and the API's p99.
const (
	coldThroughputGoal    = 0.75
	crawlThroughputGoal   = 0.7
	hotThroughputGoal     = 1.0
	gzipThroughputGoal    = 0.85
	searchPageColdGoal    = 0.5
	apiP99Goal            = 2.0
	searchPageColdP99Goal = 3.0
	classMedianGoalUs     = 100
	classP99GoalUs        = 1000
	allocsGoal            = 16
	allocsGrowthGoal      = 1.1 // "not growing": at most 10% more at the largest size
	facetsRatioGoal       = 3
	facetsP99GoalUs       = 2000
	suggestGoalUs         = 1000
	// Issue #24: a typo met for the first time, against an ordinary
	// one-word search, and its median at 50k and at 5M (sizes above a
	// million stations), its p99 at 50k.
	typoFirstRatioGoal    = 3
	typoFirstMedianGoalUs = 25
	typoFirst5MMedianUs   = 60
	typoFirstP99GoalUs    = 150
	broadestGoalUs        = 20000
)

func verdict(ok bool) string {
	if ok {
		return "**PASS**"
	}
	return "**MISS**"
}

// largestLabel names the largest size, flagging a run without 5M.
func largestLabel(sizes []Size) (Size, string) {
	l := sizes[len(sizes)-1]
	name := fmt.Sprintf("%s (%d stations)", l.Label, l.Stations)
	if l.Label != "5m" {
		name += "; 5M not measured in this run"
	}
	return l, name
}

// mixThroughputGoal is the throughput goal of a mix by its name: the
// hot mix with an Accept-Encoding compresses every answer, which the
// ceiling does not, so its goal is lower; the search page cold builds a
// page with its facets and groups for every request.
func mixThroughputGoal(name string) float64 {
	switch {
	case name == "cold":
		return coldThroughputGoal
	case name == "crawl":
		return crawlThroughputGoal
	case name == "search page cold":
		return searchPageColdGoal
	case strings.HasPrefix(name, "hot, Accept-Encoding"):
		return gzipThroughputGoal
	}
	return hotThroughputGoal
}

// cpuOverCeiling is the node's CPU per request and its ratio to the
// ceiling's, the same-size static server of the same run.
func cpuOverCeiling(m HTTPMix) string {
	if m.Ceiling.CPUUsPerReq <= 0 {
		return fmt.Sprintf("%.1f", m.Ours.CPUUsPerReq)
	}
	return fmt.Sprintf("%.1f (%.1fx %.1f)", m.Ours.CPUUsPerReq, m.Ours.CPUUsPerReq/m.Ceiling.CPUUsPerReq, m.Ceiling.CPUUsPerReq)
}

// mixP99Goal is the p99 goal of a mix by its name.
func mixP99Goal(name string) float64 {
	if name == "search page cold" {
		return searchPageColdP99Goal
	}
	return apiP99Goal
}

// mixTargets are the throughput and p99 goals of each HTTP mix.
func mixTargets(mixes []HTTPMix) []Target {
	var ts []Target
	for _, m := range mixes {
		goal := mixThroughputGoal(m.Name)
		tput := atLeast(fmt.Sprintf("HTTP %s mix throughput vs same-size ceiling", m.Name), fmt.Sprintf(">= %gx", goal), "x", m.ThroughputX, goal)
		tput.Measured += fmt.Sprintf(" (%.0f vs %.0f req/s)", m.Ours.RPS, m.Ceiling.RPS)
		p99Goal := mixP99Goal(m.Name)
		p99 := atMost(fmt.Sprintf("HTTP %s mix p99 vs same-size ceiling", m.Name), fmt.Sprintf("<= %gx", p99Goal), "x", m.P99X, p99Goal)
		p99.Measured += fmt.Sprintf(" (%.0f vs %.0f us)", m.Ours.P99Us, m.Ceiling.P99Us)
		ts = append(ts, tput, p99)
	}
	return ts
}

// moreTargets are the goals of issues #10, #11 and #24.
func moreTargets(res *Results) []Target {
	ts := mixTargets(res.Mixes)
	if len(res.Sizes) > 0 {
		l, at := largestLabel(res.Sizes)
		worstMed, worstMedC, worstP99, worstP99C := 0.0, "", 0.0, ""
		for _, c := range mix.Classes {
			cs, ok := l.Engine.Classes[c.Name]
			if !ok {
				continue
			}
			if cs.MedianUs > worstMed {
				worstMed, worstMedC = cs.MedianUs, c.Name
			}
			if cs.P99Us > worstP99 {
				worstP99, worstP99C = cs.P99Us, c.Name
			}
		}
		ts = append(ts, atMost(fmt.Sprintf("engine median of every class at %s (worst: %s)", at, worstMedC), "< 100 us", " us", worstMed, classMedianGoalUs))
		ts = append(ts, atMost(fmt.Sprintf("engine p99 of every class at %s (worst: %s)", at, worstP99C), "< 1000 us", " us", worstP99, classP99GoalUs))
		for _, z := range res.Sizes {
			ts = append(ts, atMost(fmt.Sprintf("allocations per search at %s (mix mean)", z.Label), "<= 16", "", z.Engine.AllocsPerOp, allocsGoal))
		}
		if b := res.Sizes[0]; len(res.Sizes) > 1 && b.Engine.AllocsPerOp > 0 {
			ts = append(ts, atMost(fmt.Sprintf("allocations per search growth %s -> %s", b.Label, l.Label), "<= 1.1x (not growing)", "x",
				l.Engine.AllocsPerOp/b.Engine.AllocsPerOp, allocsGrowthGoal))
		}
		for _, z := range res.Sizes {
			if c := z.Shape; c != nil {
				t := Target{Name: fmt.Sprintf("generated data %s keeps the snapshot's distributions (%d shares compared)", z.Label, len(c.Lines)),
					Goal: "0 out of tolerance", Value: float64(c.Failed), Held: c.Failed == 0,
					Measured: fmt.Sprintf("%d out (largest difference %.2f points)", c.Failed, c.MaxDiff), Margin: "held"}
				if !t.Held {
					t.Margin = fmt.Sprintf("missed: %d shares out of tolerance", c.Failed)
				}
				ts = append(ts, t)
			}
		}
		if l.Broadest.N > 0 {
			ts = append(ts, atMost(fmt.Sprintf("broadest all-facet search (no q, every station, three facets) at %s, median", at), "< 20 ms", " us", l.Broadest.MedianUs, broadestGoalUs))
		}
	}
	if d := res.Facets; d != nil {
		worst, worstC := 0.0, ""
		for _, c := range mix.Classes {
			if fc, ok := d.Classes[c.Name]; ok && fc.RatioMedian > worst {
				worst, worstC = fc.RatioMedian, c.Name
			}
		}
		ts = append(ts, atMost(fmt.Sprintf("all three facets / no facets, median per query class at %s (worst: %s)", d.Label, worstC), "<= 3x", "x", worst, facetsRatioGoal))
		if ps := d.PerSearch; len(ps.Worst) > 0 {
			ts = append(ts, atMost(fmt.Sprintf("all three facets / no facets, worst single search of the mix at %s, re-timed (%s)", d.Label, ps.Worst[0].Path),
				"<= 3x", "x", ps.Max, facetsRatioGoal))
		}
		ts = append(ts, atMost(fmt.Sprintf("p99 of the mix with all three facets at %s", d.Label), "< 2 ms", " us", d.Faceted.P99Us, facetsP99GoalUs))
		ts = append(ts, atMost(fmt.Sprintf("suggestions for zero-result typo searches at %s, median (%d typos)", d.Label, d.Typos), "< 1 ms", " us", d.Suggest.MedianUs, suggestGoalUs))
		ts = append(ts, typoFirstTargets(d)...)
	}
	return ts
}

// typoFirstTargets are issue #24's targets for a typo met for the first
// time: its median against an ordinary one-word search's, and its median
// and p99 in microseconds (above a million stations, the median alone,
// against the 5M goal).
func typoFirstTargets(d *FacetCosts) []Target {
	f := d.SuggestFirst
	if f.N == 0 {
		return nil
	}
	if d.Stations > 1_000_000 {
		return []Target{atMost(fmt.Sprintf("suggestions, each typo met for the first time, median at %s", d.Label), "< 60 us", " us", f.MedianUs, typoFirst5MMedianUs)}
	}
	ts := []Target{
		atMost(fmt.Sprintf("suggestions, each typo met for the first time, median at %s", d.Label), "< 25 us", " us", f.MedianUs, typoFirstMedianGoalUs),
		atMost(fmt.Sprintf("suggestions, each typo met for the first time, p99 at %s", d.Label), "< 150 us", " us", f.P99Us, typoFirstP99GoalUs),
	}
	if d.OneWord.N > 0 {
		ts = append(ts, atMost(fmt.Sprintf("typo met for the first time / one-word name search (%d), medians at %s", d.OneWord.N, d.Label),
			"<= 3x", "x", f.MedianUs/d.OneWord.MedianUs, typoFirstRatioGoal))
	}
	return ts
}

// mixesSection is the report's part on the generated HTTP mixes.
func mixesSection(w *strings.Builder, res *Results) {
	if len(res.Mixes) == 0 {
		return
	}
	w.WriteString("\n## HTTP: cold, crawl and hot mixes against a same-size ceiling (issues #10, #24)\n\n")
	fmt.Fprintf(w, "Generated at run time from the base set (`internal/traffic`, seed %d), "+
		"on a freshly started `stationdex serve` (the cold mix first, so nothing is cached before it, then the crawl, then the hot mixes). "+
		"Each mix has its own ceiling "+
		"(`cmd/ceiling`) answering a fixed body of the mix's median response size, loaded in the same run with the same wrk settings, "+
		"rounds alternating ceiling and stationdex. Cold: the probe searches (same generator, never part of the load) are checked "+
		"(200, same total as in process) and give the size; each round loads a slice of never-sent searches, every wrk thread walking "+
		"its part in order (`scripts/wrk-slice.lua`), for a duration sized from stationdex's rate on a one-second calibration slice after a one-second warm-up (again never-sent searches) so that no slice runs out. "+
		"Crawl: every page is first asked for on another node (200, and Markdown for a twin), which gives the size; then sliced like the cold mix. Hot: "+
		"every distinct search is checked first (which also warms any cache, as real traffic would), the size is the median over the "+
		"request sequence. With `Accept-Encoding`, the size is the median of the bytes sent as encoded (the ceiling sends them unencoded).\n\n", trafficSeed)
	fmt.Fprintf(w, "Run: `%s`; data: %s.\n\n", dash(res.Command), dataLine(res.Sizes))
	w.WriteString("| mix | distinct | s/round | body B | encodings seen | ceiling req/s | stationdex req/s | throughput ratio | ceiling p99 us | stationdex p99 us | p99 ratio | stationdex CPU us/req (over the ceiling's) | requests per distinct search sent |\n")
	w.WriteString("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, m := range res.Mixes {
		per := ""
		if m.SentPerSearch > 0 {
			per = fmt.Sprintf("%.2f (%d distinct sent, %d wraps)", m.SentPerSearch, m.DistinctSent, m.Wraps)
		}
		fmt.Fprintf(w, "| %s | %d | %.0f | %d | %s | %.0f | %.0f | %.2fx %s | %.0f | %.0f | %.2fx %s | %s | %s |\n", m.Name, m.Distinct, m.DurationSec,
			m.BodyBytes, m.Encodings, m.Ceiling.RPS, m.Ours.RPS, m.ThroughputX, verdict(m.ThroughputX >= mixThroughputGoal(m.Name)), m.Ceiling.P99Us, m.Ours.P99Us,
			m.P99X, verdict(m.P99X <= mixP99Goal(m.Name)), cpuOverCeiling(m), per)
	}
	if f := res.Floor; f != nil {
		fmt.Fprintf(w, "| %s | %d | %.0f | %d | %s | %.0f | %.0f | %.2fx (no target) | %.0f | %.0f | %.2fx | %.0f |  |\n", f.Name, f.Distinct, f.DurationSec,
			f.BodyBytes, f.Encodings, f.Ceiling.RPS, f.Ours.RPS, f.ThroughputX, f.Ceiling.P99Us, f.Ours.P99Us, f.P99X, f.Ours.CPUUsPerReq)
	}
	w.WriteString("\n")
	for _, m := range res.Mixes {
		fmt.Fprintf(w, "- %s: %s. Last stationdex round: `%s`.\n", m.Name, m.What, dash(m.Command))
	}
	if f := res.Floor; f != nil {
		fmt.Fprintf(w, "- %s: %s. A mix of small answers cannot come much above this ratio, whatever its answers cost: "+
			"the ceiling does none of this per request. Last stationdex round: `%s`.\n", f.Name, f.What, dash(f.Command))
	}
	fmt.Fprintf(w, "\nTargets: throughput ratio >= %g (cold), >= %g (crawl), >= %g (hot and the search page hot), >= %g (hot with gzip), "+
		">= %g (search page cold); p99 ratio <= %gx on the search page cold, <= %gx on each other. ",
		coldThroughputGoal, crawlThroughputGoal, hotThroughputGoal, gzipThroughputGoal, searchPageColdGoal, searchPageColdP99Goal, apiP99Goal)
	mixWarnings(w, res.Mixes, res.Mode)
	w.WriteString("\n")
	cpuSection(w, res)
	buildingProfiles(w, res.Mixes)
}

// mixWarnings says where a sliced mix was not what it claims: slices
// that ran out, or too few distinct searches sent.
func mixWarnings(w *strings.Builder, mixes []HTTPMix, mode string) {
	for _, m := range mixes {
		if m.SentPerSearch > 1.2 {
			fmt.Fprintf(w, "**The %s mix was sent %.2f times per path: its slices ran out, so part of it was not cold.** ", m.Name, m.SentPerSearch)
		}
		if m.Name == "cold" && mode == "full" && m.DistinctSent < 30_000 {
			fmt.Fprintf(w, "**Only %d distinct cold searches were sent (the issue asks for at least 30,000): stationdex was slower than the calibration said.** ", m.DistinctSent)
		}
	}
}

// buildingProfiles are the CPU profiles of the node under the last round
// of the mixes whose answers are built (cold, crawl), as pprof lists them;
// the others are in raw/.
func buildingProfiles(w *strings.Builder, mixes []HTTPMix) {
	for _, m := range mixes {
		if m.Profile != "" && (m.Name == "cold" || m.Name == "crawl") {
			fmt.Fprintf(w, "\nCPU profile of `stationdex serve` during the last %s round (through the admin listener's /debug/pprof; "+
				"wrk shares the 2 cores; by cumulative time):\n\n```\n%s```\n", m.Name, m.Profile)
		}
	}
}

// scaleSection: every class at every size against the issue #10 goals.
func scaleSection(w *strings.Builder, sizes []Size) {
	if len(sizes) == 0 {
		return
	}
	w.WriteString("\n## Engine at scale, per class (issue #10)\n\n")
	w.WriteString("Median and p99 of per-query engine times in us (goals < 100 us and < 1 ms, judged at the largest size), and heap " +
		"allocations per search (goal <= 16 at every size, not growing).\n\n| class |")
	for _, z := range sizes {
		fmt.Fprintf(w, " %s median | %s p99 | %s allocs |", z.Label, z.Label, z.Label)
	}
	w.WriteString("\n|---|" + strings.Repeat("---:|---:|---:|", len(sizes)) + "\n")
	last := len(sizes) - 1
	for _, c := range mix.Classes {
		fmt.Fprintf(w, "| %s |", c.Name)
		for i, z := range sizes {
			cs := z.Engine.Classes[c.Name]
			if i == last {
				fmt.Fprintf(w, " %.1f %s | %.0f %s | %.1f %s |", cs.MedianUs, verdict(cs.MedianUs < classMedianGoalUs), cs.P99Us,
					verdict(cs.P99Us < classP99GoalUs), cs.AllocsPerOp, verdict(cs.AllocsPerOp <= allocsGoal))
			} else {
				fmt.Fprintf(w, " %.1f | %.0f | %.1f %s |", cs.MedianUs, cs.P99Us, cs.AllocsPerOp, verdict(cs.AllocsPerOp <= allocsGoal))
			}
		}
		w.WriteString("\n")
	}
	w.WriteString("\nBroadest all-facet search (no q, no filter, facets=country,language,genre, limit 20), median of 7 runs after a warm-up:")
	for _, z := range sizes {
		if z.Broadest.N > 0 {
			fmt.Fprintf(w, " %s %.0f us (max %.0f);", z.Label, z.Broadest.MedianUs, z.Broadest.P99Us)
		}
	}
	w.WriteString(" goal < 20 ms at 5M.\n")
	shapeSection(w, sizes)
}

func shapeSection(w *strings.Builder, sizes []Size) {
	for _, z := range sizes {
		c := z.Shape
		if c == nil {
			continue
		}
		fmt.Fprintf(w, "\nGenerated data %s against the real snapshot (%d generated stations compared; share of stations in %%, tolerance in points): ",
			z.Label, c.Compared)
		var parts []string
		for _, l := range c.Lines {
			mark := ""
			if !l.OK {
				mark = " **MISS**"
			}
			parts = append(parts, fmt.Sprintf("%s %.2f/%.2f%s", l.What, l.Real, l.Generated, mark))
		}
		w.WriteString(strings.Join(parts, "; ") + ".\n")
	}
}

// facetSection: facets and suggestions (issue #11).
func facetSection(w *strings.Builder, d *FacetCosts) {
	if d == nil {
		return
	}
	fmt.Fprintf(w, "\n## Facets and suggestions at %s (%d stations; issue #11)\n\n", d.Label, d.Stations)
	fmt.Fprintf(w, "The engine mix (%d queries) in process, each query without facets and with facets=country,language,genre "+
		"(facet_limit 10), same run, each timed as the engine stage does. Over the mix: median %.1f us without, %.1f us with (%.2fx); "+
		"p99 with facets %.0f us %s (goal < 2 ms).\n\n", d.Plain.N, d.Plain.MedianUs, d.Faceted.MedianUs, d.Faceted.MedianUs/d.Plain.MedianUs,
		d.Faceted.P99Us, verdict(d.Faceted.P99Us < facetsP99GoalUs))
	fmt.Fprintf(w, "Per class, the medians are of each search's times taken alternately (the per-search measurement below: "+
		"%d windows of %s per side, fastest kept); the p99 is of the single windows above.\n\n", pairRounds, pairBudget)
	w.WriteString("| class | queries | median us, no facets | median us, three facets | ratio (goal <= 3x) | p99 us, three facets |\n|---|---:|---:|---:|---:|---:|\n")
	for _, c := range mix.Classes {
		fc, ok := d.Classes[c.Name]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "| %s | %d | %.1f | %.1f | %.2fx %s | %.0f |\n", c.Name, fc.N, fc.PlainMedianUs, fc.FacetMedianUs, fc.RatioMedian,
			verdict(fc.RatioMedian <= facetsRatioGoal), fc.FacetP99Us)
	}
	if ps := d.PerSearch; len(ps.Worst) > 0 {
		fmt.Fprintf(w, "\nPer search, faceted / plain over the %d searches of the mix, each timed plain and faceted alternately "+
			"(%d windows of %s per side, fastest kept; the %d worst again with %d windows of %s after a collection each): "+
			"median %.2fx, p90 %.2fx, p99 %.2fx, worst %.2fx; %d above 3x. The worst:\n\n",
			d.Plain.N, pairRounds, pairBudget, retimeN, retimeRounds, retimeBudget, ps.Median, ps.P90, ps.P99, ps.Max, ps.Over)
		w.WriteString("| search | class | total | us, no facets | us, three facets | ratio |\n|---|---|---:|---:|---:|---:|\n")
		for _, x := range ps.Worst[:min(8, len(ps.Worst))] {
			fmt.Fprintf(w, "| `%s` | %s | %d | %.1f | %.1f | %.2fx %s |\n", x.Path, x.Class, x.Total, x.PlainUs, x.FacetedUs, x.Ratio, verdict(x.Ratio <= facetsRatioGoal))
		}
	}
	fmt.Fprintf(w, "\nSuggestions: %d zero-result searches made from real name words by one or two edits (a third with a second, "+
		"correct word; each checked to find nothing), searched with suggestions asked for, as the API does. Each timed once first, "+
		"before any other search asks for suggestions, so that none of its words' close words is in the engine's cache of recent "+
		"query words (a typo met for the first time, as cold traffic meets it): median %.1f us, p90 %.1f us, p99 %.1f us. "+
		"Then timed as the engine stage times a search, the cache answering after the first run (a typo met again): median %.1f us %s "+
		"(goal < 1 ms), p90 %.1f us, p99 %.1f us. The yardstick for the first: the mix's %d one-word name searches "+
		"(no filter, first page), as the per-search comparison above times them: median %.1f us. "+
		"%d of %d typos got at least one suggestion. Examples: %s.\n",
		d.Typos, d.SuggestFirst.MedianUs, d.SuggestFirst.P90Us, d.SuggestFirst.P99Us,
		d.Suggest.MedianUs, verdict(d.Suggest.MedianUs < suggestGoalUs), d.Suggest.P90Us, d.Suggest.P99Us,
		d.OneWord.N, d.OneWord.MedianUs, d.WithSuggestion, d.Typos, strings.Join(d.TypoExamples, ", "))
}

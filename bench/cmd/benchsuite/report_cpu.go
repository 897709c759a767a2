package main

import (
	"fmt"
	"strings"
)

// cpuSection is where each mix's CPU went, and what a missed throughput
// target would take in CPU per request.
func cpuSection(w *strings.Builder, res *Results) {
	mixes := profiledMixes(res)
	if len(mixes) == 0 {
		return
	}
	w.WriteString("\n### Where the CPU goes, and what the targets would take\n\n")
	w.WriteString("CPU time per request of each process in the stationdex and ceiling rounds (from /proc and wrk's own rusage), and " +
		"stationdex's split by a CPU profile of its last round (`cpuparts.go`: each sample goes to the first part one of its " +
		"stack's functions belongs to, in the columns' order: allocation and GC wherever they happen, then the kernel's socket " +
		"calls, the index (searches, record reads, the JSON), pages, compression, the node's own per-request code (routing, " +
		"limits, cache, headers, metrics), and the rest, net/http and the scheduler). Cells are us per request (share of the profile).\n\n")
	names := cpuPartNames()
	w.WriteString("| mix | ceiling us/req | wrk us/req (ceiling, stationdex rounds) | stationdex us/req |")
	for _, n := range names {
		fmt.Fprintf(w, " %s |", n)
	}
	w.WriteString("\n|---|---:|---:|---:|" + strings.Repeat("---:|", len(names)) + "\n")
	for _, m := range mixes {
		fmt.Fprintf(w, "| %s | %.1f | %.1f, %.1f | %.1f |", m.Name, m.Ceiling.CPUUsPerReq, m.Ceiling.WrkCPUUsPerReq,
			m.Ours.WrkCPUUsPerReq, m.Ours.CPUUsPerReq)
		for _, p := range m.Parts {
			fmt.Fprintf(w, " %.1f (%.0f%%) |", p.Share*m.Ours.CPUUsPerReq, 100*p.Share)
		}
		w.WriteString("\n")
	}
	budgets(w, res.Mixes, res.Floor)
	tails(w, mixes)
}

// tails sets wrk's p99 of the last rounds beside the node's own, from its
// request-duration histogram (the bound of the bucket that holds it).
func tails(w *strings.Builder, mixes []*HTTPMix) {
	w.WriteString("\nThe p99 as wrk saw it (send to last byte read, mean of the rounds) and as the node's own request-duration " +
		"histogram saw its last round (routing to the last byte handed to the kernel; the upper bound of the bucket holding the " +
		"99th percentile). Where the node's is far below wrk's, the tail was spent waiting for a core, wrk and the node sharing two, " +
		"not in the handlers.\n\n| mix | ceiling p99 us (wrk) | stationdex p99 us (wrk) | stationdex p99 us (its histogram), at most |\n|---|---:|---:|---:|\n")
	for _, m := range mixes {
		own := "-"
		if m.NodeP99Us > 0 {
			own = fmt.Sprintf("%.0f", m.NodeP99Us)
		}
		fmt.Fprintf(w, "| %s | %.0f | %.0f | %s |\n", m.Name, m.Ceiling.P99Us, m.Ours.P99Us, own)
	}
}

// profiledMixes are the mixes, then the floor, that have a CPU split.
func profiledMixes(res *Results) []*HTTPMix {
	var ms []*HTTPMix
	for i := range res.Mixes {
		if len(res.Mixes[i].Parts) > 0 {
			ms = append(ms, &res.Mixes[i])
		}
	}
	if f := res.Floor; f != nil && len(f.Parts) > 0 {
		ms = append(ms, f)
	}
	return ms
}

// budgets says, for each missed throughput target, the CPU per request
// stationdex would have to come down to. With both cores busy, a round's
// rate is about the inverse of the CPU that one request costs the server
// and the load generator together, so the ceiling's sum over stationdex's
// predicts the ratio, and the sum the goal allows, less wrk's own part,
// is stationdex's budget. wrk's part is not fixed: it spends more per
// request on a slower server (fewer responses ready per wake-up), so the
// budget is given at both of its measured costs, stationdex's rounds'
// (what the node has now) and the ceiling's (what it would have if it
// were nearly as fast), and the floor is held against the larger.
func budgets(w *strings.Builder, mixes []HTTPMix, floor *HTTPMix) {
	w.WriteString("\nWith both cores busy, a round's rate is about 2 cores over the CPU one request costs server and wrk together, " +
		"so the ceiling's sum over stationdex's predicts the ratio; the sum the goal allows, less wrk's part, is what stationdex " +
		"may spend per request. wrk spends more per request on a slower server, so the budget is given with wrk's cost in " +
		"stationdex's rounds and, in brackets, in the ceiling's (what it would be were the node nearly as fast):\n\n")
	var floorUs float64
	if floor != nil {
		floorUs = floor.Ours.CPUUsPerReq
	}
	for _, m := range mixes {
		goal := mixThroughputGoal(m.Name)
		ceil := m.Ceiling.CPUUsPerReq + m.Ceiling.WrkCPUUsPerReq
		ours := m.Ours.CPUUsPerReq + m.Ours.WrkCPUUsPerReq
		if ours == 0 || ceil == 0 {
			continue
		}
		budget := ceil/goal - m.Ours.WrkCPUUsPerReq
		best := max(budget, ceil/goal-m.Ceiling.WrkCPUUsPerReq)
		fmt.Fprintf(w, "- %s: measured %.2fx, predicted %.2fx (%.1f / %.1f us); %gx allows stationdex %.1f us per request (%.1f), it spends %.1f",
			m.Name, m.ThroughputX, ceil/ours, ceil, ours, goal, budget, best, m.Ours.CPUUsPerReq)
		spends := m.Ours.CPUUsPerReq
		switch {
		case m.ThroughputX >= goal:
			w.WriteString(": held.\n")
		case spends <= budget:
			w.WriteString(": within it, so the miss is this estimate's error (the machine's other work, idle moments).\n")
		case spends <= best:
			fmt.Fprintf(w, ": %.1f us over it, within it at wrk's cost in the ceiling's rounds, so the miss is the share of the cores wrk takes "+
				"from a slower server, and this estimate's error.\n", spends-budget)
		case floorUs > 0 && best < floorUs:
			fmt.Fprintf(w, ", and the floor alone (a static file from memory) %.1f: below the floor, out of reach of the answers' own cost.\n", floorUs)
		case floorUs > 0:
			fmt.Fprintf(w, ": %.1f us to take out (%.1f with wrk at the ceiling's cost) of the %.1f above the floor (%.1f, a static file from memory), "+
				"so the answers' own work beyond the floor may cost %.1f us at most.\n",
				spends-budget, spends-best, spends-floorUs, floorUs, best-floorUs)
		default:
			fmt.Fprintf(w, ": %.1f us to take out (%.1f with wrk at the ceiling's cost).\n", spends-budget, spends-best)
		}
	}
}

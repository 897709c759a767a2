package main

import (
	"fmt"
	"os"
	"strings"

	pprofile "github.com/google/pprof/profile"
)

// Where the node's CPU goes under a mix. A CPU profile of the node's last
// round is split into parts by the call stack of each sample, so that a
// missed ratio comes with the cost behind it: what the kernel's socket
// calls take (the ceiling pays them too), what net/http and the runtime
// take, what the node adds per request, and what its answers cost to
// build. The parts are tried in order and a sample goes to the first whose
// test holds for any function on its stack (inlined ones included); what
// no test claims is net/http and the runtime's scheduling.

// CPUPart is one part of the node's CPU in a mix's profile.
type CPUPart struct {
	Part  string  `json:"part"`
	Share float64 `json:"share"` // of the profile's CPU time
}

type cpuPartRule struct {
	name  string
	match func(fn string) bool
}

// restPart is the part of samples no rule claims.
const restPart = "net/http, scheduling"

var cpuPartRules = []cpuPartRule{
	// Allocation first: a page that allocates is charged its GC here, not
	// in "pages", so that the allocation cost of every part shows at once.
	{"allocation, GC", func(fn string) bool {
		switch fn {
		case "runtime.mallocgc", "runtime.gcBgMarkWorker", "runtime.bgsweep", "runtime.bgscavenge", "runtime.gcAssistAlloc":
			return true
		}
		return false
	}},
	{"kernel calls", func(fn string) bool {
		return strings.HasPrefix(fn, "syscall.") || strings.HasPrefix(fn, "internal/runtime/syscall") || fn == "runtime.netpoll"
	}},
	{"index, search, JSON", func(fn string) bool {
		return strings.HasPrefix(fn, "stationdex/query") || strings.HasPrefix(fn, "stationdex/indexer") ||
			strings.HasPrefix(fn, "go.etcd.io/bbolt") || strings.HasPrefix(fn, "github.com/RoaringBitmap")
	}},
	// The pages' room (server/pages): its models and writers, the search
	// page's included (its search is the index's, above).
	{"pages", func(fn string) bool { return strings.HasPrefix(fn, "stationdex/server/pages.") }},
	{"compression", func(fn string) bool {
		return strings.HasPrefix(fn, "github.com/klauspost/compress") || strings.HasPrefix(fn, "compress/")
	}},
	{"node per request", func(fn string) bool {
		return strings.HasPrefix(fn, "stationdex/") || strings.HasPrefix(fn, "github.com/julienschmidt/") ||
			strings.HasPrefix(fn, "github.com/prometheus/")
	}},
}

// cpuPartNames are the parts in report order.
func cpuPartNames() []string {
	names := make([]string, 0, len(cpuPartRules)+1)
	for _, r := range cpuPartRules {
		names = append(names, r.name)
	}
	return append(names, restPart)
}

// readCPUParts splits the CPU profile in path into parts.
func readCPUParts(path string) ([]CPUPart, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := pprofile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cpuParts(p)
}

// cpuParts splits p's CPU time (its "cpu" sample value) into parts, every
// part named, in report order.
func cpuParts(p *pprofile.Profile) ([]CPUPart, error) {
	vi := -1
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			vi = i
		}
	}
	if vi < 0 {
		return nil, fmt.Errorf("not a CPU profile: no cpu sample type")
	}
	names := cpuPartNames()
	sums := make([]int64, len(names))
	var total int64
	for _, s := range p.Sample {
		v := s.Value[vi]
		sums[partOf(s)] += v
		total += v
	}
	if total == 0 {
		return nil, fmt.Errorf("the CPU profile has no samples")
	}
	parts := make([]CPUPart, len(names))
	for i, n := range names {
		parts[i] = CPUPart{Part: n, Share: float64(sums[i]) / float64(total)}
	}
	return parts, nil
}

// partOf is the index of the first rule that claims a function on s's
// stack, or of restPart.
func partOf(s *pprofile.Sample) int {
	for i, r := range cpuPartRules {
		for _, loc := range s.Location {
			for _, l := range loc.Line {
				if l.Function != nil && r.match(l.Function.Name) {
					return i
				}
			}
		}
	}
	return len(cpuPartRules)
}

// slug is name made fit for a file name: letters and digits kept, any
// run of other bytes one dash.
func slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

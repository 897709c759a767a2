package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// resources is one sample of what must stay flat.
type resources struct {
	heapLive   float64 // go_memstats_heap_alloc_bytes right after a GC
	rssAnon    float64 // RssAnon of /proc/PID/status: heap, stacks, runtime
	rss        float64 // process_resident_memory_bytes, index pages included
	goroutines float64 // go_goroutines
	fds        float64 // process_open_fds
	cacheBytes float64 // stationdex_response_cache_bytes
	cacheMax   float64 // stationdex_response_cache_max_bytes
	evictions  float64 // stationdex_response_cache_evictions_total
	misses     float64 // stationdex_response_cache_misses_total
}

var adminClient = &http.Client{Timeout: 30 * time.Second}

// sample forces a garbage collection in the node, so that the heap
// compared is the live one, then reads its metrics and /proc.
func (n *node) sample() (resources, error) {
	if _, err := fetch("http://" + n.admin + "/debug/pprof/heap?gc=1"); err != nil {
		return resources{}, err
	}
	text, err := fetch("http://" + n.admin + "/metrics")
	if err != nil {
		return resources{}, err
	}
	m := parseMetrics(text)
	r := resources{
		heapLive: m["go_memstats_heap_alloc_bytes"], rss: m["process_resident_memory_bytes"],
		goroutines: m["go_goroutines"], fds: m["process_open_fds"],
		cacheBytes: m["stationdex_response_cache_bytes"], cacheMax: m["stationdex_response_cache_max_bytes"],
		evictions: m["stationdex_response_cache_evictions_total"], misses: m["stationdex_response_cache_misses_total"],
	}
	for _, name := range []string{"go_memstats_heap_alloc_bytes", "process_resident_memory_bytes", "go_goroutines", "process_open_fds",
		"stationdex_response_cache_bytes", "stationdex_response_cache_max_bytes"} {
		if _, ok := m[name]; !ok {
			return r, fmt.Errorf("the node's /metrics has no %s", name)
		}
	}
	r.rssAnon, err = rssAnon(n.pid())
	return r, err
}

func fetch(url string) (string, error) {
	resp, err := adminClient.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return string(body), err
}

// parseMetrics reads the unlabelled series of a Prometheus text
// exposition: all a sample needs.
func parseMetrics(text string) map[string]float64 {
	m := map[string]float64{}
	for line := range strings.SplitSeq(text, "\n") {
		name, value, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(line, "#") || strings.Contains(name, "{") {
			continue
		}
		if v, err := strconv.ParseFloat(strings.Fields(value)[0], 64); err == nil {
			m[name] = v
		}
	}
	return m
}

// rssAnon is the anonymous resident memory of a process, in bytes.
func rssAnon(pid int) (float64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "RssAnon:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no RssAnon in /proc/%d/status", pid)
}

// report prints before and after with each bound, and whether all held.
// The heap and anonymous RSS may grow by what the response cache had left
// to fill before its bound at the first sample ("within the cache bound"):
// a cache still filling is not a leak, a heap growing past it is.
func report(c config, before, after resources) bool {
	cacheRoom := max(before.cacheMax-before.cacheBytes, 0)
	fmt.Printf("\n%-12s %14s %14s %10s  %s\n", "", "before", "after", "growth", "bound")
	held := true
	for _, row := range []struct {
		name                  string
		before, after, growth float64 // growth: relative allowance
		slack                 float64
		bytes, judged         bool
	}{
		{"heap (live)", before.heapLive, after.heapLive, c.heapGrowth, c.heapSlack + cacheRoom, true, true},
		{"rss (anon)", before.rssAnon, after.rssAnon, c.rssGrowth, c.rssSlack + cacheRoom, true, true},
		{"rss (all)", before.rss, after.rss, 0, 0, true, false},
		{"goroutines", before.goroutines, after.goroutines, 0, c.goroutineSlack, false, true},
		{"open fds", before.fds, after.fds, 0, c.fdSlack, false, true},
		{"cache", before.cacheBytes, after.cacheBytes, 0, after.cacheMax - before.cacheBytes, true, true},
	} {
		limit := row.before*(1+row.growth) + row.slack
		verdict := "report only (mapped index pages are cache)"
		if row.judged {
			verdict = fmt.Sprintf("<= %s", show(limit, row.bytes))
			if row.after > limit {
				verdict += "  EXCEEDED"
				held = false
			}
		}
		fmt.Printf("%-12s %14s %14s %+9.1f%%  %s\n", row.name, show(row.before, row.bytes), show(row.after, row.bytes),
			100*(row.after-row.before)/max(row.before, 1), verdict)
	}
	return held && cacheExercised(c, before, after)
}

// cacheExercised: under cold traffic with a cache, the load must have
// missed and evicted, or the run did not test the bound at all.
func cacheExercised(c config, before, after resources) bool {
	misses, evictions := after.misses-before.misses, after.evictions-before.evictions
	fmt.Printf("response cache during the load: %.0f misses, %.0f evictions, %s of %s held at the end\n",
		misses, evictions, show(after.cacheBytes, true), show(after.cacheMax, true))
	if c.traffic != trafficCold || after.cacheMax == 0 {
		return true
	}
	if misses == 0 || evictions == 0 {
		fmt.Println("the cold load did not fill the response cache to its bound: raise -rate or -duration, or lower -cache-bytes")
		return false
	}
	return true
}

func show(v float64, bytes bool) string {
	if bytes {
		return fmt.Sprintf("%.1f MiB", v/(1<<20))
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

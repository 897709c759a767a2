package deploy

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"stationdex/indexer/realdata"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"stationdex/internal/format"
	"stationdex/metrics"
	"stationdex/server/follow"
)

const dashboardPath = "grafana/stationdex.json"

// grafanaVars stands in for the dashboard's variables and Grafana's
// built-in ones, so that each expression is plain PromQL.
var grafanaVars = strings.NewReplacer(
	"$__rate_interval", "1m",
	"$__interval", "1m",
	"$__range", "1h",
	"$job", "stationdex",
	"$instance", ".*",
)

// TestDashboardPromQL hands every expression of the dashboard to
// `promtool check rules` as a recording rule, so a typo in a panel fails
// here instead of showing "no data" in Grafana. Without promtool it skips,
// except under CI=true.
func TestDashboardPromQL(t *testing.T) {
	promtool := toolOrSkip(t, "promtool")
	exprs := dashboardExprs(t)
	if len(exprs) < 20 {
		t.Fatalf("found %d expressions in %s; the walk is broken", len(exprs), dashboardPath)
	}
	path := filepath.Join(t.TempDir(), "dashboard-rules.yml")
	writeRules(t, path, exprs)
	out, err := exec.Command(promtool, "check", "rules", path).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool check rules on the dashboard's %d expressions: %v\n%s", len(exprs), err, out)
	}
}

// TestQueriedMetricsExist checks that every metric the dashboard and the
// rules query is one the node exposes, so that renaming a metric breaks a
// test, not a dashboard.
func TestQueriedMetricsExist(t *testing.T) {
	exposed := exposedNames(t)
	rules, err := os.ReadFile("prometheus/rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string]string{
		dashboardPath:          strings.Join(dashboardExprs(t), "\n"),
		"prometheus/rules.yml": string(rules),
	}
	for file, text := range sources {
		names := metricNames(text)
		if len(names) == 0 {
			t.Fatalf("%s: no metric names found", file)
		}
		for _, n := range names {
			if !exposed[n] {
				t.Errorf("%s queries %s, which the node does not expose", file, n)
			}
		}
	}
}

func toolOrSkip(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	realdata.Missing(t, "%s (Debian's prometheus package): %v", name, err)
	return ""
}

// dashboardExprs returns every "expr" of the dashboard (panel targets and
// annotations), with the Grafana variables replaced.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", dashboardPath, err)
	}
	var exprs []string
	walkExprs(doc, func(e string) { exprs = append(exprs, grafanaVars.Replace(e)) })
	return exprs
}

func walkExprs(v any, fn func(string)) {
	switch v := v.(type) {
	case map[string]any:
		if e, ok := v["expr"].(string); ok {
			fn(e)
		}
		for _, c := range v {
			walkExprs(c, fn)
		}
	case []any:
		for _, c := range v {
			walkExprs(c, fn)
		}
	}
}

// writeRules writes exprs as recording rules. JSON is YAML, so no YAML
// library is needed.
func writeRules(t *testing.T, path string, exprs []string) {
	t.Helper()
	type rule struct {
		Record string `json:"record"`
		Expr   string `json:"expr"`
	}
	rules := make([]rule, len(exprs))
	for i, e := range exprs {
		rules[i] = rule{Record: "dashboard:expr", Expr: e}
	}
	doc := map[string]any{"groups": []any{map[string]any{"name": "dashboard", "rules": rules}}}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// metricRef finds metric names: our own, the runtime and process ones, and
// up. A name directly after or before ':' is part of a recording rule's
// name and is skipped.
var metricRef = regexp.MustCompile(`(^|[^\w:])((?:stationdex|process|go)_\w+|up)\b(:?)`)

func metricNames(text string) []string {
	var names []string
	for _, m := range metricRef.FindAllStringSubmatch(text, -1) {
		if m[3] == ":" {
			continue
		}
		names = append(names, strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m[2], "_bucket"), "_count"), "_sum"))
	}
	return names
}

// exposedNames gathers the names a node exposes, with every labelled series
// touched once so that it exists; up is Prometheus's own.
func exposedNames(t *testing.T) map[string]bool {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.Request("/api/stations", "GET", 200, time.Millisecond)
	m.Search(time.Microsecond, time.Microsecond, 0)
	m.Shed()
	m.SetInFlightLimit(1)
	m.SetIndex(format.Meta{SnapshotAt: time.Now(), Stations: 1})
	if _, err := metrics.NewFollow(reg, time.Hour, follow.Results); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{"up": true}
	for _, f := range families {
		names[f.GetName()] = true
	}
	return names
}

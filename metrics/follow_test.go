package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestFollowSeries: every result's series exists before the first check;
// the last result is the only one at 1; failures in a row and the last
// success follow the calls; a second registration is an error.
func TestFollowSeries(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	f, err := NewFollow(reg, 10*time.Minute, []string{"swapped", "unchanged", "timeout"})
	if err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(f.attempts); n != 3 {
		t.Fatalf("%d attempt series before any check, want one per result", n)
	}
	f.Attempted("timeout", 1, false)
	f.Attempted("timeout", 2, false)
	want := `
# HELP stationdex_follow_consecutive_failures Checks of the source that failed in a row since the last one that did not.
# TYPE stationdex_follow_consecutive_failures gauge
stationdex_follow_consecutive_failures 2
# HELP stationdex_follow_last_result 1 for the result of the last check of the source, 0 for the others.
# TYPE stationdex_follow_last_result gauge
stationdex_follow_last_result{result="swapped"} 0
stationdex_follow_last_result{result="timeout"} 1
stationdex_follow_last_result{result="unchanged"} 0
# HELP stationdex_follow_period_seconds How often the source is checked (-every); alerts compare the snapshot's age with it.
# TYPE stationdex_follow_period_seconds gauge
stationdex_follow_period_seconds 600
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"stationdex_follow_consecutive_failures", "stationdex_follow_last_result", "stationdex_follow_period_seconds"); err != nil {
		t.Error(err)
	}
	if v := testutil.ToFloat64(f.lastSuccess); v != 0 {
		t.Errorf("last success %v before any success, want 0", v)
	}
	f.Attempted("swapped", 0, true)
	f.Downloaded(time.Second)
	f.Built(2 * time.Second)
	if v := testutil.ToFloat64(f.attempts.WithLabelValues("timeout")); v != 2 {
		t.Errorf("timeout attempts %v, want 2", v)
	}
	if v := testutil.ToFloat64(f.failures); v != 0 {
		t.Errorf("failures in a row %v after a success, want 0", v)
	}
	if v := testutil.ToFloat64(f.lastSuccess); v < float64(time.Now().Add(-time.Hour).Unix()) {
		t.Errorf("last success %v, want now", v)
	}
	if n := testutil.CollectAndCount(f.download); n != 1 {
		t.Errorf("download histogram: %d series", n)
	}
	if _, err := NewFollow(reg, time.Minute, nil); err == nil {
		t.Error("a second NewFollow on the same registry: want an error")
	}
}

package follow

import (
	"testing"
	"time"
)

// TestBackoff: after a failure the next check comes after RetryMin,
// doubling with each failure in a row, never later than the period, and
// never more than a fifth earlier (the jitter).
func TestBackoff(t *testing.T) {
	f := &Follower{cfg: Config{RetryMin: 10 * time.Second, Every: time.Hour}}
	for failures, want := range map[int]time.Duration{
		1: 10 * time.Second, 2: 20 * time.Second, 3: 40 * time.Second, 6: 320 * time.Second,
		9: 2560 * time.Second, 10: time.Hour, 50: time.Hour,
	} {
		f.failures = failures
		for range 20 {
			if got := f.backoff(); got > want || got < want-want/5 {
				t.Errorf("after %d failures: %v, want within [%v, %v]", failures, got, want-want/5, want)
			}
		}
	}
}

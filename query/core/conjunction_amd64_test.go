//go:build !purego

package core

import (
	"testing"

	"stationdex/query/rawroaring"
)

// TestConjunctionWithoutKernels runs the conjunction and plain-path checks
// with the array kernels switched off, as on a CPU without SSE4.2: the
// fallback (merge, galloping, seeding) must give the same answers.
func TestConjunctionWithoutKernels(t *testing.T) {
	if !rawroaring.BlockKernels {
		t.Log("this CPU has no SSE4.2: every other test already runs the fallback")
	}
	defer func(was bool) { rawroaring.BlockKernels = was }(rawroaring.BlockKernels)
	rawroaring.BlockKernels = false
	t.Run("conjunction", TestConjunctionMatchesRoaring)
	t.Run("plain", TestPlainMatchesBitmapPathAcrossKeys)
}

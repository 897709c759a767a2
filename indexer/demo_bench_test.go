package indexer_test

import (
	"context"
	"testing"

	"stationdex/indexer"
)

// BenchmarkDemoBuild builds the embedded demo snapshot: the fixed cost of a
// build (the file, its buckets, the dumps) with no real data needed, for
// make bench-compare. BenchmarkBuildRealSnapshot measures a build at scale.
func BenchmarkDemoBuild(b *testing.B) {
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := indexer.BuildDemo(context.Background(), dir); err != nil {
			b.Fatal(err)
		}
	}
}

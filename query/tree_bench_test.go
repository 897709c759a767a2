package query

import (
	"testing"

	"stationdex/indexer/format"
)

// BenchmarkTreeSeek seeks a sample of the all-field tokens of the real
// snapshot through the page tree: the lookup every word of a search costs.
func BenchmarkTreeSeek(b *testing.B) {
	ix, _ := realIndex(b)
	root := ix.tree.roots[string(format.BucketAllTokens)]
	c := treeCursor{t: ix.tree, root: root}
	var keys [][]byte
	i := 0
	for k, _ := c.Seek(nil); k != nil; k, _ = c.Next() {
		if i%101 == 0 {
			keys = append(keys, append([]byte(nil), k...))
		}
		i++
	}
	b.ResetTimer()
	n := 0
	for b.Loop() {
		if k, _ := c.Seek(keys[n%len(keys)]); k == nil {
			b.Fatal("key not found")
		}
		n++
	}
}

package format

import (
	"bytes"
	"slices"
)

// The buckets of the dimension table. A row of package dim names the
// buckets it files records under and the one holding its labels; dim
// imports this package, so this one cannot read the rows, and dim
// declares their buckets here once, as it is initialised. Every program
// that writes, opens or checks a file reads the rows (the indexer files
// by them, the engine filters and counts by them), so the lists it reads
// are whole; a new dimension's bucket is declared by its row alone.

// DimensionBucket is a bucket of a row of the dimension table.
type DimensionBucket struct {
	Name []byte
	// Posting: every value is a serialised bitmap (a filing's bucket);
	// else it holds a row's labels.
	Posting bool
	// Counted: listed_groups counts its keys (a facet's or the
	// directory's bucket).
	Counted bool
}

// dimensionsDeclared: DeclareDimensionBuckets ran.
var dimensionsDeclared bool

// DeclareDimensionBuckets adds the buckets of the dimension table, in
// the table's order, to AllBuckets and (its posting buckets) to
// PostingBuckets, both after all_prefix, and makes GroupCountedBuckets its
// counted buckets. Package dim calls it once; a second call panics.
func DeclareDimensionBuckets(bs []DimensionBucket) {
	if dimensionsDeclared {
		panic("format: the dimension table's buckets declared twice")
	}
	dimensionsDeclared = true
	var all, postings, counted [][]byte
	for _, b := range bs {
		if slices.ContainsFunc(all, func(n []byte) bool { return bytes.Equal(n, b.Name) }) {
			continue
		}
		all = append(all, b.Name)
		if b.Posting {
			postings = append(postings, b.Name)
		}
		if b.Counted {
			counted = append(counted, b.Name)
		}
	}
	AllBuckets = insertAfter(AllBuckets, BucketAllPrefix, all)
	PostingBuckets = insertAfter(PostingBuckets, BucketAllPrefix, postings)
	slices.SortFunc(counted, bytes.Compare)
	GroupCountedBuckets = counted
}

// insertAfter is list with more after its bucket name.
func insertAfter(list [][]byte, name []byte, more [][]byte) [][]byte {
	i := slices.IndexFunc(list, func(n []byte) bool { return bytes.Equal(n, name) })
	return slices.Insert(slices.Clone(list), i+1, more...)
}

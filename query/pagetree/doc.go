// Package pagetree verifies a stationdex index file's bbolt page tree and
// then reads it in place, without bbolt.
//
// Two things need a reader of bbolt's pages of our own. bbolt trusts its
// file: a damaged one can make it hand out pointers anywhere in the
// address space, so Verify walks every page once, bounds-checked, and
// sums every bucket against the checksums the indexer stored, before
// bbolt is let near the file. And bbolt's Bucket and Cursor allocate on
// every open and Get, most of a search's allocations once, so searches
// read through a Tree mapped from the layout Verify found, whose Cursor
// allocates nothing.
//
// The door is narrow: Verify (or Walk over bytes already read) gives a
// Layout, Map maps the file in that layout, Root names a top-level
// bucket, and a Cursor seeks and steps through its pairs. The package
// knows bbolt's page layout and, through package format, the meta bucket
// that identifies an index; it knows nothing of stations, posting lists
// or searches.
//
// File map:
//   - doc.go: this comment
//   - verify.go: Verify and Walk, the bounds-checked walk of the meta
//     pages, branch and leaf pages and inline buckets, each bucket summed;
//     bbolt's page layout written down once
//   - page.go: a page as the walk reads it, from the file through the
//     walker's window or from bytes in memory, and its bounds checks
//   - parallel.go: the walk spread over goroutines: the plan that cuts a
//     large bucket into runs of its root's children, and the join of the
//     runs' sums
//   - tree.go: the search path's reader: Map, Tree, Root and the Cursor
//     that seeks and steps through a bucket's pairs without allocating
package pagetree

// Package facets counts the values of a search's facets: for each
// dimension asked for, the values with the most matching stations (or
// groups, for a distinct search), without a bitmap per value where it
// can. A column per facet ranks its values by station count and gives
// each record its value ids (counted by visiting the records of a small
// match set); a large set is counted by intersecting posting lists, most
// stations first; the facet memo the indexer stores answers the large
// stored lists at once, in stations and, for a distinct search, in
// groups, and bounds the counts of the sets within those lists; a
// distinct search's other sets are counted from their firsts,
// one entry per group whose entries agree in every facet. The search
// calls Count through core.FacetCounter;
// the columns and the memo are the facets' state in each index (a slot of
// core.Index), built on first use or by Warm.
//
// File map:
//   - facetcol.go: the columns, built once per index, Warm, and the
//     values' labels
//   - facetslots.go: the per-record counters of a column (slots)
//   - facetcount.go: Count: the tasks, and counting by records
//   - facetlists.go: counting by posting lists against a set written out
//     as bits (countDense), and the parts of a count by records that
//     cost less that way (facets of few values, tails few of whose
//     values could still enter)
//   - facetsplit.go: a broad set's pass over the columns split between
//     two goroutines
//   - facetmemo.go: the stored facet memo and its look-up
//   - facetbound.go: the memo's bounds on a value's count in a set
//     that lies within lists it holds, which end a count early
//   - distinct_counts.go: the counts of groups of a distinct search
//   - distinct_firsts.go: those counts from the set's firsts and its
//     mixed groups (the facets with a column)
//   - doc.go: this comment
package facets

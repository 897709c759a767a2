package check

import (
	"bytes"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	"stationdex/query/core"
	"stationdex/query/facets"
)

// checkFacetMemo: every entry of the stored facet memo names lists that
// exist and holds what the engine counts for their set, value for value,
// in stations and in groups (the indexer counts by a sweep over records,
// the engine by its columns and posting lists: two ways to one answer).
func (c *checker) checkFacetMemo() error {
	if _, err := facets.FacetMemo(c.ix); err != nil {
		return err
	}
	values := make([]int, len(format.DistinctMemoFacets))
	for f, facet := range format.DistinctMemoFacets {
		values[f] = c.keys(facet.Bucket)
	}
	return c.tx.Bucket(format.BucketFacetMemo).ForEach(func(k, v []byte) error {
		stored, err := format.ParseMemoEntry(v, values[:len(format.FacetMemoFacets)], values)
		if err != nil {
			return err
		}
		counted, err := countMemoEntry(c.ix, c.tx, k, stored.Plain.Limit)
		if err != nil {
			return err
		}
		for _, part := range [][2]format.MemoCounts{{stored.Plain, counted.Plain}, {stored.Distinct, counted.Distinct}} {
			stored, counted := part[0], part[1]
			if counted.Stations != stored.Stations || !slices.EqualFunc(counted.Facets, stored.Facets, slices.Equal) {
				return fmt.Errorf("%w: facet memo of %x holds %v, its set counts %v", format.ErrCorrupt, k, stored, counted)
			}
		}
		return nil
	})
}

// countMemoEntry counts the facets of the set memo key k names, limit
// values each, as a search without the memo counts them, in stations and
// in groups.
func countMemoEntry(ix *core.Index, tx *bolt.Tx, k []byte, limit int) (format.MemoEntry, error) {
	lists, err := format.ParseMemoKey(k)
	if err != nil {
		return format.MemoEntry{}, err
	}
	w := core.GetWorkspace()
	defer w.Release()
	s := w.NewSearch(ix)
	s.Tx = tx
	var m core.Set
	for i, l := range lists {
		var one core.Set
		if l.Union {
			var raw [][]byte
			c := tx.Bucket(l.Bucket()).Cursor()
			for k, v := c.Seek(l.Key); k != nil && bytes.HasPrefix(k, l.Key); k, v = c.Next() {
				raw = append(raw, v)
			}
			one, err = w.UnionRaw(raw)
		} else {
			one, err = w.View(tx.Bucket(l.Bucket()).Get(l.Key))
		}
		if err != nil {
			return format.MemoEntry{}, err
		}
		if i == 0 {
			m = one
		} else {
			m = w.And(w.Settle(m), w.Settle(one))
		}
	}
	groups, err := core.CountGroups(tx, m.BM)
	if err != nil {
		return format.MemoEntry{}, err
	}
	out := format.MemoEntry{Plain: format.MemoCounts{Stations: m.Card(), Limit: limit},
		Distinct: format.MemoCounts{Stations: groups, Limit: limit}}
	for _, part := range []struct {
		counts *format.MemoCounts
		q      core.Query
		dims   []core.Dim
	}{
		{&out.Plain, core.Query{Facets: facets.MemoFacetSet, FacetLimit: limit}, facets.MemoDims},
		{&out.Distinct, core.Query{Facets: facets.DistinctFacetSet, FacetLimit: limit, Distinct: true}, facets.DistinctDims},
	} {
		// no words and no filters: facetTops finds no memo operands
		tasks, err := facets.FacetTops(s, part.q, m, false)
		if err != nil {
			return format.MemoEntry{}, err
		}
		for _, d := range part.dims {
			l := make([]format.MemoCount, len(tasks[d].Top))
			for i, c := range tasks[d].Top {
				l[i] = format.MemoCount{ID: c.ID, N: uint32(c.N)}
			}
			part.counts.Facets = append(part.counts.Facets, l)
		}
	}
	return out, nil
}

// FacetMemo recounts every entry of the facet memo as Check does, alone:
// the engine's tests run it on the real snapshot, to see it fail loudly.
func FacetMemo(ix *core.Index) error {
	return ix.View(func(tx *bolt.Tx) error {
		c := &checker{ix: ix, tx: tx, rep: &Report{}}
		if err := c.countBuckets(); err != nil {
			return err
		}
		return c.checkFacetMemo()
	})
}

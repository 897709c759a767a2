package facets

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	"stationdex/query/core"
	"stationdex/query/rawroaring"
)

// facetColumn is one search facet read once from its bucket: the values
// most stations first (ties by key), the order in which a top-k count can
// stop early since no search has more stations of a value than the
// snapshot; and, per record, the counters of its values (see slotColumn),
// so that a small match set is counted by visiting its records instead of
// probing thousands of posting lists.
//
// The same bound splits a facet of many values (genres: 10,701 on the
// real snapshot) in two parts, counted one after the other: the
// headValues values with the most stations, then the others, only when
// one of them could still enter the top k. A set of a few thousand
// stations usually has its top ten among the head, and skips the tail's
// long lists of rare tags.
type facetColumn struct {
	keys  []string
	count []uint32
	// postings are the values' posting lists, in the memory map: the index
	// is opened read-only, so the mapping stays put until Close, and they
	// are read only inside a read transaction, like every view.
	postings [][]byte
	// dense holds, for the values counted most often against large match
	// sets, bitset copies of their larger array containers: intersecting
	// a bitset costs 1024 word operations where an array costs a lookup
	// per value. Within denseBudget bytes, most stations first.
	dense [][]rawroaring.DenseBlock
	// skip marks values no filter can name (genres longer than
	// MaxFilterRunes or not their own key): no link could count them.
	skip []bool
	// byKey is each value's position in key order, for ties.
	byKey []uint32
	// labels caches the values' labels by id.
	labels []atomic.Pointer[string]
	// groups is each value's number of groups (listed_groups), and
	// byGroups the ids most groups first, ties as counts break them:
	// the distinct facets of a search of every station.
	groups   []uint32
	byGroups []uint32

	stations   int
	head, tail slotColumn
	// listCost is the cost of counting the facet by posting lists
	// against a bitset (postingCost; -1: a list is damaged).
	listCost int
}

// headValues is the size of the head part of a facet with more than
// twice as many values (see facetColumn).
const headValues = 256

// hasColumn reports whether the facet is counted record by record.
func (col *facetColumn) hasColumn() bool {
	return col.head.width > 0 && (col.tail.values == 0 || col.tail.width > 0)
}

// fillParts builds the head part and, for a facet of many values, the
// tail.
func (col *facetColumn) fillParts(cs *[]rawroaring.Container) error {
	head := len(col.keys)
	if head > 2*headValues {
		head = headValues
	}
	if err := col.head.fill(col, 0, head, cs); err != nil || head == len(col.keys) {
		return err
	}
	return col.tail.fill(col, head, len(col.keys)-head, cs)
}

// mayEnter reports whether value id, or any with fewer stations in the
// snapshot, could still enter top (k values, most first).
func (col *facetColumn) mayEnter(top []core.TopCount, id, k int) bool {
	return len(top) < k || int(col.count[id]) >= top[k-1].N
}

type lazyColumn struct {
	once sync.Once
	col  *facetColumn
	err  error
}

func column(ix *core.Index, d core.Dim) (*facetColumn, error) {
	lc := &facetsOf(ix).cols[d]
	lc.once.Do(func() {
		lc.err = ix.View(func(tx *bolt.Tx) error {
			var err error
			if lc.col, err = buildColumn(tx.Bucket(d.FacetBucket()), ix.Meta().Stations, d); err != nil {
				return err
			}
			return lc.col.readGroups(core.NewListedGroups(tx), d.FacetBucket())
		})
	})
	return lc.col, lc.err
}

// buildColumn reads a facet bucket: its keys ranked by station count, then,
// when they fit, every record's value ids, in two passes over the posting
// lists (count per record, then fill). Posting lists are read in place, so
// the build allocates only the column.
func buildColumn(b *bolt.Bucket, stations int, d core.Dim) (*facetColumn, error) {
	if b == nil {
		return nil, fmt.Errorf("%w: facet bucket missing", format.ErrCorrupt)
	}
	col := &facetColumn{stations: stations}
	type entry struct {
		key     string
		n       uint32
		posting []byte
	}
	var entries []entry
	var cs []rawroaring.Container
	err := b.ForEach(func(k, v []byte) error {
		n, err := rawroaring.Cardinality(v, &cs)
		if err != nil {
			return fmt.Errorf("facet %q: %w", k, err)
		}
		entries = append(entries, entry{string(k), uint32(n), v})
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b entry) int { return format.FacetOrder(a.n, b.n, a.key, b.key) })
	col.keys = make([]string, len(entries))
	col.count = make([]uint32, len(entries))
	col.skip = make([]bool, len(entries))
	col.postings = make([][]byte, len(entries))
	for i, e := range entries {
		col.keys[i], col.count[i], col.postings[i] = e.key, e.n, e.posting
		col.skip[i] = core.Dims[d].Folded != nil && !core.Filterable(d, e.key)
	}
	col.labels = make([]atomic.Pointer[string], len(entries))
	col.byKey = make([]uint32, len(entries))
	order := make([]uint32, len(entries))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return cmp.Compare(col.keys[a], col.keys[b]) })
	for pos, id := range order {
		col.byKey[id] = uint32(pos)
	}
	if len(entries)+spareSlots >= 1<<16 {
		return col, nil // counters do not fit 16 bits: counts probe posting lists
	}
	col.buildDense(cs)
	col.listCost = col.postingCost(cs)
	return col, col.fillParts(&cs)
}

// Dense copies: arrays of more than denseMinCard values, within
// denseBudget bytes per facet.
const (
	denseMinCard = 512
	denseBudget  = 1 << 20
)

func (col *facetColumn) buildDense(cs []rawroaring.Container) {
	budget := denseBudget
	for id, v := range col.postings {
		if int(col.count[id]) <= denseMinCard || budget < rawroaring.BitmapBytes {
			break
		}
		cs, err := rawroaring.Parse(v, cs)
		if err != nil {
			return // fill reports it
		}
		var blocks []rawroaring.DenseBlock
		for _, c := range cs {
			if c.Kind != rawroaring.Array || c.Card <= denseMinCard || budget < rawroaring.BitmapBytes {
				continue
			}
			blocks = append(blocks, rawroaring.Dense(&c))
			budget -= rawroaring.BitmapBytes
		}
		if col.dense == nil {
			col.dense = make([][]rawroaring.DenseBlock, len(col.postings))
		}
		col.dense[id] = blocks
	}
}

// facetState is what the facet counts keep of an index: its columns,
// built on first use, and the stored memo, read on first use (or by Warm).
type facetState struct {
	cols  [core.NumDims]lazyColumn
	memo  lazyMemo
	mixed lazyMixed
}

// facetSlot is the facet counts' slot in every index.
var facetSlot = core.NewSlot()

// facetsOf is the facet counts' state of ix.
func facetsOf(ix *core.Index) *facetState {
	return ix.Slot(facetSlot, newFacetState).(*facetState)
}

func newFacetState() any { return new(facetState) }

// Warm builds the facet columns, reads the facet memo and finds the mixed
// groups now, which the first faceted search would otherwise do
// (query.Index.Warm runs it). One after another, on the caller's
// goroutine: a node warms up while it answers, and its first answers keep
// the other cores (a faceted search that needs a column first builds it).
func Warm(ix *core.Index) error {
	errs := make([]error, 0, core.NumDims+1)
	for d := range core.NumDims {
		if d.Facetable() {
			_, err := column(ix, d)
			errs = append(errs, err)
		}
	}
	errs = append(errs, ix.Read(func() error { _, err := FacetMemo(ix); return err })) // read like a search: Close waits for it
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return ix.WithSearch(func(s *core.Search) error { // the mixed groups, once the columns are built
		gi, err := core.GroupIndexOf(s)
		if err == nil {
			_, err = mixedGroups(ix, gi)
		}
		return err
	})
}

// facetLabel names a value: by the row's name for it (countries and
// languages by their English names, codecs as they are), by its stored
// label (genres: the commonest spelling), or by the spelling of the first
// station filed under it (locations); read once, then cached.
func facetLabel(s *core.Search, d core.Dim, col *facetColumn, id uint32) (string, error) {
	if l := col.labels[id].Load(); l != nil {
		return *l, nil
	}
	key := col.keys[id]
	label, ok := core.FacetName(d, key)
	if core.Dims[d].Labels != nil {
		label, ok = cmp.Or(string(s.Lookup(core.Dims[d].Labels, []byte(key))), key), true
	}
	if !ok {
		var err error
		if label, err = spelledLabel(s, d, d.FacetBucket(), key); err != nil {
			return "", err
		}
	}
	col.labels[id].Store(&label)
	return label, nil
}

// spelledLabel is key of bucket as the first station filed under it
// spells it, or key itself.
func spelledLabel(s *core.Search, d core.Dim, bucket []byte, key string) (string, error) {
	one, err := s.Get(bucket, s.KeyOf(key))
	if err != nil || one.Empty() {
		return key, err
	}
	var r format.Record
	if err := core.DecodeRecord(s.Bucket(format.BucketStations), one.BM.Minimum(), &r); err != nil {
		return "", err
	}
	return core.Spelling(d, &r, key), nil
}

// Warm builds now what the index otherwise builds on first use: the facet
// columns, the typo dictionary and the group index of distinct searches,
// and reads the facet memo, each on a goroutine of its own, so that on
// two cores all is ready within a second of start-up at 5M stations (the
// genre column is the longest part). Then it builds the key filters and
// the token tables (keyFilters, tokenTables), which only Warm builds.
// Holder calls it in the background for every index it is given, so that
// no search pays for it.

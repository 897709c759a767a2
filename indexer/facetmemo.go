package indexer

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	mathbits "math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
)

// facetMemo is the facet memo bucket (see format/facetmemo.go): the top
// values of the counted facets of every large list and of the largest
// pairs of lists, in stations and in groups, counted from the lists
// already written by sweeping each set's records once over a per-record
// table of their values (facetValues) and their groups (group_of, written
// before). A reader used to count the same sets at start-up, value by
// value against each list, which took 10 s at 5M stations; the sweep
// takes a fraction of that, on every core.
//
// It is counted in the background (startFacetMemo) while the buckets
// that do not need it are written, and written after them: counting
// takes about 30 CPU-seconds at 5M stations and writing the stations'
// JSON leaves most of a core idle, so in turn they held up the build by
// the sum of both.
type facetMemo struct {
	done chan [][2][]byte // the bucket's pairs, once counted
}

// startFacetMemo reads what the memo counts from the lists written to db
// so far and counts it on goroutines of its own. What it keeps is copied
// out of the file, and its read transaction ends before the next bucket is
// written. Counting inside a transaction held open meanwhile cost no
// memory but made the file depend on timing: pages the writes free cannot
// be reused while a reader is open, so the same input gave files of 78 to
// 83 MB, and bbolt, to map the growing file anew, waits for the reader.
// The copies cost 0.4 to 0.5 GB more at the peak at 5M stations (peak RSS
// 1.42-1.52 GB against 0.98-1.06). A build given up (ctx) stops counting.
func startFacetMemo(ctx context.Context, db *bolt.DB, stations int) (*facetMemo, error) {
	var m *memoBuild
	err := db.View(func(tx *bolt.Tx) error {
		var err error
		m, err = readMemoBuild(tx, stations)
		return err
	})
	if err != nil {
		return nil, err
	}
	fm := &facetMemo{done: make(chan [][2][]byte, 1)} // never blocks a build that fails before source
	go func() {
		m.countSets(ctx)
		fm.done <- m.entries()
	}()
	return fm, nil
}

// source yields the memo's pairs, waiting for the count first.
func (fm *facetMemo) source() kvSource {
	return onePass(func(*bolt.Tx) ([][2][]byte, error) { return <-fm.done, nil })
}

// onePass is a source whose pairs are made in its first call, inside one
// transaction (build may read the lists already written in place), then
// yielded in key order.
func onePass(build func(tx *bolt.Tx) ([][2][]byte, error)) kvSource {
	var pending [][2][]byte
	started := false
	return func(tx *bolt.Tx) ([]byte, []byte, error) {
		if !started {
			started = true
			var err error
			if pending, err = build(tx); err != nil {
				return nil, nil, err
			}
			slices.SortFunc(pending, func(a, b [2][]byte) int { return bytes.Compare(a[0], b[0]) })
		}
		if len(pending) == 0 {
			return nil, nil, nil
		}
		kv := pending[0]
		pending = pending[1:]
		return kv[0], kv[1], nil
	}
}

// memoList is one memoised list: its source, key, stations and bitmap (a
// view of the written list, valid during the transaction); or with union,
// the union of the token lists that start with key (source -1).
type memoList struct {
	source, facet int
	key           []byte
	bm            *roaring.Bitmap
	n             int
	union         bool
}

// memoSet is a set the memo counts: one list (b nil) or a pair.
type memoSet struct {
	a, b  *memoList
	limit int
	n     int
}

type memoBuild struct {
	stations int
	min      int
	facets   []*facetValues // format.DistinctMemoFacets'
	values   *recordValues
	groupOf  []uint32 // each record's group, format.NoGroup when alone
	lists    []*memoList
	sets     []memoSet
	counts   []format.MemoEntry
}

// readMemoBuild reads the groups, the counted facets' lists and the
// lists and word unions to memoise, all copied: they outlive tx.
func readMemoBuild(tx *bolt.Tx, stations int) (*memoBuild, error) {
	m := &memoBuild{stations: stations, min: format.FacetMemoMin(stations)}
	var err error
	if m.groupOf, err = readGroupOf(tx.Bucket(format.BucketGroupOf), stations); err != nil {
		return nil, fmt.Errorf("facet memo: %w", err)
	}
	for _, f := range format.DistinctMemoFacets {
		fv, err := newFacetValues(tx.Bucket(f.Bucket), stations, f.Fold)
		if err != nil {
			return nil, fmt.Errorf("facet memo: %s: %w", f.Bucket, err)
		}
		fv.own()
		m.facets = append(m.facets, fv)
	}
	if err := m.findLists(tx); err != nil {
		return nil, err
	}
	for _, l := range m.lists {
		m.sets = append(m.sets, memoSet{a: l, limit: format.FacetMemoListLimit, n: l.n})
	}
	if err := m.findUnions(tx); err != nil {
		return nil, err
	}
	return m, nil
}

// countSets turns the facets into the per-record table, chooses the pairs
// and counts every set. It reads nothing of the file.
func (m *memoBuild) countSets(ctx context.Context) {
	m.values = newRecordValues(m.facets, m.stations)
	for _, fv := range m.facets {
		fv.lists = nil // in the table now; the memory goes back
	}
	m.findPairs()
	m.countAll(ctx)
}

// findUnions adds the sets of the query words that have no list of their
// own (format/facetmemo.go: MemoUnionKey) and hold at least min stations
// and not all of them: each set of tokens once, found from the tokens
// large enough to bring a union of at most PrefixFanout of them to min.
// A word's tokens are those that start with it, a run of the bucket's
// keys; the union is named by the longest prefix the run shares.
func (m *memoBuild) findUnions(tx *bolt.Tx) error {
	tokens, prefixes := tx.Bucket(format.BucketAllTokens), tx.Bucket(format.BucketAllPrefix)
	least := (m.min + format.PrefixFanout - 1) / format.PrefixFanout
	var large [][]byte
	bm := roaring.New()
	cardOf := func(k, v []byte) (int, error) {
		if _, err := bm.FromBuffer(v); err != nil {
			return 0, fmt.Errorf("facet memo: %s %q: %w", format.BucketAllTokens, k, err)
		}
		return int(bm.GetCardinality()), nil
	}
	err := tokens.ForEach(func(k, v []byte) error {
		n, err := cardOf(k, v)
		if n >= least {
			large = append(large, k)
		}
		return err
	})
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	c := tokens.Cursor()
	var run, runKeys [][]byte
	for _, tok := range large {
		for end := 0; end < len(tok); {
			_, size := utf8.DecodeRune(tok[end:])
			end += size
			word := tok[:end]
			if prefixes.Get(word) != nil {
				continue // the word's set is that list
			}
			run, runKeys, sum := run[:0], runKeys[:0], 0
			for k, v := c.Seek(word); k != nil && bytes.HasPrefix(k, word) && len(run) <= format.PrefixFanout; k, v = c.Next() {
				n, err := cardOf(k, v)
				if err != nil {
					return err
				}
				run, runKeys, sum = append(run, v), append(runKeys, k), sum+n
			}
			if sum < m.min || len(run) > format.PrefixFanout {
				continue // small; or a damaged bucket, which a search of the word reports
			}
			shared := commonPrefix(runKeys[0], runKeys[len(runKeys)-1])
			if seen[string(shared)] {
				continue
			}
			seen[string(shared)] = true
			u := roaring.New()
			for _, v := range run {
				one := roaring.New()
				if _, err := one.FromBuffer(v); err != nil {
					return fmt.Errorf("facet memo: %s under %q: %w", format.BucketAllTokens, word, err)
				}
				u.Or(one)
			}
			if n := int(u.GetCardinality()); n >= m.min && n < m.stations {
				// Or may share a container of one, a view: the clone owns all.
				l := &memoList{source: -1, facet: -1, key: bytes.Clone(shared), bm: u.Clone(), n: n, union: true}
				m.sets = append(m.sets, memoSet{a: l, limit: format.FacetMemoListLimit, n: n})
			}
		}
	}
	return nil
}

// commonPrefix is the longest prefix a and b share.
func commonPrefix(a, b []byte) []byte {
	n := 0
	for n < min(len(a), len(b)) && a[n] == b[n] {
		n++
	}
	return a[:n]
}

// findLists collects the lists of the memoised buckets that hold at least
// min stations and not all of them, bucket by bucket in key order.
func (m *memoBuild) findLists(tx *bolt.Tx) error {
	for si, src := range format.FacetMemoSources {
		err := tx.Bucket(src.Bucket).ForEach(func(k, v []byte) error {
			bm := roaring.New()
			if _, err := bm.FromBuffer(v); err != nil {
				return fmt.Errorf("facet memo: %s %q: %w", src.Bucket, k, err)
			}
			if n := int(bm.GetCardinality()); n >= m.min && n < m.stations {
				m.lists = append(m.lists, &memoList{source: si, facet: src.Facet, key: bytes.Clone(k), bm: bm.Clone(), n: n})
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// findPairs chooses the pairs: among the FacetMemoPairLists largest lists
// of at least the pair minimum, the pairs of lists a search can intersect
// (not two of one facet) estimated on a sample of the records to reach
// that minimum, largest estimate first, sized exactly, until the budget
// of records is spent. Sampling keeps the choice's cost the same at any
// scale.
func (m *memoBuild) findPairs() {
	least := format.FacetMemoPairShare * m.min
	typed := typedWords(m.lists)
	large := slices.DeleteFunc(slices.Clone(m.lists), func(l *memoList) bool {
		return l.n < least || l.facet < 0 && !typed[l]
	})
	slices.SortStableFunc(large, func(a, b *memoList) int { return cmp.Compare(b.n, a.n) })
	large = large[:min(len(large), format.FacetMemoPairLists)]
	mask, stride := sampleMask(m.stations)
	sampled := int(mask.GetCardinality())
	samples := eachRow(len(large), func(i int) []uint64 { return denseSample(large[i].bm, mask, stride) })
	pairs := slices.Concat(eachRow(len(large), func(i int) []pair {
		var row []pair
		for j := i + 1; j < len(large); j++ {
			if large[i].facet == large[j].facet && large[i].facet >= 0 {
				continue
			}
			if est := andCount(samples[i], samples[j]) * m.stations / max(sampled, 1); est >= least {
				row = append(row, pair{i, j, est})
			}
		}
		return row
	})...)
	slices.SortFunc(pairs, func(x, y pair) int { return cmp.Compare(y.est, x.est) })
	budget := format.FacetMemoPairBudget
	for _, p := range pairs {
		if budget < 0 {
			break
		}
		a, b := large[p.a], large[p.b]
		n := p.est // exact when the sample is every record
		if stride > 1 {
			n = int(a.bm.AndCardinality(b.bm))
		}
		if n < least || n == min(a.n, b.n) {
			continue // small, or one of the lists, which the list memo holds
		}
		budget -= n
		m.sets = append(m.sets, memoSet{a: a, b: b, limit: format.FacetMemoPairLimit, n: n})
	}
}

// typedWords marks the word lists (the prefix bucket's) that pair with
// others: those of a word of at least FacetMemoPairWordRunes runes that
// no word one rune longer nearly covers (FacetMemoPairCoverTenths). Largest
// first, the budget went to pairs of single letters ("r" and "s", 1.5M
// stations at 5M) and of a word's own prefixes ("ra", "rad", "radi" with
// anything "radio" meets), which no one searches for, and reached none
// of the word pairs people type ("radio rock"): their facets were counted
// at every search, the slowest of the search page and of the faceted
// mix.
func typedWords(lists []*memoList) map[*memoList]bool {
	words := map[string]*memoList{}
	for _, l := range lists {
		if l.facet < 0 {
			words[string(l.key)] = l
		}
	}
	covered := map[*memoList]bool{}
	for key, l := range words {
		if key == "" {
			continue
		}
		_, size := utf8.DecodeLastRuneInString(key)
		if shorter := words[key[:len(key)-size]]; shorter != nil &&
			10*l.n >= format.FacetMemoPairCoverTenths*shorter.n {
			covered[shorter] = true
		}
	}
	typed := map[*memoList]bool{}
	for key, l := range words {
		if utf8.RuneCountInString(key) >= format.FacetMemoPairWordRunes && !covered[l] {
			typed[l] = true
		}
	}
	return typed
}

// pair is two of the large lists and the estimate of their intersection.
type pair struct{ a, b, est int }

// eachRow calls row(i) for i in [0, n) on every core and returns the
// results in order.
func eachRow[T any](n int, row func(i int) T) []T {
	out := make([]T, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				out[i] = row(i)
			}
		})
	}
	wg.Wait()
	return out
}

// denseSample is bm's records in mask, every stride-th record, as a
// bitset of the sample: record r is bit r/stride. The intersections of
// every two of 256 samples, as roaring bitmaps in place (a tenth of a
// list's records at 5M stations, in array containers merged a record at
// a time), took 6.6 of the 5M build's 249 CPU-seconds; as bitsets of at
// most FacetMemoPairKeys times 65,536 bits (64 KB, 16 MB for all), each
// is a pass over 8,192 words. The counts, and so the pairs chosen, are
// the same.
func denseSample(bm, mask *roaring.Bitmap, stride int) []uint64 {
	in := bm
	if stride > 1 {
		in = roaring.And(bm, mask)
	}
	bits := make([]uint64, (mask.GetCardinality()+63)/64)
	it := in.ManyIterator()
	buf := make([]uint32, 1024)
	for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
		for _, r := range buf[:n] {
			s := r / uint32(stride)
			bits[s/64] |= 1 << (s % 64)
		}
	}
	return bits
}

// andCount is the number of bits set in both a and b, of one length.
func andCount(a, b []uint64) int {
	n := 0
	for i, w := range a {
		n += mathbits.OnesCount64(w & b[i])
	}
	return n
}

// sampleMask is every stride-th record, at most FacetMemoPairKeys times
// 65,536 of them, and the stride (1: every record). A stride, not ranges
// of records: the records are in name order, so the stations of two
// words (hits, radio) sit together, and ranges missed or overweighted
// them, which chose pairs of 85k entries before pairs of 200k.
func sampleMask(stations int) (*roaring.Bitmap, int) {
	stride := max(1, (stations+format.FacetMemoPairKeys<<16-1)/(format.FacetMemoPairKeys<<16))
	mask := roaring.New()
	for r := 0; r < stations; r += stride {
		mask.Add(uint32(r))
	}
	return mask, stride
}

// countAll counts every set, on every core; the results land in the
// sets' order.
func (m *memoBuild) countAll(ctx context.Context) {
	var pool sync.Pool // a counter per worker, not per set
	m.counts = eachRow(len(m.sets), func(i int) format.MemoEntry {
		if ctx.Err() != nil {
			return format.MemoEntry{} // a build given up: nothing is written
		}
		c, _ := pool.Get().(*memoCounter)
		if c == nil {
			c = newMemoCounter(m.facets, len(format.FacetMemoFacets), m.values, m.groupOf)
		}
		defer pool.Put(c)
		s := m.sets[i]
		bm := s.a.bm
		if s.b != nil {
			bm = roaring.And(s.a.bm, s.b.bm)
		}
		return c.count(bm, s.n, s.limit)
	})
}

// entries encodes the memo as the bucket's pairs.
func (m *memoBuild) entries() [][2][]byte {
	out := make([][2][]byte, len(m.sets))
	for i, s := range m.sets {
		k := format.MemoListKey(s.a.source, s.a.key)
		switch {
		case s.a.union:
			k = format.MemoUnionKey(s.a.key)
		case s.b != nil:
			k = format.MemoPairKey(s.a.source, s.a.key, s.b.source, s.b.key)
		}
		out[i] = [2][]byte{k, format.AppendMemoEntry(nil, &m.counts[i])}
	}
	return out
}

// readGroupOf reads every record's group from the group_of bucket.
func readGroupOf(b *bolt.Bucket, stations int) ([]uint32, error) {
	groupOf := make([]uint32, stations)
	for start := 0; start < stations; start += format.RecordsPerBlock {
		block, _ := format.BlockOf(uint32(start))
		v := b.Get(format.BlockKey(block))
		for slot := range min(format.RecordsPerBlock, stations-start) {
			g, err := format.GroupOf(v, slot)
			if err != nil {
				return nil, err
			}
			groupOf[start+slot] = g
		}
	}
	return groupOf, nil
}

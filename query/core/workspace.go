package core

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"stationdex/internal/format"
	"stationdex/query/rawroaring"
)

// set is a posting list during one search: either a read-only view of a
// bitmap in the file (FromBuffer over the bbolt value, valid only inside
// the transaction and never to be modified) or a scratch bitmap this search
// may modify. A set is used linearly: an operation that returns a set may
// have modified its owned argument in place.
type Set struct {
	BM    *roaring.Bitmap
	Owned bool
	// shortRuns: a stored list of run containers of many short runs,
	// which roaring combines slowly; settle flattens it before any
	// combination, and a set used alone (one filter) never pays for it.
	shortRuns bool
}

func (s Set) Card() int { return int(s.BM.GetCardinality()) }

func (s Set) Empty() bool { return s.BM.IsEmpty() }

// workspace is the reusable memory of one search: bitmaps, token and key
// buffers, the page iterator. Workspaces are pooled so that a search
// allocates about the same whatever the number of matches.
type workspace struct {
	bitmaps   []*roaring.Bitmap // views and scratch; the first used are in use
	used      int
	dense     [][]uint64 // buffers of flattened views; the first usedDense are in use
	usedDense int
	// serial holds the serializations the bitmaps made from dense
	// buffers point into (fromDense); the first usedSerial are in use.
	serial     [][]byte
	usedSerial int
	cards      []int // records per key of a dense intersection (denseAnd)
	Words      []string
	key        []byte
	listedKey  []byte // a listed_groups key (storedGroups)
	recs       []uint32
	raw        [][]byte // the page's encoded records, during decoding only
	RawLists   [][]byte // stored lists to unite (unionRaw)
	wordRefs   [][]byte // every word's lists, word after word (allWords)
	wordEnds   []int
	views      []*roaring.Bitmap
	rawTmp     []rawroaring.Container
	wordSets   []sizedSet
	tiers      []tier
	it         roaring.IntIterator
	// facet counting (see facetcol.go)
	Tops   [NumDims][]TopCount
	Counts [NumDims][]uint16 // by value id, zero between uses
	// wide: the counts of a set too large for 16 bits (countPart)
	Wide [NumDims][]uint32
	// touched: the counters a sparse count raised from zero (countSparse)
	Touched [NumDims][]uint16
	recBuf  []uint32
	// distinct searches: group ids or records found, value-group pairs
	// or entries by group, each value's last group and duplicates, and
	// the values met (distinct.go)
	GroupIDs  []uint32
	Seen      groupSet
	tierBits  []uint64 // a broad tier as a bit per record (eachShared)
	andBits   []uint64 // the second operand of a dense intersection (denseAnd)
	Pairs     []uint64
	Dups      duplicateCounts
	LastGroup []ValueGroup
	ByGroup   []uint64
	// byGroupTmp: sortByGroup's other buffer
	ByGroupTmp []uint64
	ValueIDs   []uint32
	// memoOps: a faceted search's operands (memoOperands)
	MemoOps []MemoOperand
	Many    roaring.ManyIntIterator
	Raw2    []rawroaring.Container
	// plain searches (see plain.go): the lists read, the conjuncts over
	// them, and two evaluation scratches (a tier and what it excludes)
	plain      plain
	lists      [][]rawroaring.Container // the first nlists in use
	nlists     int
	vals       []uint32 // a materialised set's records (plainMatches)
	parts      []conjunct
	keyA, keyB *keyScratch
	search     Search // the search using the workspace (newSearch)
	// sorted searches (sort.go): the stations of the near filter's
	// circle with their distances, once kept; members keyed by rank
	nearHits []nearHit
	nearKept bool
	sortKeys []uint64
}

// newSearch is the workspace's search, reset for one on ix: it lives in
// the pooled workspace so that a search allocates no state of its own.
func (w *workspace) NewSearch(ix *Index) *Search {
	s := &w.search
	s.Index, s.Tx, s.Work, s.Stations = ix, nil, w, ix.meta.Stations
	s.words = Set{}
	s.nopen, s.MemoFacets, s.MemoBounded = 0, 0, 0
	return s
}

func (w *workspace) scratchA() *keyScratch {
	if w.keyA == nil {
		w.keyA = new(keyScratch)
	}
	return w.keyA
}

func (w *workspace) scratchB() *keyScratch {
	if w.keyB == nil {
		w.keyB = new(keyScratch)
	}
	return w.keyB
}

var workspaces = sync.Pool{New: func() any {
	return &workspace{key: make([]byte, 0, 128), recs: make([]uint32, 0, MaxLimit), tiers: make([]tier, 0, 3)}
}}

func GetWorkspace() *workspace { return workspaces.Get().(*workspace) }

// release empties every bitmap before pooling the workspace: views and
// scratch bitmaps sharing their containers point into the file mapping,
// which must not be reachable after the transaction ends.
func (w *workspace) Release() {
	for _, b := range w.bitmaps[:w.used] {
		b.Clear()
	}
	w.used = 0
	w.usedDense, w.usedSerial = 0, 0
	clear(w.Words)
	w.Words = w.Words[:0]
	w.recs = w.recs[:0]
	w.nearHits, w.nearKept = w.nearHits[:0], false
	clear(w.tiers)
	w.tiers = w.tiers[:0]
	w.it = roaring.IntIterator{}
	clear(w.Raw2[:cap(w.Raw2)])
	clear(w.RawLists[:cap(w.RawLists)])
	for i := range w.lists[:w.nlists] {
		clear(w.lists[i])
	}
	w.nlists = 0
	w.parts = w.parts[:0]
	w.plain.sets = [setCount]conjunction{}
	for i := range w.search.open[:w.search.nopen] {
		w.search.open[i] = openBucket{} // pages of the mapping, which may be unmapped
	}
	w.search.Index, w.search.Tx, w.search.words = nil, nil, Set{}
	w.ByGroup = w.search.Shared.ByGroup[:0]
	w.search.Shared.Of, w.search.Shared.Set, w.search.Shared.ByGroup, w.search.Shared.Sorted = nil, Set{}, nil, false
	workspaces.Put(w)
}

func (w *workspace) Bitmap() *roaring.Bitmap {
	if w.used == len(w.bitmaps) {
		w.bitmaps = append(w.bitmaps, roaring.New())
	}
	b := w.bitmaps[w.used]
	w.used++
	return b
}

// scratch is an empty bitmap the search owns.
func (w *workspace) Scratch() Set { return Set{BM: w.Bitmap(), Owned: true} }

// view maps a bbolt value as a bitmap without copying it.
func (w *workspace) View(v []byte) (Set, error) {
	b := w.Bitmap()
	n, err := b.FromBuffer(v)
	if err == nil && n != int64(len(v)) {
		err = fmt.Errorf("%d trailing bytes", int64(len(v))-n)
	}
	if err != nil {
		return Set{}, fmt.Errorf("%w: posting list: %v", format.ErrCorrupt, err)
	}
	shortRuns := b.HasRunCompression() && format.ManyShortRuns(b)
	return Set{BM: b, shortRuns: shortRuns}, nil
}

// settle is s ready to be combined with others: flattened when it holds
// many short runs (see format.MaxRunContainerBytes), as it is otherwise.
func (w *workspace) Settle(s Set) Set {
	if !s.shortRuns {
		return s
	}
	return w.flatten(s.BM)
}

// flatten rewrites a bitmap holding run containers as array and bitmap
// containers over a pooled buffer. Containers of thousands of short runs
// (see format.MaxRunContainerBytes) are slow to combine, and several of roaring's
// operations on them (in-place union, conversion to an array) are
// quadratic in the number of runs; flattening is linear and its result
// combines fast.
func (w *workspace) flatten(b *roaring.Bitmap) Set {
	buf := w.DenseBuffer(containerWords * (int(b.Maximum()>>16) + 1))
	b.WriteDenseTo(buf)
	flat := w.Bitmap()
	flat.FromDense(buf, false) // bitmap containers share buf copy-on-write
	return Set{BM: flat, Owned: true}
}

// fromDense is a bitmap of dense's records, as roaring's FromDense makes
// it. When the set is mostly array containers, it is read from their
// serialization (rawroaring.AppendDense) in a pooled buffer that its
// containers then point into: for the intersections of a filtered
// search's facets, a few percent of 5M stations each, FromDense took
// three times as long and allocated every array container, 600 KB for
// such a set. A set mostly of bitmap containers goes to FromDense, which
// shares the buffer's words where the serialization would copy them
// (prefix searches took twice as long that way). cards is each key's
// number of records.
func (w *workspace) fromDense(dense []uint64, cards []int) *roaring.Bitmap {
	b := w.Bitmap()
	if arrays, bitmaps := rawroaring.DenseKinds(cards); arrays < serialPerBitmap*bitmaps {
		b.FromDense(dense, false) // bitmap containers share dense copy-on-write
		return b
	}
	if w.usedSerial == len(w.serial) {
		w.serial = append(w.serial, nil)
	}
	buf := rawroaring.AppendDense(w.serial[w.usedSerial][:0], dense, cards)
	w.serial[w.usedSerial] = buf
	w.usedSerial++
	if _, err := b.FromBuffer(buf); err != nil { // not for bytes AppendDense wrote
		b.Clear()
		b.FromDense(dense, true)
	}
	return b
}

// serialPerBitmap is the array records per bitmap container from which
// a set is read from its serialization (fromDense): about the values
// whose faster writing pays for copying a bitmap container (8 KB).
const serialPerBitmap = 256

// denseAnd is a ∩ b made a bit per record in a pooled dense buffer, and
// read from there (fromDense), when both hold more than
// denseAnd records a key on average (else ok is false): roaring's And
// makes a container for each key, and for a run container (a country's
// stations, which sit together in name order) a bitmap of it first, so
// that the two intersections of q=radio&language=en allocated 1.2 MB at
// 5M stations, and those of q=fm&country=CN as much for 15,000 entries.
func (w *workspace) denseAnd(a, b Set) (Set, bool) {
	if a.BM == nil || b.BM == nil || a.Empty() || b.Empty() {
		return Set{}, false
	}
	keys := int(max(a.BM.Maximum(), b.BM.Maximum())>>16) + 1
	if min(a.Card(), b.Card()) < denseAnd*keys {
		return Set{}, false
	}
	x := w.DenseBuffer(containerWords * keys)
	if cap(w.andBits) < len(x) {
		w.andBits = make([]uint64, len(x))
	}
	y := w.andBits[:len(x)]
	clear(y)
	a.BM.WriteDenseTo(x)
	b.BM.WriteDenseTo(y)
	cards := w.cards[:0]
	for k := range keys {
		xs, ys := x[k*containerWords:(k+1)*containerWords], y[k*containerWords:(k+1)*containerWords]
		n := 0
		for i := range xs {
			xs[i] &= ys[i]
			n += bits.OnesCount64(xs[i])
		}
		cards = append(cards, n)
	}
	w.cards = cards[:0]
	return Set{BM: w.fromDense(x, cards), Owned: true}, true
}

// denseUnion is the records per key of the lists of a union from which
// it is made in a dense buffer (UnionRaw): see there.
const denseUnion = 256

// denseAnd is the records per key of each operand from which an
// intersection is made in a dense buffer (workspace.denseAnd).
const denseAnd = 1024

// containerWords is the size of a roaring bitmap container in words: the
// dense buffers hold whole containers.
const containerWords = 1 << 16 / 64

func (w *workspace) DenseBuffer(words int) []uint64 {
	if w.usedDense == len(w.dense) {
		w.dense = append(w.dense, nil)
	}
	buf := w.dense[w.usedDense]
	if cap(buf) < words {
		buf = make([]uint64, words)
	}
	buf = buf[:words]
	clear(buf)
	w.dense[w.usedDense] = buf
	w.usedDense++
	return buf
}

// and returns a ∩ b; a is consumed when owned (intersected in place), b
// is never modified (callers use it again). A view a is intersected into a
// fresh bitmap: copying it and intersecting in place would clone each of
// its containers.
func (w *workspace) And(a, b Set) Set {
	a, b = w.Settle(a), w.Settle(b)
	if d, ok := w.denseAnd(a, b); ok {
		return d
	}
	if a.Owned {
		a.BM.And(b.BM)
		return Set{BM: a.BM, Owned: true}
	}
	return Set{BM: roaring.And(a.BM, b.BM), Owned: true}
}

// unionRaw is the union of stored posting lists (a word's tokens, a
// filter's values). Lists with run containers are ORed container by
// container into a pooled dense buffer that the result's bitmap
// containers share: roaring's FastOr turns every run container into an
// array by inserting its runs one at a time, which took 770 us for the two
// tokens starting with "90s" on the real snapshot, where the dense pass is
// linear. So are lists of more than denseUnion records a key on average:
// FastOr makes a bitmap container for every key their arrays fill past
// 4,096, and converts most back, which allocated 1.2 MB for the tokens of
// "aac" at 5M stations, where the dense pass allocates only the arrays
// of the result. Others go to FastOr, cheaper for a few small arrays.
// Below 1,024 a key FastOr's arrays still cost: the unions of "digital"
// (43,206 stations in three tokens) and "101" (61,870 in seven) at 5M,
// a few hundred records a key, allocated 1.2 MB for a search page, the
// dense pass 0.56 MB in the same time; at one key (50k stations) the
// search page took as long either way.
func (w *workspace) UnionRaw(lists [][]byte) (Set, error) {
	switch len(lists) {
	case 0:
		return w.Scratch(), nil
	case 1:
		return w.View(lists[0])
	}
	cs := w.rawTmp[:0]
	defer func() { clear(cs[:cap(cs)]); w.rawTmp = cs[:0] }()
	keys, runs, records := 0, false, 0
	for _, v := range lists {
		var err error
		if cs, err = rawroaring.Parse(v, cs); err != nil {
			return Set{}, err
		}
		if len(cs) > 0 {
			keys = max(keys, int(cs[len(cs)-1].Key)+1)
		}
		for i := range cs {
			runs = runs || cs[i].Kind == rawroaring.Run
			records += rawCard(&cs[i])
		}
	}
	if !runs && records < denseUnion*keys {
		// arrays and bitmaps only: FastOr merges them in one lazy pass
		// and touches only their containers, where the dense pass
		// clears and scans 1,024 words per key
		bms := w.views[:0]
		defer func() { clear(bms); w.views = bms[:0] }()
		for _, v := range lists {
			one, err := w.View(v)
			if err != nil {
				return Set{}, err
			}
			bms = append(bms, one.BM)
		}
		return Set{BM: roaring.FastOr(bms...), Owned: true}, nil
	}
	buf := w.DenseBuffer(containerWords * keys)
	for _, v := range lists {
		cs, _ = rawroaring.Parse(v, cs) // parsed above without error
		for i := range cs {
			rawroaring.OrInto((*[rawroaring.BlockWords]uint64)(buf[int(cs[i].Key)*containerWords:]), &cs[i])
		}
	}
	flat := w.Bitmap()
	flat.FromDense(buf, false) // bitmap containers share buf copy-on-write
	return Set{BM: flat, Owned: true}, nil
}

// topCount is a value id and its count in a search.
type TopCount struct {
	ID uint32
	N  int
}

// duplicateCounts are, by value id ascending, the value's duplicates in
// a search: its entries in the search whose group has another, earlier,
// with the value.
type duplicateCounts []ValueCount

type ValueCount struct{ ID, N uint32 }

// valueGroup is a value's last group met and its duplicates so far
// (columnDuplicates): group 0 stands for none; compact group numbers
// start at 1.
type ValueGroup struct{ Group, Dups uint32 }

// memoOperand is a word or filter of a search as the memo may know it:
// its stored list when it is one (0 otherwise), and the dimension a facet
// may leave out (noDim for words and bitrates).
type MemoOperand struct {
	Dim  Dim
	List ListID
}

// listID names a stored posting list: the offset of its bytes in the
// file (pagetree.Tree.Offset), which no other list shares. 0 is none: the
// file starts with bbolt's meta pages.
type ListID uint64

func (d duplicateCounts) Of(id uint32) (int, error) {
	i, ok := slices.BinarySearchFunc(d, id, func(c ValueCount, id uint32) int { return cmp.Compare(c.ID, id) })
	if !ok {
		return 0, nil
	}
	return int(d[i].N), nil
}

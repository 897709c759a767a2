// Package core is the engine below package query's facade: the index file
// opened and checked, its records, posting lists and dimensions, and the
// search itself (ranking, filters, the plain and distinct runs). The rooms
// above it (query/facets, query/groups, query/spell, query/check,
// query/rbapi) import
// it; it imports none of them: a search reaches the facet counts and the
// suggestions through the FacetCounter and the Suggester it is given
// (Index.Run), and a room keeps its lazy state in a slot of the index
// (Index.Slot) or its derived values (Index.Derived).
//
// An Index is the file opened read-only and memory-mapped (see package
// format for the layout), after a check of every page and checksum
// (package pagetree). Nothing proportional to the data set is copied onto
// the heap: searches read the page tree through its bounds-checked reader
// (pagetree.Tree), posting lists are roaring bitmaps read in place with
// FromBuffer, the work is done in pooled scratch bitmaps, and only the
// records of the requested page are decoded. A plain search (no facets, no
// distance filter) builds no bitmap at all: it intersects the stored lists
// 65,536 records at a time, in place, counting each range and collecting
// only the ranges its page reads (plain.go, conjunction.go; two arrays are
// intersected by an SSE4.2 kernel on amd64, package rawroaring). Values returned to callers (Result,
// format.Record) own their memory and stay valid after the call and after
// Close.
//
// # Ranking: name_match_then_alphabetical
//
// The query text is split into words with fold.Tokens. A word matches a
// token equal to it or starting with it. A station matches when every word
// matches one of its tokens in any searchable field and it passes every
// filter. Matches fall into three tiers, shown in this order:
//
//	tier 0  exact name: the station's name key (fold.Key) equals the query's
//	tier 1  name match: every word matches a token of the name
//	tier 2  the other matches (some word matches only country, location,
//	        language or genre)
//
// Within a tier stations are in record-number order, which the indexer
// assigns alphabetically by name key, then folded name, then UUID, so the
// whole order is total and pages never overlap or skip. A query without
// words (empty, or only punctuation) has one tier: every station passing
// the filters, alphabetically.
//
// File map:
//   - core.go: Index, Query, Result and its facets, the page rules,
//     Station, the warm-ups, what callers derive from an index once
//     (Derived) and the rooms' slots (Slot)
//   - open.go: Open, the checks of the file and its optional sections,
//     reads inside and outside a bbolt transaction
//   - records.go: record blocks located by number, the records and the
//     stored JSON of a station and of a page
//   - files.go: the stored files (OpenAPI, dumps...) and their manifest
//   - dims.go: the dimensions, their buckets, keys and labels
//   - directory.go: the directory's lists of values and their orders
//   - search.go: Run, ranking into tiers, locating and decoding the page
//   - sort.go: the orders other than relevance: name, and the stored
//     permutations (popular, bitrate) walked, or distance
//   - workspace.go: the pooled scratch of a search (sets, buffers, and
//     the facet counts' buffers)
//   - postings.go: the search's posting lists (words, prefixes, names)
//     and its open buckets
//   - keyfilter.go, tokentable.go: the look-ups spared and the token
//     buckets in memory (built by Warm)
//   - filters.go, near.go: the filters, and the distance filter and
//     nearby stations
//   - plain.go, conjunction.go, conjunction_kernels.go: the plain run,
//     lists intersected in place a container key at a time
//   - distinct.go, distinct_plain.go, groupindex.go: distinct searches,
//     the group index, the listed groups and group_of
package core

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	"stationdex/query/pagetree"
)

// Sentinel errors of the query engine. Errors about the file itself wrap
// format.ErrNotIndex, format.ErrVersion or format.ErrCorrupt.
var (
	// ErrNotFound: no station with that id in this snapshot.
	ErrNotFound = errors.New("station not found")
	// ErrInvalidQuery: Limit or Offset outside the range Search accepts.
	// The server validates requests first, so this means a caller bug.
	ErrInvalidQuery = errors.New("invalid query")
)

// MaxLimit is the largest page Search returns; it bounds the records decoded
// per request.
const MaxLimit = 50

// checkPage is the rule every paged read shares: 1 to MaxLimit records
// from a non-negative offset.
func checkPage(limit, offset int) error {
	if limit < 1 || limit > MaxLimit || offset < 0 {
		return fmt.Errorf("%w: limit %d, offset %d", ErrInvalidQuery, limit, offset)
	}
	return nil
}

// checkQuery is checkPage, and facets only of dimensions a search counts.
func checkQuery(q Query) error {
	for d := range NumDims {
		if q.Facets.Has(d) && !d.Facetable() {
			return fmt.Errorf("%w: no facet %s", ErrInvalidQuery, d.Name())
		}
	}
	if q.Facets>>NumDims != 0 {
		return fmt.Errorf("%w: facets %b", ErrInvalidQuery, q.Facets)
	}
	if err := checkSort(q); err != nil {
		return err
	}
	return checkPage(q.Limit, q.Offset)
}

// Index is an open, read-only, memory-mapped index file. Safe for concurrent use.
type Index struct {
	db   *bolt.DB
	Tree *pagetree.Tree // the same file, read in place by searches
	// readers is held (read) by searches reading the tree without a bbolt
	// transaction, so that Close does not unmap under them.
	readers sync.RWMutex
	path    string
	meta    format.Meta
	orders  [NumDims]directoryOrders // the directory's orders, built on first use
	slots   [maxSlots]slot           // the rooms' lazy state (Slot)
	// blocks locate the record blocks of the stations, station_json,
	// group_of and upstream_json buckets by number, built on first use
	// (see blockLocator).
	blocks  [4]blockLocator
	groups  lazyGroupIndex // for distinct searches, built on first use
	derived derivedValues  // what callers derive once (Derived)
	filters keyFilters     // of the buckets searches ask in vain, built by Warm
	tokens  tokenTables    // the token buckets in memory, built by Warm
	copied  copiedSums     // the sums OpenServing left for VerifyCopied
}

// Close releases the file. No call may be in flight: bitmaps read during a
// call point into the mapping that Close unmaps (Holder arranges this).
func (ix *Index) Close() error {
	ix.copied.release()
	// bbolt's Close waits for the read transactions in flight, and every
	// search reads the tree inside one: unmapping after it is safe.
	if err := ix.db.Close(); err != nil {
		return fmt.Errorf("close index %s: %w", ix.path, err)
	}
	ix.readers.Lock()
	defer ix.readers.Unlock()
	if err := ix.Tree.Unmap(); err != nil {
		return fmt.Errorf("close index %s: %w", ix.path, err)
	}
	return nil
}

// Meta describes the snapshot.
func (ix *Index) Meta() format.Meta { return ix.meta }

// HasRBAPI reports whether the index has the Radio Browser API's data
// (format.Meta.RBAPI: built with stationdex index -compat). Without it
// every read of package rbapi fails with rbapi.ErrNoSection.
func (ix *Index) HasRBAPI() bool { return ix.Has(format.SectionRBAPI) }

// Has reports whether the file has the optional sections s (Open checked
// that their buckets are there exactly as the meta document declares).
func (ix *Index) Has(s format.Sections) bool { return ix.meta.Sections().Has(s) }

// Path is the file the index was opened from.
func (ix *Index) Path() string { return ix.path }

// Query is a validated search request: Limit 1..50, Offset >= 0. See
// Filters for what each dimension's values mean.
type Query struct {
	Q      string
	Filter Filters
	// BitrateMin and BitrateMax bound the bitrate in kbps; 0 is no bound.
	// A station of unknown bitrate never passes a bound.
	BitrateMin, BitrateMax int
	// Near, when set, keeps the stations within its radius.
	Near *Near
	// Facets asks for value counts of the whole search (see Facets), the
	// FacetLimit (1..MaxFacetLimit) best of each; only facetable
	// dimensions.
	Facets     DimSet
	FacetLimit int
	// Distinct asks for one result per group of entries (see
	// distinct.go): Total and the facets then count groups.
	Distinct bool
	// CountVariants asks for Result.Variants.
	CountVariants bool
	// Suggest asks for "did you mean" searches when the query has words
	// and no result (see Suggestions).
	Suggest bool
	// Sort is the order of the results (sort.go): relevance, the tiers,
	// unless another is asked for.
	Sort          Sort
	Limit, Offset int
}

// Near is a great-circle distance filter around a position in degrees.
type Near struct {
	Lat, Lon, RadiusKm float64
}

// Result is one page: Total matching stations and the records of the page,
// in rank order (none from SearchJSON, which gives their JSON instead); the
// facets and suggestions asked for.
type Result struct {
	Total int
	// Entries is the number of matching records: Total, or with
	// Distinct the entries its groups stand for.
	Entries int
	// Variants, with CountVariants, is for each station of the page the
	// number of other entries in its group (whether they match or not).
	Variants []int
	// Distances, with SortDistance, is each station's distance in km
	// from the query's position (the JSON's distance_km).
	Distances   []float64
	Stations    []format.Record
	Facets      Facets
	Suggestions []Suggestion
	Timing      Timing
	// MemoFacets is how many of the facets came from the facet memo: its
	// hit rate, for monitoring (and tests).
	MemoFacets int
	// MemoBounded is how many of the counted facets the memo's bounds
	// ended before the values ran out (tests read it).
	MemoBounded int
}

// Timing splits the time Search spent, for the metrics: Bitmap is looking up
// and combining posting lists and locating the page, Decode is reading and
// decoding the page's records (SearchJSON: copying their stored JSON).
type Timing struct {
	Bitmap, Decode time.Duration
}

// Station reads one station by id; ErrNotFound when absent.
func (ix *Index) Station(id format.UUID) (format.Record, error) {
	var r format.Record
	err := ix.WithSearch(func(s *Search) error {
		n, err := RecordOf(s.Bucket(format.BucketIDs), id)
		if err != nil {
			return err
		}
		rr := s.Records(format.BucketStations)
		if err := rr.decode(n, &r); err != nil {
			return fmt.Errorf("station %s: %w", id, err)
		}
		if r.ID != id {
			return fmt.Errorf("station %s: %w: ids bucket points at record %d of %s", id, format.ErrCorrupt, n, r.ID)
		}
		return nil
	})
	if err != nil {
		return format.Record{}, err
	}
	return r, nil
}

// withSearch runs fn with a search's workspace in a read of the page
// tree: a search, and the reads of a station page (the station, its
// nearby stations, its group), take no bbolt transaction, whose Begin
// checks the meta page's FNV sum every time (a facet column's one-off
// build opens its own).
func (ix *Index) WithSearch(fn func(s *Search) error) error {
	w := GetWorkspace()
	defer w.Release()
	s := w.NewSearch(ix)
	return ix.Read(func() error { return fn(s) })
}

// recordOf is the record number of station id in the ids bucket;
// ErrNotFound when absent.
func RecordOf(ids ValueGetter, id format.UUID) (uint32, error) {
	rec := ids.Get(id[:])
	if rec == nil {
		return 0, ErrNotFound
	}
	n, err := format.ParseRecordKey(rec)
	if err != nil {
		return 0, fmt.Errorf("station %s: %w", id, err)
	}
	return n, nil
}

// WarmGroups builds the group index now, which the first distinct search
// would otherwise do (query.Index.Warm runs it beside the rooms' warm-ups).
func (ix *Index) WarmGroups() error { return warmGroups(ix) }

// WarmLookups builds the key filters and the token tables, which searches
// do without until they are built: query.Index.Warm runs it last, as at 5M
// stations the facets come first on two cores.
func (ix *Index) WarmLookups() error {
	return errors.Join(ix.Read(ix.buildKeyFilters), ix.Read(ix.buildTokenTables))
}

// Suggestion is a "did you mean" search: the query with one or more words
// replaced by close words of the index, and how many stations it finds
// with the same filters.
type Suggestion struct {
	Q     string
	Total int
	Edits int
}

// Facet limits: the values of each facet a search returns.
const (
	DefaultFacetLimit = 10
	MaxFacetLimit     = 50
)

// Facets are the value counts of one search, by dimension, for the
// facets asked for (nil lists for the others).
type Facets [NumDims][]FacetCount

// FacetCount is one value of a facet: the value its filter takes (an
// alpha-2 code, an ISO 639 code, a folded genre tag or location, a codec),
// a label for people, and the number of matching stations that have it.
//
// A facet counts the stations matching the whole search. For a dimension
// the search itself filters on, that filter is left out of the count: the
// value counts as if it replaced the search's own value, which is what a
// link setting that filter returns. So the filtered value is still listed
// (with the search's total) and so are its alternatives.
type FacetCount struct {
	Value, Label string
	Count        int
}

// derivedValues holds what callers derive from a snapshot once (see
// Derived), by key: a sync.Map, as the keys are written once and read on
// every request that needs them.
type derivedValues struct {
	values sync.Map // string -> *derivedValue
}

type derivedValue struct {
	once sync.Once
	v    any
	err  error
}

// Derived is the value build makes of the index for key, made on the
// first call and kept as long as the index: a snapshot never changes, so
// what is computed from it alone (the Radio Browser API's lists, folded and
// sorted) is computed once, and goes when a reload replaces the index.
// Concurrent first calls for one key wait for one build; an error is kept
// like a value (an index's errors are damage, which stays).
func (ix *Index) Derived(key string, build func(ix *Index) (any, error)) (any, error) {
	e, ok := ix.derived.values.Load(key)
	if !ok {
		e, _ = ix.derived.values.LoadOrStore(key, &derivedValue{})
	}
	d := e.(*derivedValue)
	d.once.Do(func() { d.v, d.err = build(ix) })
	return d.v, d.err
}

// A SlotID names one room's lazy state in every index (Index.Slot): a
// room asks for one once, at its package's initialisation (NewSlot).
type SlotID int

// maxSlots bounds the rooms that keep state in an index.
const maxSlots = 4

// slotCount is the number of slots handed out.
var slotCount atomic.Int32

// NewSlot hands out a slot; call it from a package-level var, so that
// every slot is given before any index opens.
func NewSlot() SlotID {
	n := slotCount.Add(1) - 1
	if n >= maxSlots {
		panic("query/core: more than maxSlots rooms keep state in an index")
	}
	return SlotID(n)
}

// slot is one room's state in one index.
type slot struct {
	once sync.Once
	v    any
}

// Slot is the state of the room that owns id in this index, made by make
// on first use and kept as long as the index: the facet columns and the
// facet memo live there, owned by package facets, not in Index. Unlike
// Derived it takes no lock and no key, for a search's path.
func (ix *Index) Slot(id SlotID, make func() any) any {
	s := &ix.slots[id]
	s.once.Do(func() { s.v = make() })
	return s.v
}

// String describes q in one line, every part it sets, for test failures
// and logs.
func (q Query) String() string {
	near := "none"
	if q.Near != nil {
		near = fmt.Sprintf("%g,%g r=%g", q.Near.Lat, q.Near.Lon, q.Near.RadiusKm)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "q=%q", q.Q)
	for d := range NumDims {
		if len(q.Filter[d]) > 0 {
			fmt.Fprintf(&b, " %s=%q", d.Name(), q.Filter[d])
		}
	}
	fmt.Fprintf(&b, " bitrate=%d..%d near=%s limit=%d offset=%d", q.BitrateMin, q.BitrateMax, near, q.Limit, q.Offset)
	if q.Distinct {
		b.WriteString(" distinct")
	}
	if q.Sort != SortRelevance {
		b.WriteString(" sort=" + q.Sort.String())
	}
	return b.String()
}

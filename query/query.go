// Package query is the door callers use to search a stationdex index file:
// Open, the Index's searches and reads, the directory and the Holder that
// lets a new snapshot replace the one being served. The engine itself is in
// the packages below it: query/core (the index and the search) and the
// rooms that import it, query/facets (the facet counts), query/groups (a
// station's variants), query/pageparts (what a station page shows of other
// stations, as the indexer stored it), query/spell (the dictionary and the
// "did you mean" searches), query/check (the file's checks) and
// query/rbapi (the Radio Browser API's side of the engine). This package
// wires them and names what callers use.
//
// File map:
//   - query.go: Index, Open, and the names callers use, forwarded to the
//     engine's packages
//   - search.go: Search and SearchJSON, the search with its facets and
//     suggestions
//   - rbapi.go: the Radio Browser API's reads as methods of Index
//   - holder.go: the Holder, which serves one index while a new one
//     replaces it
package query

import (
	"errors"

	"stationdex/internal/format"
	"stationdex/query/check"
	"stationdex/query/core"
	"stationdex/query/facets"
	"stationdex/query/groups"
	"stationdex/query/pageparts"
	"stationdex/query/rbapi"
	"stationdex/query/spell"
)

// Index is an open, read-only, memory-mapped index file (core.Index),
// with the reads of the engine's rooms. Safe for concurrent use.
type Index struct {
	*core.Index
}

// Open opens an index file read-only after checking it (core.Open).
func Open(path string) (*Index, error) {
	c, err := core.Open(path)
	if err != nil {
		return nil, err
	}
	return &Index{Index: c}, nil
}

// OpenServing opens an index read-only for a server to answer from at
// once, leaving the sums of the buckets it only copies to clients to
// VerifyCopied (core.OpenServing).
func OpenServing(path string) (*Index, error) {
	c, err := core.OpenServing(path)
	if err != nil {
		return nil, err
	}
	return &Index{Index: c}, nil
}

// Warm builds what an index otherwise builds on its first faceted,
// misspelt, distinct or Radio Browser API search: the facet columns and
// memo (facets.Warm), the dictionary, the group index and the Radio
// Browser API's folded names; then the key filters and token tables
// (core.Index.WarmLookups), last, as searches do without them until they
// are built. The parts are built one after another, not side by side: a
// node warms up while it answers, and a search that needs a part before
// it is built builds it (or waits for it) as it would without Warm.
func (ix *Index) Warm() error {
	var errs []error
	for _, part := range []func() error{
		func() error { return facets.Warm(ix.Index) },
		func() error { _, err := spell.Dictionary(ix.Index); return err },
		ix.WarmGroups,
		func() error { return rbapi.Warm(ix.Index) },
		ix.WarmLookups,
	} {
		errs = append(errs, part())
	}
	return errors.Join(errs...)
}

// Variants returns the other entries of the group of station id
// (groups.Variants).
func (ix *Index) Variants(id format.UUID) (vs []format.Record, total int, err error) {
	return groups.Variants(ix.Index, id)
}

// Nearby returns up to k (at most format.NearbyPerStation) stations
// nearest to station self, nearest first, as stored by the indexer
// (pageparts.Nearby): what core.Index.Nearby's search finds, read.
func (ix *Index) Nearby(self *format.Record, k int) ([]NearStation, error) {
	return pageparts.Nearby(ix.Index, self, k)
}

// Derived is the value build makes of the index for key, made on the
// first call and kept as long as the index (core.Index.Derived).
func (ix *Index) Derived(key string, build func(ix *Index) (any, error)) (any, error) {
	return ix.Index.Derived(key, func(*core.Index) (any, error) { return build(ix) })
}

// The index's requests and answers.
type (
	Query       = core.Query
	Result      = core.Result
	Timing      = core.Timing
	Near        = core.Near
	NearStation = core.NearStation
	Filters     = core.Filters
	Dim         = core.Dim
	DimSet      = core.DimSet
	Facets      = core.Facets
	FacetCount  = core.FacetCount
	Suggestion  = core.Suggestion
	Listing     = core.Listing
	Order       = core.Order
	Sort        = core.Sort
	CheckReport = check.Report
	BucketCount = check.BucketCount
)

// The Radio Browser API's requests and answers.
type (
	Tri            = rbapi.Tri
	Contains       = rbapi.Contains
	Position       = rbapi.Position
	RBAPISelect    = rbapi.Select
	RBAPISelection = rbapi.Selection
	RBAPICount     = rbapi.Count
	RBAPIState     = rbapi.State
	RBAPIOrder     = rbapi.Order
)

// Dimensions.
const (
	DimCountry  = core.DimCountry
	DimLanguage = core.DimLanguage
	DimGenre    = core.DimGenre
	DimLocation = core.DimLocation
	DimCodec    = core.DimCodec
	DimHTTPS    = core.DimHTTPS
	NumDims     = core.NumDims
)

// SortOf is the search order named by the sort parameter ("" is
// relevance).
func SortOf(name string) (Sort, bool) { return core.SortOf(name) }

// Limits.
const (
	MaxLimit          = core.MaxLimit
	MaxVariants       = groups.MaxVariants
	MaxFilterRunes    = core.MaxFilterRunes
	MaxSuggestions    = spell.MaxSuggestions
	DefaultFacetLimit = core.DefaultFacetLimit
	MaxFacetLimit     = core.MaxFacetLimit
)

// Directory orders.
const (
	ByStations = core.ByStations
	ByName     = core.ByName
)

// The Radio Browser API's three-valued conditions and orders.
const (
	Either               = rbapi.Either
	Yes                  = rbapi.Yes
	No                   = rbapi.No
	OrderName            = rbapi.OrderName
	OrderURL             = rbapi.OrderURL
	OrderHomepage        = rbapi.OrderHomepage
	OrderFavicon         = rbapi.OrderFavicon
	OrderTags            = rbapi.OrderTags
	OrderCountry         = rbapi.OrderCountry
	OrderState           = rbapi.OrderState
	OrderLanguage        = rbapi.OrderLanguage
	OrderVotes           = rbapi.OrderVotes
	OrderCodec           = rbapi.OrderCodec
	OrderBitrate         = rbapi.OrderBitrate
	OrderLastCheckOK     = rbapi.OrderLastCheckOK
	OrderLastCheckTime   = rbapi.OrderLastCheckTime
	OrderClickTimestamp  = rbapi.OrderClickTimestamp
	OrderClickCount      = rbapi.OrderClickCount
	OrderClickTrend      = rbapi.OrderClickTrend
	OrderChangeTimestamp = rbapi.OrderChangeTimestamp
	OrderRandom          = rbapi.OrderRandom
)

// Sentinel errors.
var (
	ErrNotFound     = core.ErrNotFound
	ErrNoRBAPI      = rbapi.ErrNoSection
	ErrInvalidQuery = core.ErrInvalidQuery
	ErrNoDirectory  = core.ErrNoDirectory
	ErrNoFile       = core.ErrNoFile
)

// RBAPIOrders names the Radio Browser API's orders.
var RBAPIOrders = rbapi.Orders

// Check reads every bucket, record and posting list of the file at path.
func Check(path string) (CheckReport, error) { return check.Check(path) }

// DimsOf is the set of the dimensions ds.
func DimsOf(ds ...Dim) DimSet { return core.DimsOf(ds...) }

// Filterable reports whether a key of d's folded bucket selects exactly its
// stations as a filter value.
func Filterable(d Dim, key string) bool { return core.Filterable(d, key) }

// ListingKey is the key of d's directory bucket a label of d is filed under.
func ListingKey(d Dim, label string) string { return core.ListingKey(d, label) }

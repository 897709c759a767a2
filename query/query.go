// Package query is the door callers use to search a stationdex index file:
// Open, the Index's searches and reads, the directory and the Holder that
// lets a new snapshot replace the one being served. The engine itself is in
// the packages below it (query/core and the rooms that import it); this
// package names what callers use.
//
// File map:
//   - query.go: the names callers use, forwarded to the engine's packages
package query

import (
	"stationdex/query/check"
	"stationdex/query/core"
)

// The index and its requests.
type (
	Index       = core.Index
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
	Source      = core.Source
	Holder      = core.Holder
	CheckReport = check.Report
	BucketCount = check.BucketCount
)

// The Radio Browser API's requests and answers.
type (
	Tri            = core.Tri
	Contains       = core.Contains
	Position       = core.Position
	UpstreamSelect = core.UpstreamSelect
	UpstreamSet    = core.UpstreamSet
	UpstreamCount  = core.UpstreamCount
	UpstreamState  = core.UpstreamState
	UpstreamOrder  = core.UpstreamOrder
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

// Limits.
const (
	MaxLimit          = core.MaxLimit
	MaxVariants       = core.MaxVariants
	MaxFilterRunes    = core.MaxFilterRunes
	MaxSuggestions    = core.MaxSuggestions
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
	Either               = core.Either
	Yes                  = core.Yes
	No                   = core.No
	OrderName            = core.OrderName
	OrderURL             = core.OrderURL
	OrderHomepage        = core.OrderHomepage
	OrderFavicon         = core.OrderFavicon
	OrderTags            = core.OrderTags
	OrderCountry         = core.OrderCountry
	OrderState           = core.OrderState
	OrderLanguage        = core.OrderLanguage
	OrderVotes           = core.OrderVotes
	OrderCodec           = core.OrderCodec
	OrderBitrate         = core.OrderBitrate
	OrderLastCheckOK     = core.OrderLastCheckOK
	OrderLastCheckTime   = core.OrderLastCheckTime
	OrderClickTimestamp  = core.OrderClickTimestamp
	OrderClickCount      = core.OrderClickCount
	OrderClickTrend      = core.OrderClickTrend
	OrderChangeTimestamp = core.OrderChangeTimestamp
	OrderRandom          = core.OrderRandom
)

// Sentinel errors.
var (
	ErrNotFound     = core.ErrNotFound
	ErrNoCompat     = core.ErrNoCompat
	ErrInvalidQuery = core.ErrInvalidQuery
	ErrNoDirectory  = core.ErrNoDirectory
	ErrNoFile       = core.ErrNoFile
)

// UpstreamOrders names the Radio Browser API's orders.
var UpstreamOrders = core.UpstreamOrders

// Open opens an index file read-only after checking it.
func Open(path string) (*Index, error) { return core.Open(path) }

// NewHolder returns a Holder serving ix; ix may be nil.
func NewHolder(ix *Index) *Holder { return core.NewHolder(ix) }

// Check reads every bucket, record and posting list of the file at path.
func Check(path string) (CheckReport, error) { return check.Check(path) }

// DimsOf is the set of the dimensions ds.
func DimsOf(ds ...Dim) DimSet { return core.DimsOf(ds...) }

// Filterable reports whether a key of d's folded bucket selects exactly its
// stations as a filter value.
func Filterable(d Dim, key string) bool { return core.Filterable(d, key) }

// ListingKey is the key of d's directory bucket a label of d is filed under.
func ListingKey(d Dim, label string) string { return core.ListingKey(d, label) }

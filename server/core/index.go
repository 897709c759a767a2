package core

import (
	"io"

	"stationdex/internal/format"
	"stationdex/query"
)

// Index is the door through which the server reaches the engine: every
// question a request asks of the snapshot it is answered from, declared
// here so that the rooms hold a snapshot as this and nothing more. It is
// asked a few times per request, never per record, so the interface costs
// nothing the engine's own work would notice. *query.Index is the one
// implementation.
type Index interface {
	// Meta is the snapshot's meta document; HasRBAPI says whether the
	// file has the Radio Browser API's section.
	Meta() format.Meta
	HasRBAPI() bool
	// Derived is a value made once per snapshot from it.
	Derived(key string, build func(*query.Index) (any, error)) (any, error)

	// The station API and the pages.
	Search(q query.Query) (query.Result, error)
	SearchJSON(q query.Query, dst []byte) (query.Result, []byte, error)
	Station(id format.UUID) (format.Record, error)
	StationJSON(id format.UUID, dst []byte) ([]byte, error)
	Variants(id format.UUID) ([]format.Record, int, error)
	Nearby(self *format.Record, k int) ([]query.NearStation, error)

	// The directories and the sitemap.
	Listings(d query.Dim, o query.Order, offset, limit int) (int, []query.Listing, error)
	Listing(d query.Dim, key string) (query.Listing, bool, error)
	ListedStations(d query.Dim, key string, offset, limit int) (query.Result, error)
	EachListedKey(d query.Dim, offset, limit int, fn func(key []byte) error) error
	ListingCount(d query.Dim) (int, error)
	EachStationID(offset, limit int, fn func(format.UUID) error) error

	// The files kept in the snapshot (the dumps).
	File(name string, fn func(content io.ReadSeeker, size int64) error) error
	Manifest() (format.FilesManifest, error)

	// The Radio Browser API.
	RBAPIJSON(id format.UUID, dst []byte) ([]byte, error)
	RBAPIStations(sel query.RBAPISelect) (*query.RBAPISelection, error)
	RBAPIPageOf(u *query.RBAPISelection, offset, limit int, dst []byte) ([]byte, int, error)
	RBAPIWorking() (int, error)
	RBAPICounts(d query.Dim, checkOK bool) ([]query.RBAPICount, error)
	RBAPIStates(checkOK bool) ([]query.RBAPIState, error)
}

var _ Index = (*query.Index)(nil)

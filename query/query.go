// Package query answers searches and reads from a stationdex index file.
//
// CONTRACT STUB: signatures agreed between packages; bodies are being written.
package query

import (
	"errors"

	"stationdex/indexer/format"
)

// ErrNotFound: no station with that id in this snapshot.
var ErrNotFound = errors.New("station not found")

// Index is an open, read-only, memory-mapped index file. Safe for concurrent use.
type Index struct{}

// Open opens path read-only and verifies magic, version and buckets.
func Open(path string) (*Index, error) { panic("unimplemented") }

// Close releases the file. No call may be in flight.
func (ix *Index) Close() error { panic("unimplemented") }

// Meta describes the snapshot.
func (ix *Index) Meta() format.Meta { panic("unimplemented") }

// Query is a validated search request. Country is ISO alpha-2 (any case),
// Language and Genre free text as the user gave them, Limit 1..50, Offset >= 0.
type Query struct {
	Q, Country, Language, Genre string
	Limit, Offset               int
}

// Result is one page: Total matching stations and the records of the page,
// in rank order.
type Result struct {
	Total    int
	Stations []format.Record
}

// Search runs q.
func (ix *Index) Search(q Query) (Result, error) { panic("unimplemented") }

// Station reads one station by id; ErrNotFound when absent.
func (ix *Index) Station(id format.UUID) (format.Record, error) { panic("unimplemented") }

package server

import (
	"stationdex/indexer/format"
	"stationdex/indexer/stationjson"
)

// Station is the JSON form of a station, as in the spec. It lives in
// package stationjson, with the service's URLs, because the indexer writes
// the data dumps with the same encoder: a dumped station is byte for byte
// the API's.
type Station = stationjson.Station

// NewStation derives the JSON station from an index record; base is the
// public base URL without a trailing slash.
func NewStation(base string, r *format.Record) Station { return stationjson.New(base, r) }

// nullable is nil for "", for the spec's "string or null" fields.
func nullable(s string) *string { return stationjson.Nullable(s) }

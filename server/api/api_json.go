package api

import (
	"strconv"

	"stationdex/internal/stationjson"
)

// AppendJSON appends the search envelope, stations included.
func (e *SearchEnvelope) AppendJSON(dst []byte) []byte {
	dst = e.appendHead(dst)
	dst = append(dst, `,"q":`...)
	dst = stationjson.AppendString(dst, e.Q)
	dst = e.appendFilters(dst)
	dst = strconv.AppendInt(append(dst, `,"total":`...), int64(e.Total), 10)
	if e.Entries != nil {
		dst = strconv.AppendInt(append(dst, `,"entries":`...), int64(*e.Entries), 10)
	}
	dst = strconv.AppendInt(append(dst, `,"limit":`...), int64(e.Limit), 10)
	dst = strconv.AppendInt(append(dst, `,"offset":`...), int64(e.Offset), 10)
	dst = append(dst, `,"results":[`...)
	if e.stored.ok {
		dst = e.stored.append(dst)
	}
	for i := range e.Results {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = e.Results[i].AppendJSON(dst)
	}
	dst = appendNullable(append(dst, `],"next":`...), e.Next)
	dst = e.appendFacetsAndSuggestions(dst)
	return append(dst, '}')
}

func (e *SearchEnvelope) appendHead(dst []byte) []byte {
	return appendHead(dst, e.SchemaVersion, e.SnapshotAt, e.Source, e.Ranking)
}

// AppendJSON appends the single-station envelope.
func (e *StationEnvelope) AppendJSON(dst []byte) []byte {
	dst = appendHead(dst, e.SchemaVersion, e.SnapshotAt, e.Source, "")
	dst = append(dst, `,"station":`...)
	if e.stored.ok {
		dst = e.stored.append(dst)
	} else {
		dst = e.Station.Station.AppendJSON(dst)
	}
	// The station object is reopened for its variants: its closing
	// brace is the last byte either way.
	dst = appendVariants(dst[:len(dst)-1], e.Station.Variants, e.Station.VariantsTotal)
	return append(dst, "}}"...)
}

// appendHead opens an envelope with the fields every response starts
// with; ranking only when given.
func appendHead(dst []byte, schema, snapshot, source, ranking string) []byte {
	dst = stationjson.AppendString(append(dst, `{"schema_version":`...), schema)
	dst = stationjson.AppendString(append(dst, `,"snapshot_at":`...), snapshot)
	dst = stationjson.AppendString(append(dst, `,"source":`...), source)
	if ranking != "" {
		dst = stationjson.AppendString(append(dst, `,"ranking":`...), ranking)
	}
	return dst
}

func appendNullable(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return stationjson.AppendString(dst, *s)
}

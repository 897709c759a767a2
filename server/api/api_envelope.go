package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"stationdex/internal/dim"
	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/query"
	"stationdex/server/core"
	"stationdex/server/params"
)

// The search envelope in one place: its fields, how a search fills them
// and how the filter echoes are written (api_json.go writes the rest, in
// the same order). The dimensions' echoes are written from their rows in
// dim.Rows, so that a new dimension is echoed without a change here.

// SearchEnvelope is the spec's search response. Field order is the spec's.
type SearchEnvelope struct {
	SchemaVersion string `json:"schema_version"`
	SnapshotAt    string `json:"snapshot_at"`
	Source        string `json:"source"`
	Ranking       string `json:"ranking"`
	Q             string `json:"q"`
	// Filters echoes each dimension's filter as given, after q: the
	// dimensions of schema 1.0 (dim.Param.EchoAlways) always, null when
	// absent, the others after radius_km and only when given, so that a
	// search without them answers as before (appendEchoes).
	Filters    query.Filters      `json:"-"`
	BitrateMin *int               `json:"bitrate_min"`
	BitrateMax *int               `json:"bitrate_max"`
	Near       *stationjson.Point `json:"near"`
	RadiusKm   *float64           `json:"radius_km"`
	Distinct   *bool              `json:"distinct,omitempty"`
	// Sort echoes an order other than relevance, the default.
	Sort  *string `json:"sort,omitempty"`
	Total int     `json:"total"`
	// Entries, with distinct, is the records the groups stand for.
	Entries     *int                  `json:"entries,omitempty"`
	Limit       int                   `json:"limit"`
	Offset      int                   `json:"offset"`
	Results     []stationjson.Station `json:"results"`
	Next        *string               `json:"next"`
	Facets      *facetsJSON           `json:"facets,omitempty"`
	Suggestions []suggestionJSON      `json:"suggestions"`

	// stored, when set, stands for Results: the page's stations as the
	// index stores them (query.SearchJSON), written with the base URL
	// spliced in instead of encoding Results.
	stored storedJSON
}

// SearchEnvelope builds the envelope of search p and its result.
func (s *Server) SearchEnvelope(meta format.Meta, p params.SearchParams, res query.Result) SearchEnvelope {
	env := SearchEnvelope{
		SchemaVersion: core.SchemaVersion(meta),
		SnapshotAt:    core.SnapshotAt(meta),
		Source:        meta.Source,
		Ranking:       params.Ranking,
		Q:             p.Q,
		Filters:       p.Filter,
		BitrateMin:    positive(p.BitrateMin),
		BitrateMax:    positive(p.BitrateMax),
		Total:         res.Total,
		Limit:         p.Limit,
		Offset:        p.Offset,
		Results:       make([]stationjson.Station, len(res.Stations)),
		Next:          params.NextPage(s.Base, p, res.Total),
	}
	for i := range res.Stations {
		env.Results[i] = stationjson.New(s.Base, &res.Stations[i])
	}
	if p.Near != nil {
		env.Near = &stationjson.Point{Lat: p.Near.Lat, Lon: p.Near.Lon}
		radius := p.RadiusKm // not &p.RadiusKm, which would move all of p to the heap on every search
		env.RadiusKm = &radius
	}
	if p.Distinct != "" {
		on := p.Distinct == "true"
		env.Distinct = &on
	}
	env.Sort = stationjson.Nullable(p.Sort)
	if p.IsDistinct(false) {
		entries := res.Entries
		env.Entries = &entries
	}
	env.Facets = s.facetsJSON(p, res.Facets)
	env.Suggestions = s.suggestionsJSON(p, res.Suggestions)
	return env
}

// appendFilters appends the filter echoes, as the spec orders them: the
// dimensions of schema 1.0, the bitrate and place filters, then the
// dimensions echoed only when given, then distinct and sort.
func (e *SearchEnvelope) appendFilters(dst []byte) []byte {
	dst = e.appendEchoes(dst, true)
	dst = appendNullableInt(append(dst, `,"bitrate_min":`...), e.BitrateMin)
	dst = appendNullableInt(append(dst, `,"bitrate_max":`...), e.BitrateMax)
	dst = append(dst, `,"near":`...)
	if e.Near == nil {
		dst = append(dst, "null"...)
	} else {
		dst = e.Near.AppendJSON(dst)
	}
	dst = append(dst, `,"radius_km":`...)
	if e.RadiusKm == nil {
		dst = append(dst, "null"...)
	} else {
		dst = stationjson.AppendFloat(dst, *e.RadiusKm)
	}
	dst = e.appendEchoes(dst, false)
	if e.Distinct != nil {
		dst = strconv.AppendBool(append(dst, `,"distinct":`...), *e.Distinct)
	}
	if e.Sort != nil {
		dst = stationjson.AppendString(append(dst, `,"sort":`...), *e.Sort)
	}
	return dst
}

// appendEchoes appends the echo of each dimension whose row's EchoAlways
// is always, in the table's order, typed by its parameter's value: a list
// as an array, a boolean as one, anything else as a string; null for an
// absent filter that is always echoed, nothing for one that is not.
func (e *SearchEnvelope) appendEchoes(dst []byte, always bool) []byte {
	for d := range dim.Count {
		row := &dim.Rows[d]
		if row.Param.EchoAlways != always {
			continue
		}
		given := e.Filters[d]
		if len(given) == 0 && !always {
			continue
		}
		dst = append(append(append(dst, `,"`...), row.Name...), `":`...)
		switch {
		case len(given) == 0:
			dst = append(dst, "null"...)
		case row.Param.Value == dim.List:
			dst = appendStrings(dst, given)
		case row.Param.Value == dim.Boolean:
			dst = strconv.AppendBool(dst, given[0] == "true")
		default:
			dst = stationjson.AppendString(dst, given[0])
		}
	}
	return dst
}

// UnmarshalJSON decodes an envelope AppendJSON wrote, the dimension echoes
// into Filters as their parameters are written. It refuses a field the
// envelope does not have: it reads this server's own answers, in which
// an unknown field is a fault.
func (e *SearchEnvelope) UnmarshalJSON(b []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return err
	}
	for d := range dim.Count {
		raw, ok := fields[dim.Rows[d].Name]
		if !ok {
			continue
		}
		delete(fields, dim.Rows[d].Name)
		echo, err := decodeEcho(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", dim.Rows[d].Name, err)
		}
		e.Filters[d] = echo
	}
	rest, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	type plain SearchEnvelope // without this method
	dec := json.NewDecoder(bytes.NewReader(rest))
	dec.DisallowUnknownFields()
	return dec.Decode((*plain)(e))
}

// decodeEcho is the filter values of one echo: none for null, a list's
// items, a boolean or a string as one value.
func decodeEcho(raw json.RawMessage) ([]string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case nil:
		return nil, nil
	case bool:
		return []string{strconv.FormatBool(v)}, nil
	case string:
		return []string{v}, nil
	case []any:
		items := make([]string, len(v))
		for i, item := range v {
			s, ok := item.(string)
			if !ok {
				return nil, fmt.Errorf("echo item %v is not a string", item)
			}
			items[i] = s
		}
		return items, nil
	}
	return nil, fmt.Errorf("echo %s is not null, a boolean, a string or a list", raw)
}

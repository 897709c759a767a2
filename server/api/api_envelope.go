package api

import (
	"strconv"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/query"
	"stationdex/server/core"
	"stationdex/server/params"
)

// The search envelope in one place: its fields, how a search fills them
// and how the filter echoes are written (api_json.go writes the rest, in
// the same order), so that a new filter's echo is one file's change.

// SearchEnvelope is the spec's search response. Field order is the spec's.
type SearchEnvelope struct {
	SchemaVersion string             `json:"schema_version"`
	SnapshotAt    string             `json:"snapshot_at"`
	Source        string             `json:"source"`
	Ranking       string             `json:"ranking"`
	Q             string             `json:"q"`
	Country       *string            `json:"country"`
	Language      *string            `json:"language"`
	Genre         *string            `json:"genre"`
	Codec         []string           `json:"codec"`
	BitrateMin    *int               `json:"bitrate_min"`
	BitrateMax    *int               `json:"bitrate_max"`
	Near          *stationjson.Point `json:"near"`
	RadiusKm      *float64           `json:"radius_km"`
	// Filters added after schema 1.0 are echoed only when given, so
	// that a search without them answers as before.
	Location *string `json:"location,omitempty"`
	HTTPS    *bool   `json:"https,omitempty"`
	Distinct *bool   `json:"distinct,omitempty"`
	Total    int     `json:"total"`
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
		Country:       stationjson.Nullable(p.One(query.DimCountry)),
		Language:      stationjson.Nullable(p.One(query.DimLanguage)),
		Genre:         stationjson.Nullable(p.One(query.DimGenre)),
		Location:      stationjson.Nullable(p.One(query.DimLocation)),
		Codec:         p.Filter[query.DimCodec],
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
	if https := p.One(query.DimHTTPS); https != "" {
		on := https == "true"
		env.HTTPS = &on
	}
	if p.Distinct != "" {
		on := p.Distinct == "true"
		env.Distinct = &on
	}
	if p.IsDistinct(false) {
		entries := res.Entries
		env.Entries = &entries
	}
	env.Facets = s.facetsJSON(p, res.Facets)
	env.Suggestions = s.suggestionsJSON(p, res.Suggestions)
	return env
}

// appendFilters appends the filter echoes the envelope carries after
// genre, as encoding/json writes them.
func (e *SearchEnvelope) appendFilters(dst []byte) []byte {
	dst = append(dst, `,"codec":`...)
	if e.Codec == nil {
		dst = append(dst, "null"...)
	} else {
		dst = appendStrings(dst, e.Codec)
	}
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
	if e.Location != nil {
		dst = stationjson.AppendString(append(dst, `,"location":`...), *e.Location)
	}
	if e.HTTPS != nil {
		dst = strconv.AppendBool(append(dst, `,"https":`...), *e.HTTPS)
	}
	if e.Distinct != nil {
		dst = strconv.AppendBool(append(dst, `,"distinct":`...), *e.Distinct)
	}
	return dst
}

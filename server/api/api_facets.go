package api

import (
	"strconv"

	"stationdex/internal/stationjson"
	"stationdex/query"
	"stationdex/server/core"
	"stationdex/server/params"
)

// facetsJSON is the envelope's "facets": only the facets asked for, by
// dimension, named by it, in dimension order.
type facetsJSON [query.NumDims]*[]facetEntry

// MarshalJSON writes the facets asked for as one object.
func (f *facetsJSON) MarshalJSON() ([]byte, error) { return f.appendJSON(nil), nil }

// facetEntry is one facet value with the link that selects it.
type facetEntry struct {
	Value string `json:"value"`
	Label string `json:"label"`
	Count int    `json:"count"`
	URL   string `json:"url"`
}

// suggestionJSON is one "did you mean" search.
type suggestionJSON struct {
	Q     string `json:"q"`
	Total int    `json:"total"`
	URL   string `json:"url"`
}

// facetsJSON links every counted value to this search with that filter
// set and the offset reset; nil when no facet was asked for.
func (s *Server) facetsJSON(p params.SearchParams, f query.Facets) *facetsJSON {
	if !p.Facets.Any() {
		return nil
	}
	out := &facetsJSON{}
	for d, counts := range f {
		if !p.Facets.Has(query.Dim(d)) {
			continue
		}
		entries := make([]facetEntry, len(counts))
		for j, c := range counts {
			entries[j] = facetEntry{Value: c.Value, Label: c.Label, Count: c.Count,
				URL: p.Refined(query.Dim(d), c.Value).LinkURL(s.Base, core.PathStations)}
		}
		out[d] = &entries
	}
	return out
}

// suggestionsJSON links each suggestion: this search with q replaced and
// the offset reset. Never nil: a search without suggestions has [].
func (s *Server) suggestionsJSON(p params.SearchParams, sg []query.Suggestion) []suggestionJSON {
	out := make([]suggestionJSON, len(sg))
	for i, g := range sg {
		link := p
		link.Q, link.Offset = g.Q, 0
		out[i] = suggestionJSON{Q: g.Q, Total: g.Total, URL: link.LinkURL(s.Base, core.PathStations)}
	}
	return out
}

// appendFacetsAndSuggestions appends the envelope's last fields.
func (e *SearchEnvelope) appendFacetsAndSuggestions(dst []byte) []byte {
	if e.Facets != nil {
		dst = e.Facets.appendJSON(append(dst, `,"facets":`...))
	}
	dst = append(dst, `,"suggestions":[`...)
	for i, g := range e.Suggestions {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = stationjson.AppendString(append(dst, `{"q":`...), g.Q)
		dst = strconv.AppendInt(append(dst, `,"total":`...), int64(g.Total), 10)
		dst = stationjson.AppendString(append(dst, `,"url":`...), g.URL)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// appendJSON appends the facets asked for as one object.
func (f *facetsJSON) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	first := true
	for d, entries := range f {
		if entries == nil {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(append(append(dst, '"'), query.Dim(d).Name()...), `":`...)
		dst = appendFacetEntries(dst, *entries)
	}
	return append(dst, '}')
}

func appendFacetEntries(dst []byte, entries []facetEntry) []byte {
	dst = append(dst, '[')
	for i, c := range entries {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = stationjson.AppendString(append(dst, `{"value":`...), c.Value)
		dst = stationjson.AppendString(append(dst, `,"label":`...), c.Label)
		dst = strconv.AppendInt(append(dst, `,"count":`...), int64(c.Count), 10)
		dst = stationjson.AppendString(append(dst, `,"url":`...), c.URL)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

func appendStrings(dst []byte, l []string) []byte {
	dst = append(dst, '[')
	for i, s := range l {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = stationjson.AppendString(dst, s)
	}
	return append(dst, ']')
}

func appendNullableInt(dst []byte, n *int) []byte {
	if n == nil {
		return append(dst, "null"...)
	}
	return strconv.AppendInt(dst, int64(*n), 10)
}

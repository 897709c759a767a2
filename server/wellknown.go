package server

import (
	"stationdex/indexer/format"
	"stationdex/indexer/stationjson"
	"stationdex/query"
)

// /.well-known/radio-directory.json: what this directory can do, for
// clients that discover it rather than read the guide. The limits are the
// constants the parameter parser enforces, so the document cannot promise
// more than the API accepts.

type capabilities struct {
	Name          string              `json:"name"`
	Description   string              `json:"description"`
	SchemaVersion string              `json:"schema_version"`
	SnapshotAt    string              `json:"snapshot_at"`
	Source        string              `json:"source"`
	Stations      int                 `json:"stations"`
	Auth          string              `json:"authentication"`
	OpenAPI       string              `json:"openapi"`
	Operations    []capOperation      `json:"operations"`
	Filters       map[string]capLimit `json:"filters"`
	Paging        map[string]capLimit `json:"pagination"`
	Facets        capFacets           `json:"facets"`
	Suggestions   capSuggestions      `json:"suggestions"`
	Ranking       capRanking          `json:"ranking"`
	Formats       []capFormat         `json:"formats"`
	Datasets      []capDataset        `json:"datasets"`
	Catalog       string              `json:"catalog"`
	Sitemap       string              `json:"sitemap"`
	LLMsTxt       string              `json:"llms_txt"`
	MarkdownHome  string              `json:"markdown_home"`
}

type capOperation struct {
	OperationID string   `json:"operation_id"`
	Method      []string `json:"methods"`
	URL         string   `json:"url"`
	Description string   `json:"description"`
}

// capLimit is one parameter's rule. Numbers are float64 because
// radius_km takes decimals; whole numbers still encode without a point.
// Items are what a comma-separated list may hold; Requires names the
// parameter without which this one is refused.
type capLimit struct {
	Type      string   `json:"type"`
	MaxLength int      `json:"max_length,omitempty"`
	Pattern   string   `json:"pattern,omitempty"`
	Items     []string `json:"items,omitempty"`
	Minimum   *float64 `json:"minimum,omitempty"`
	Maximum   float64  `json:"maximum,omitempty"`
	Default   *float64 `json:"default,omitempty"`
	Requires  string   `json:"requires,omitempty"`
	Accepts   string   `json:"accepts"`
}

// capFacets: the counts a search can add to its answer.
type capFacets struct {
	Dimensions []string            `json:"dimensions"`
	Parameters map[string]capLimit `json:"parameters"`
	Counting   string              `json:"counting"`
}

// capSuggestions: the corrected searches offered when one finds nothing.
type capSuggestions struct {
	When     string `json:"when"`
	MaxItems int    `json:"max_items"`
	Edits    string `json:"edits"`
	Order    string `json:"order"`
}

type capRanking struct {
	Name        string   `json:"name"`
	Tiers       []string `json:"tiers"`
	PaidListing bool     `json:"paid_placement"`
}

type capFormat struct {
	MediaType string `json:"media_type"`
	Where     string `json:"where"`
}

type capDataset struct {
	URL       string `json:"url"`
	MediaType string `json:"media_type"`
}

func nump(n float64) *float64 { return &n }

// capNearPattern is the shape of near: two decimals separated by a comma.
const capNearPattern = `^-?[0-9]+(\.[0-9]+)?,-?[0-9]+(\.[0-9]+)?$`

func (s *Server) capabilities(ix *query.Index) (any, error) {
	m := ix.Meta()
	b := s.base
	return capabilities{
		Name:          "stationdex",
		Description:   "Read-only directory of radio station metadata from a fixed snapshot. No accounts, no writes.",
		SchemaVersion: schemaVersion(m),
		SnapshotAt:    snapshotAt(m),
		Source:        m.Source,
		Stations:      m.Stations,
		Auth:          "none",
		OpenAPI:       b + pathOpenAPI,
		Operations: []capOperation{
			{"searchStations", []string{"GET", "HEAD", "OPTIONS"}, b + pathStations, "Search stations by words and filters, with facet counts and suggestions on request."},
			{"getStation", []string{"GET", "HEAD", "OPTIONS"}, b + "/api/stations/{id}", "Read one station by its UUID."},
		},
		Filters: map[string]capLimit{
			"q":        {Type: "string", MaxLength: maxQRunes, Accepts: "words; each must match a token of name, country, location, language or genre, whole or as a prefix"},
			"country":  {Type: "string", Pattern: "^[A-Za-z]{2}$", Accepts: "ISO 3166-1 alpha-2 code, any case"},
			"language": {Type: "string", MaxLength: maxFacetRunes, Accepts: "source label, ISO 639-1/639-2/639-3 code or English name, any case"},
			"genre":    {Type: "string", MaxLength: maxFacetRunes, Accepts: "source tag, any case"},
			"codec": {Type: "array", Items: format.Codecs,
				Accepts: "comma-separated codecs, any case; a station with any of them matches; write AAC+ as AAC%2B"},
			"bitrate_min": {Type: "integer", Minimum: nump(1), Maximum: maxBitrate, Accepts: "kbps; stations of unknown bitrate never match; at most bitrate_max"},
			"bitrate_max": {Type: "integer", Minimum: nump(1), Maximum: maxBitrate, Accepts: "kbps; stations of unknown bitrate never match; at least bitrate_min"},
			"near": {Type: "string", Pattern: capNearPattern,
				Accepts: "LAT,LON in decimal degrees (-90..90, -180..180); stations within radius_km along the great circle; stations without coordinates never match"},
			"radius_km": {Type: "number", Minimum: nump(minRadiusKm), Maximum: maxRadiusKm, Default: nump(defaultRadiusKm), Requires: "near", Accepts: "kilometres, decimals allowed"},
		},
		Paging: map[string]capLimit{
			"limit":  {Type: "integer", Minimum: nump(minLimit), Maximum: maxLimit, Default: nump(defaultLimit), Accepts: "results per page"},
			"offset": {Type: "integer", Minimum: nump(0), Maximum: maxOffset, Default: nump(0), Accepts: "zero-based offset; follow next"},
		},
		Facets: capFacets{
			Dimensions: facetNames[:],
			Parameters: map[string]capLimit{
				"facets": {Type: "array", Items: facetNames[:], Accepts: "comma-separated, each at most once"},
				"facet_limit": {Type: "integer", Minimum: nump(1), Maximum: query.MaxFacetLimit, Default: nump(query.DefaultFacetLimit), Requires: "facets",
					Accepts: "values per facet, most stations first, ties by value"},
			},
			Counting: "exact counts over the whole search; for a dimension the search filters on, each value counted in place of that filter; every entry's url returns its count",
		},
		Suggestions: capSuggestions{
			When:     "a search with q that finds nothing",
			MaxItems: query.MaxSuggestions,
			Edits:    "words replaced by index words at most 1 edit away (up to 4 letters) or 2 (longer); swapping neighbouring letters is one edit",
			Order:    "fewer edits, then more results, then q",
		},
		Ranking: capRanking{
			Name:  Ranking,
			Tiers: []string{"exact name match", "every word matches the name", "other matches"},
		},
		Formats: []capFormat{
			{"application/json", "API, this document, /openapi.json, /data/catalog.json, /data/stations.json"},
			{"application/x-ndjson", pathDumpNDJSON},
			{"text/html", "pages: /, /search/, station, listening and directory pages, /guide/"},
			{"text/markdown", "every page: append index.md or send Accept: text/markdown; /text/index.md"},
			{"application/xml", pathSitemap},
			{"text/plain", pathLLMs},
			{"audio/x-mpegurl", "a station's stream as an M3U playlist: /stations/{id}/" + stationM3U},
			{"audio/x-scpls", "a station's stream as a PLS playlist: /stations/{id}/" + stationPLS},
		},
		Datasets: []capDataset{
			{b + pathDumpJSON, stationjson.MediaJSON},
			{b + pathDumpNDJSON, stationjson.MediaNDJSON},
		},
		Catalog:      b + pathCatalog,
		Sitemap:      b + pathSitemap,
		LLMsTxt:      b + pathLLMs,
		MarkdownHome: b + pathMarkdownHome,
	}, nil
}

package server

import (
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

type capLimit struct {
	Type      string `json:"type"`
	MaxLength int    `json:"max_length,omitempty"`
	Pattern   string `json:"pattern,omitempty"`
	Minimum   *int   `json:"minimum,omitempty"`
	Maximum   int    `json:"maximum,omitempty"`
	Default   *int   `json:"default,omitempty"`
	Accepts   string `json:"accepts"`
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

func intp(n int) *int { return &n }

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
			{"searchStations", []string{"GET", "HEAD", "OPTIONS"}, b + pathStations, "Search stations by words and filters."},
			{"getStation", []string{"GET", "HEAD", "OPTIONS"}, b + "/api/stations/{id}", "Read one station by its UUID."},
		},
		Filters: map[string]capLimit{
			"q":        {Type: "string", MaxLength: maxQRunes, Accepts: "words; each must match a token of name, country, location, language or genre, whole or as a prefix"},
			"country":  {Type: "string", Pattern: "^[A-Za-z]{2}$", Accepts: "ISO 3166-1 alpha-2 code, any case"},
			"language": {Type: "string", MaxLength: maxFacetRunes, Accepts: "source label, ISO 639-1/639-2/639-3 code or English name, any case"},
			"genre":    {Type: "string", MaxLength: maxFacetRunes, Accepts: "source tag, any case"},
		},
		Paging: map[string]capLimit{
			"limit":  {Type: "integer", Minimum: intp(minLimit), Maximum: maxLimit, Default: intp(defaultLimit), Accepts: "results per page"},
			"offset": {Type: "integer", Minimum: intp(0), Maximum: maxOffset, Default: intp(0), Accepts: "zero-based offset; follow next"},
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

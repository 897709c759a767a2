package files

import (
	"stationdex/internal/stationjson"
	"stationdex/query"
	"stationdex/server/core"
	"stationdex/server/params"
	"strings"
)

// /.well-known/radio-directory.json: what this directory can do, for
// clients that discover it rather than read the guide. The limits are the
// constants the parameter parser enforces, so the document cannot promise
// more than the API accepts.

type Capabilities struct {
	Name          string                     `json:"name"`
	Description   string                     `json:"description"`
	SchemaVersion string                     `json:"schema_version"`
	SnapshotAt    string                     `json:"snapshot_at"`
	Source        string                     `json:"source"`
	Stations      int                        `json:"stations"`
	Auth          string                     `json:"authentication"`
	OpenAPI       string                     `json:"openapi"`
	Operations    []capOperation             `json:"operations"`
	Filters       map[string]params.CapLimit `json:"filters"`
	Paging        map[string]params.CapLimit `json:"pagination"`
	Facets        capFacets                  `json:"facets"`
	Suggestions   capSuggestions             `json:"suggestions"`
	Grouping      capGrouping                `json:"grouping"`
	Ranking       capRanking                 `json:"ranking"`
	Formats       []capFormat                `json:"formats"`
	Datasets      []capDataset               `json:"datasets"`
	Catalog       string                     `json:"catalog"`
	Sitemap       string                     `json:"sitemap"`
	LLMsTxt       string                     `json:"llms_txt"`
	MarkdownHome  string                     `json:"markdown_home"`
	Compatible    []capCompatible            `json:"compatible_apis"`
}

// capCompatible is another directory's API this node answers too.
type capCompatible struct {
	Name       string `json:"name"`
	BaseURL    string `json:"base_url"`
	Served     bool   `json:"served"`
	OpenAPITag string `json:"openapi_tag"`
	// Formats are the base URLs of the same paths in each format
	// upstream serves them in, by format name.
	Formats map[string]string `json:"formats,omitempty"`
	Notes   string            `json:"notes"`
}

type capOperation struct {
	OperationID string   `json:"operation_id"`
	Method      []string `json:"methods"`
	URL         string   `json:"url"`
	Description string   `json:"description"`
}

// capFacets: the counts a search can add to its answer.
type capFacets struct {
	Dimensions []string                   `json:"dimensions"`
	Parameters map[string]params.CapLimit `json:"parameters"`
	Counting   string                     `json:"counting"`
}

// capSuggestions: the corrected searches offered when one finds nothing.
type capSuggestions struct {
	When     string `json:"when"`
	MaxItems int    `json:"max_items"`
	Edits    string `json:"edits"`
	Order    string `json:"order"`
}

// capGrouping: the entries that are one stream or one station, and the
// search that shows each group once.
type capGrouping struct {
	Groups         string                     `json:"groups"`
	Representative string                     `json:"representative"`
	Parameters     map[string]params.CapLimit `json:"parameters"`
	Counting       string                     `json:"counting"`
}

type capRanking struct {
	Name        string   `json:"name"`
	Tiers       []string `json:"tiers"`
	PaidListing bool     `json:"paid_placement"`
	// Parameters is sort, the other orders a search may ask for.
	Parameters map[string]params.CapLimit `json:"parameters"`
}

type capFormat struct {
	MediaType string `json:"media_type"`
	Where     string `json:"where"`
}

type capDataset struct {
	URL       string `json:"url"`
	MediaType string `json:"media_type"`
}

// paramSpecs are the specs of the parameters of group g, by name.
func paramSpecs(g params.ParamGroup) map[string]params.CapLimit {
	out := map[string]params.CapLimit{}
	for i := range params.SearchParamTable {
		if row := &params.SearchParamTable[i]; row.Group == g {
			out[row.Name] = row.Spec
		}
	}
	return out
}

func (s *Server) capabilities(ix core.Index) (any, error) {
	m := ix.Meta()
	b := s.Base
	return Capabilities{
		Name:          "stationdex",
		Description:   "Read-only directory of radio station metadata from a fixed snapshot. No accounts, no writes.",
		SchemaVersion: core.SchemaVersion(m),
		SnapshotAt:    core.SnapshotAt(m),
		Source:        m.Source,
		Stations:      m.Stations,
		Auth:          "none",
		OpenAPI:       b + core.PathOpenAPI,
		Operations: []capOperation{
			{"searchStations", []string{"GET", "HEAD", "OPTIONS"}, b + core.PathStations, "Search stations by words and filters, with facet counts and suggestions on request."},
			{"getStation", []string{"GET", "HEAD", "OPTIONS"}, b + core.PathStation + "{id}", "Read one station by its UUID, with its variants: the other entries of its group (the same stream address, or the same folded name, homepage and country), at most 20, the representative first (highest bitrate, then a known codec, then the smallest id), and variants_total."},
		},
		Filters: paramSpecs(params.GroupFilter),
		Paging:  paramSpecs(params.GroupPaging),
		Facets: capFacets{
			Dimensions: params.FacetNames(),
			Parameters: paramSpecs(params.GroupFacets),
			Counting:   "exact counts over the whole search; for a dimension the search filters on, each value counted in place of that filter; every entry's url returns its count",
		},
		Suggestions: capSuggestions{
			When:     "a search with q that finds nothing",
			MaxItems: query.MaxSuggestions,
			Edits:    "words replaced by index words at most 1 edit away (up to 4 letters) or 2 (longer); swapping neighbouring letters is one edit",
			Order:    "fewer edits, then more results, then q",
		},
		Grouping: capGrouping{
			Groups: "entries with the same stream address (scheme and host in any case, default port, trailing slash aside) are one stream; " +
				"entries with the same folded name, homepage and country are one station; a group is what the two relations connect. Every entry keeps its id and page",
			Representative: "highest bitrate, then a known codec, then the smallest id; listed first among a station's variants",
			Parameters:     paramSpecs(params.GroupGrouping),
			Counting:       "with distinct=true, total counts groups, entries counts the records they stand for, and a facet value counts the groups with a matching entry that has the value",
		},
		Ranking: capRanking{
			Name:       params.Ranking,
			Tiers:      []string{"exact name match", "every word matches the name", "other matches"},
			Parameters: paramSpecs(params.GroupOrder),
		},
		Formats: []capFormat{
			{"application/json", "API, this document, /openapi.json, /data/catalog.json, /data/stations.json"},
			{"application/x-ndjson", core.PathDumpNDJSON},
			{"text/html", "pages: /, /search/, station, listening and directory pages, /guide/"},
			{"text/markdown", "every page: append index.md or send Accept: text/markdown; /text/index.md"},
			{"application/xml", core.PathSitemap},
			{"text/plain", core.PathLLMs},
			{"audio/x-mpegurl", "a station's stream as an M3U playlist: /stations/{id}/" + core.StationM3U},
			{"audio/x-scpls", "a station's stream as a PLS playlist: /stations/{id}/" + core.StationPLS},
		},
		Datasets: []capDataset{
			{b + core.PathDumpJSON, stationjson.MediaJSON},
			{b + core.PathDumpNDJSON, stationjson.MediaNDJSON},
		},
		Catalog:      b + core.PathCatalog,
		Sitemap:      b + core.PathSitemap,
		LLMsTxt:      b + core.PathLLMs,
		MarkdownHome: b + core.PathMarkdownHome,
		Compatible:   compatibleAPIs(b, ix),
	}, nil
}

// compatibleAPIs are the other directories' APIs the node answers.
func compatibleAPIs(base string, ix core.Index) []capCompatible {
	formats := map[string]string{}
	for _, prefix := range core.RBAPIPrefixes {
		formats[strings.Trim(prefix, "/")] = base + prefix
	}
	return []capCompatible{{Name: "radio-browser", BaseURL: base + core.PathRBAPI, Served: ix.HasRBAPI(), OpenAPITag: "radio-browser-compatible",
		Formats: formats,
		Notes: "the upstream directory's read paths with its station object; writes answer 403 read_only; served only when the index is built " +
			"with stationdex index -compat (else 404 compat_not_indexed); the deliberate differences are in the API guide"}}
}

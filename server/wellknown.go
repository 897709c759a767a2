package server

import (
	"strconv"
	"strings"

	"stationdex/internal/stationjson"
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
	Grouping      capGrouping         `json:"grouping"`
	Ranking       capRanking          `json:"ranking"`
	Formats       []capFormat         `json:"formats"`
	Datasets      []capDataset        `json:"datasets"`
	Catalog       string              `json:"catalog"`
	Sitemap       string              `json:"sitemap"`
	LLMsTxt       string              `json:"llms_txt"`
	MarkdownHome  string              `json:"markdown_home"`
	Compatible    []capCompatible     `json:"compatible_apis"`
}

// capCompatible is another directory's API this node answers too.
type capCompatible struct {
	Name       string `json:"name"`
	BaseURL    string `json:"base_url"`
	Served     bool   `json:"served"`
	OpenAPITag string `json:"openapi_tag"`
	Notes      string `json:"notes"`
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

// capGrouping: the entries that are one stream or one station, and the
// search that shows each group once.
type capGrouping struct {
	Groups         string              `json:"groups"`
	Representative string              `json:"representative"`
	Parameters     map[string]capLimit `json:"parameters"`
	Counting       string              `json:"counting"`
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

// limits says l's bounds, default and dependency in words, for people.
func (l capLimit) limits() string {
	var parts []string
	if l.MaxLength > 0 {
		parts = append(parts, "at most "+strconv.Itoa(l.MaxLength)+" characters")
	}
	if l.Minimum != nil {
		parts = append(parts, formatDecimal(*l.Minimum)+" to "+formatDecimal(l.Maximum))
	}
	if l.Default != nil {
		parts = append(parts, "default "+formatDecimal(*l.Default))
	}
	if len(l.Items) > 0 {
		parts = append(parts, "of "+strings.Join(l.Items, ", "))
	}
	if l.Requires != "" {
		parts = append(parts, "only with "+l.Requires)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// capNearPattern is the shape of near: two decimals separated by a comma.
const capNearPattern = `^-?[0-9]+(\.[0-9]+)?,-?[0-9]+(\.[0-9]+)?$`

// paramSpecs are the specs of the parameters of group g, by name.
func paramSpecs(g paramGroup) map[string]capLimit {
	out := map[string]capLimit{}
	for i := range searchParamTable {
		if row := &searchParamTable[i]; row.group == g {
			out[row.name] = row.spec
		}
	}
	return out
}

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
			{"getStation", []string{"GET", "HEAD", "OPTIONS"}, b + pathStation + "{id}", "Read one station by its UUID, with its variants: the other entries of its group (the same stream address, or the same folded name, homepage and country), at most 20, the representative first (highest bitrate, then a known codec, then the smallest id), and variants_total."},
		},
		Filters: paramSpecs(groupFilter),
		Paging:  paramSpecs(groupPaging),
		Facets: capFacets{
			Dimensions: facetNames(),
			Parameters: paramSpecs(groupFacets),
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
			Parameters:     paramSpecs(groupGrouping),
			Counting:       "with distinct=true, total counts groups, entries counts the records they stand for, and a facet value counts the groups with a matching entry that has the value",
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
		Compatible:   compatibleAPIs(b, ix),
	}, nil
}

// compatibleAPIs are the other directories' APIs the node answers.
func compatibleAPIs(base string, ix *query.Index) []capCompatible {
	return []capCompatible{{Name: "radio-browser", BaseURL: base + pathUpstream, Served: ix.HasCompat(), OpenAPITag: "radio-browser-compatible",
		Notes: "the upstream directory's read paths with its station object; writes answer 403 read_only; served only when the index is built " +
			"with stationdex index -compat (else 404 compat_not_indexed); the deliberate differences are in the API guide"}}
}

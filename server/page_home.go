package server

import (
	"net/http"
	"strconv"

	"stationdex/query"
)

// The home page (also the Markdown home, /text/index.md) and the API guide.

func (s *Server) homePage(_ *http.Request, ix *query.Index, _ []string) (*page, error) {
	meta := ix.Meta()
	browse := make([]link, 0, len(directories))
	for _, d := range directories {
		n, err := ix.FacetCount(d.facet)
		if err != nil {
			return nil, err
		}
		l := internalLink(d.title, d.indexURL(s.base))
		l.Note = strconv.Itoa(n) + " listed"
		browse = append(browse, l)
	}
	return &page{
		Title:   "stationdex — radio station directory",
		Heading: "stationdex: radio station directory",
		Path:    "/",
		Form:    &searchForm{Action: s.base + pathSearch},
		Blocks: []block{
			{Text: []string{"A read-only directory of " + strconv.Itoa(meta.Stations) + " radio stations from a fixed snapshot of " +
				meta.Source + ". Search order is name relevance, then alphabetical; there is no paid placement and no editorial score."}},
			{Heading: "Browse", Links: browse},
			{Heading: "For developers and agents", Links: s.resourceLinks()},
		},
	}, nil
}

// resourceLinks lists the machine-readable resources, for the home page
// and llms.txt.
func (s *Server) resourceLinks() []link {
	return []link{
		internalLink("API guide with examples", s.base+pathGuide),
		internalLink("OpenAPI 3.1 description", s.base+pathOpenAPI),
		internalLink("Directory capabilities", s.base+pathCapabilities),
		internalLink("Dataset description (DCAT and schema.org)", s.base+pathCatalog),
		internalLink("All stations as JSON", s.base+pathDumpJSON),
		internalLink("All stations as NDJSON", s.base+pathDumpNDJSON),
		internalLink("Markdown home page", s.base+pathMarkdownHome),
		internalLink("Text index for agents (llms.txt)", s.base+pathLLMs),
		internalLink("Sitemap", s.base+pathSitemap),
	}
}

func (s *Server) guidePage(_ *http.Request, ix *query.Index, _ []string) (*page, error) {
	b := s.base
	// A real id, so the example works as pasted.
	example := "{id}"
	if first, err := ix.Search(query.Query{Limit: 1}); err == nil && len(first.Stations) > 0 {
		example = first.Stations[0].ID.String()
	}
	return &page{
		Title:   "API guide | stationdex",
		Heading: "Using the stationdex API",
		Path:    pathGuide,
		Blocks: []block{
			{Text: []string{"The API is read-only JSON over HTTP GET. It needs no account, no key and no JavaScript; CORS is open to every origin. " +
				"Every response states snapshot_at (when the data snapshot was taken) and source. A response's cache time is not a verification date."}},
			{Heading: "Search stations", Text: []string{"All words of q must match a station's name, country, location, language or genre; a word also matches as a prefix. " +
				"Filters: country (two-letter ISO code), language (source label, ISO 639 code or English name), genre (source tag). " +
				"limit is 1 to 50 (default 20), offset 0 to 5000. Results come in the order name_match_then_alphabetical."},
				Code: "curl '" + b + pathStations + "?q=jazz&country=de&limit=5'\ncurl '" + b + pathStations + "?language=german&genre=news'"},
			{Heading: "Page through results", Text: []string{"Follow next until it is null; it is also null when the next page would start past offset 5000."},
				Code: "curl '" + b + pathStations + "?q=radio&limit=50&offset=50'"},
			{Heading: "Read one station", Text: []string{"By the station's UUID. An unknown id is a 404."},
				Code: "curl '" + b + pathStation + example + "'"},
			{Heading: "Errors", Text: []string{"Errors are JSON: {\"error\": code, \"message\": text}. Codes: invalid_parameter, unknown_parameter and repeated_parameter (400), " +
				"not_found (404), method_not_allowed (405), unavailable (503, retry after the Retry-After seconds) and internal (500)."},
				Code: "curl -i '" + b + pathStations + "?limit=500'"},
			{Heading: "Other formats", Text: []string{"Every page has a Markdown twin: append index.md to its URL, or send Accept: text/markdown. " +
				"Whole-directory downloads are described in the catalog; they support gzip, ETag and Range requests."},
				Code: "curl -H 'Accept: text/markdown' '" + b + "/search/?q=jazz'\ncurl --compressed -O '" + b + "/data/stations.ndjson'"},
			{Heading: "Machine-readable descriptions", Links: s.resourceLinks()},
		},
	}, nil
}

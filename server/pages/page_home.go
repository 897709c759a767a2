package pages

import (
	"net/http"
	"strconv"
	"strings"

	"stationdex/internal/format"
	"stationdex/query"
	"stationdex/server/core"
	"stationdex/server/params"
)

// The home page (also the Markdown home, /text/index.md) and the API guide.

func (s *Server) HomePage(_ *http.Request, ix core.Index, _ string) (*Page, error) {
	meta := ix.Meta()
	browse := make([]Link, 0, len(Directories))
	for _, d := range Directories {
		n, err := ix.ListingCount(d.Facet)
		if err != nil {
			return nil, err
		}
		l := internalLink(d.title, d.IndexURL(s.Base))
		l.Note = strconv.Itoa(n) + " listed"
		browse = append(browse, l)
	}
	return &Page{
		Title:   "stationdex — radio station directory",
		Heading: "stationdex: radio station directory",
		Path:    "/",
		Form:    newSearchForm(s.Base+core.PathSearch, func(string) string { return "" }),
		Blocks: []Block{
			{Text: []string{DirectoryIntro(meta) + ". Results come by name relevance, then alphabetically, or in the order you choose: A to Z, most popular " +
				"(the upstream directory's votes and clicks), nearest to a place or highest bitrate; there is no paid placement and no editorial score."}},
			{Heading: "Browse", Links: browse},
			{Heading: "For developers and agents", Links: s.resourceLinks()},
		},
	}, nil
}

// resourceLinks lists the machine-readable resources, for the home page
// and llms.txt.
func (s *Server) resourceLinks() []Link {
	return []Link{
		internalLink("API guide with examples", s.Base+core.PathGuide),
		internalLink("OpenAPI 3.1 description", s.Base+core.PathOpenAPI),
		internalLink("Directory capabilities", s.Base+core.PathCapabilities),
		internalLink("Dataset description (DCAT and schema.org)", s.Base+core.PathCatalog),
		internalLink("All stations as JSON", s.Base+core.PathDumpJSON),
		internalLink("All stations as NDJSON", s.Base+core.PathDumpNDJSON),
		internalLink("Markdown home page", s.Base+core.PathMarkdownHome),
		internalLink("Text index for agents (llms.txt)", s.Base+core.PathLLMs),
		internalLink("Sitemap", s.Base+core.PathSitemap),
	}
}

func (s *Server) GuidePage(_ *http.Request, ix core.Index, _ string) (*Page, error) {
	b := s.Base
	// A real id and a real position, so the examples work as pasted.
	example, position := "{id}", guideFallbackPosition
	if first, err := ix.Search(query.Query{Limit: core.MaxLimit}); err == nil && len(first.Stations) > 0 {
		example = first.Stations[0].ID.String()
		position = guidePosition(first.Stations)
	}
	blocks := []Block{
		{Text: []string{"The API is read-only JSON over HTTP GET. It needs no account, no key and no JavaScript; CORS is open to every origin. " +
			"Every response states snapshot_at (when the data snapshot was taken) and source. A response's cache time is not a verification date."}},
		{Heading: "Search stations", Text: []string{"All words of q must match a station's name, country, location, language or genre; a word also matches as a prefix. " +
			"Every filter narrows the search, and they combine; each parameter, with what it takes and its limits, is listed below. " +
			"A list (codec, facets) is comma-separated or the parameter repeated. Results come in the order name_match_then_alphabetical unless sort asks for another."},
			Code: "curl '" + b + core.PathStations + "?q=jazz&country=de&limit=5'\ncurl '" + b + core.PathStations + "?language=german&genre=news'\n" +
				"curl '" + b + core.PathStations + "?codec=aac,AAC%2B&bitrate_min=128'\ncurl '" + b + core.PathStations + "?location=berlin&https=true'"},
		{Heading: "Search parameters", Facts: paramFacts()},
		{Heading: "Count by " + WordList(params.FacetNames(), "or"), Text: []string{"facets=" + strings.Join(params.FacetNames(), ",") + " (any of them, each once) adds facets to the answer: " +
			"for each, the facet_limit values (1 to 50, default 10) with the most matching stations, with the value the filter takes, a label, the count " +
			"and the URL of the search narrowed to that value, which returns exactly that count. " +
			"For a filter the search already has, the count is what replacing its value would give, so the current value is listed with the search's total."},
			Code: "curl '" + b + core.PathStations + "?q=radio&facets=country,genre&facet_limit=5&limit=1'"},
		{Heading: "Search near a place", Text: []string{"near=LAT,LON in decimal degrees keeps the stations within radius_km (0.1 to 20000, default 50) " +
			"along the great circle; each station's position is in geo, null when the source has none. Stations without a position never match."},
			Code: "curl '" + b + core.PathStations + "?near=" + position + "&radius_km=100&limit=5'"},
		{Heading: "Sort the results", Text: []string{"sort=relevance is the default: the exact name, then name matches, then the other matches, each alphabetically. " +
			"sort=name is alphabetical; sort=popular puts the stations with the most votes first, then the most clicks (the upstream directory's counts, as of the snapshot); " +
			"sort=bitrate the highest bitrate first, unknown last; sort=distance, only with near, the nearest first, and each result then has distance_km. " +
			"Ties go alphabetically, so pages never overlap; next keeps the order, and the facets and total do not depend on it. Any other value is a 400."},
			Code: "curl '" + b + core.PathStations + "?q=jazz&sort=popular&limit=5'\ncurl '" + b + core.PathStations + "?near=" + position + "&radius_km=100&sort=distance&limit=5'"},
		{Heading: "When nothing matches", Text: []string{"A search with q and no result lists up to five suggestions: the same search with misspelt words " +
			"corrected, each with its total and URL, fewest corrections first. Otherwise suggestions is an empty list."},
			Code: "curl '" + b + core.PathStations + "?q=jazx'"},
		{Heading: "One station listed several times", Text: []string{"Entries with the same stream address (scheme and host in any case, default port and trailing slash aside) " +
			"are one stream; entries with the same folded name, homepage and country are one station; a group is what the two connect. " +
			"Every entry keeps its id and page. distinct=true shows each group once, as its best-ranked entry where that entry ranks: " +
			"total and the facets then count groups, and entries says how many records they stand for. Reading a station lists its variants, " +
			"the other entries of its group, representative first (highest bitrate, then a known codec, then the smallest id). " +
			"A genre's spellings are one: case, accents, spaces, hyphens, apostrophes and a leading # do not count, so genre=hip-hop also finds hiphop."},
			Code: "curl '" + b + core.PathStations + "?q=radio&distinct=true&limit=5'"},
		{Heading: "Page through results", Text: []string{"Follow next until it is null; it is also null when the next page would start past offset 5000."},
			Code: "curl '" + b + core.PathStations + "?q=radio&limit=50&offset=50'"},
		{Heading: "Read one station", Text: []string{"By the station's UUID. An unknown id is a 404."},
			Code: "curl '" + b + core.PathStation + example + "'"},
		{Heading: "Errors", Text: []string{"Errors are JSON: {\"error\": code, \"message\": text}. Codes: invalid_parameter, unknown_parameter and repeated_parameter (400), " +
			"not_found (404), method_not_allowed (405), unavailable (503, retry after the Retry-After seconds) and internal (500). " +
			"The message says what to change, for example when facet_limit comes without facets or radius_km without near."},
			Code: "curl -i '" + b + core.PathStations + "?limit=500'\ncurl -i '" + b + core.PathStations + "?radius_km=10'"},
		{Heading: "Other formats", Text: []string{"Every page has a Markdown twin: append index.md to its URL, or send Accept: text/markdown. " +
			"Whole-directory downloads are described in the catalog; they support gzip, ETag and Range requests."},
			Code: "curl -H 'Accept: text/markdown' '" + b + core.PathSearch + "?q=jazz'\ncurl --compressed -O '" + b + core.PathDumpNDJSON + "'"},
	}
	blocks = append(blocks, RBAPIBlocks(b, example, ix.HasRBAPI())...)
	blocks = append(blocks, Block{Heading: "Machine-readable descriptions", Links: s.resourceLinks()})
	return &Page{Title: "API guide | stationdex", Heading: "Using the stationdex API", Path: core.PathGuide, Blocks: blocks}, nil
}

// guideFallbackPosition is the near example when no station of the first
// page has coordinates: Lisbon.
const guideFallbackPosition = "38.7223,-9.1393"

// guidePosition is the position of the first station with coordinates, as
// the near parameter takes it.
func guidePosition(stations []format.Record) string {
	for _, st := range stations {
		if st.Geo.Known {
			return strconv.FormatFloat(st.Geo.LatDeg(), 'f', -1, 64) + "," + strconv.FormatFloat(st.Geo.LonDeg(), 'f', -1, 64)
		}
	}
	return guideFallbackPosition
}

// paramFacts lists every search parameter with what it accepts, from
// the parameter table.
func paramFacts() []Fact {
	facts := make([]Fact, len(params.SearchParamTable))
	for i := range params.SearchParamTable {
		row := &params.SearchParamTable[i]
		facts[i] = Fact{Name: row.Name, Values: []Link{{Text: CleanText(row.Spec.Accepts + row.Spec.Limits())}}}
	}
	return facts
}

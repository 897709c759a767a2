package files

import (
	"bytes"
	"net/http"

	"github.com/julienschmidt/httprouter"

	"stationdex/server/core"
	"stationdex/server/pages"
	"stationdex/server/params"
)

// /llms.txt, after the llms.txt convention (llmstxt.org): an H1 title, a
// blockquote summary, a paragraph of details, then H2 sections of links
// with notes; the Optional section can be skipped by a reader short of
// context. Links go to the Markdown twins of the pages, the API
// description and the dumps.

func (s *Server) llmsTxt(_ *http.Request, _ httprouter.Params) (string, core.Builder, error) {
	return core.PathLLMs, func(ix core.Index, dst []byte) (core.EntityHead, []byte, error) {
		return core.EntityHead{ContentType: "text/plain; charset=utf-8"}, s.appendLLMs(dst, ix), nil
	}, nil
}

func (s *Server) appendLLMs(dst []byte, ix core.Index) []byte {
	m := ix.Meta()
	b := s.Base
	out := bytes.NewBuffer(dst)
	out.WriteString("# stationdex\n\n")
	out.WriteString("> " + pages.MdText(pages.DirectoryIntro(m)+
		", with a JSON search API, HTML pages that work without JavaScript, Markdown twins of every page and whole-directory downloads.") + "\n\n")
	out.WriteString(pages.MdText("Snapshot taken "+core.SnapshotAt(m)+". "+pages.DataNotice(m.Source)+
		" Search order is name relevance, then alphabetical, unless sort asks for name, popular (the upstream's votes and clicks), distance (with near) or bitrate; there is no paid placement.") + "\n\n")
	section := func(title string, links [][3]string) {
		out.WriteString("## " + title + "\n\n")
		for _, l := range links {
			out.WriteString("- " + pages.MdLink(l[0], l[1]) + ": " + pages.MdText(l[2]) + "\n")
		}
		out.WriteString("\n")
	}
	section("API", [][3]string{
		{"API guide", b + core.PathGuide + "index.md", "how to search and read stations, count facets, search near a place, show each station once (distinct) and point Radio Browser clients at a node, with curl examples"},
		{"OpenAPI 3.1 description", b + core.PathOpenAPI, "operations searchStations and getStation (a station with its variants: the other entries of the same stream or station), parameters, limits and error codes"},
		{"Directory capabilities", b + core.PathCapabilities, "operations, filters and their limits, facets, suggestions, ranking, formats"},
		RBAPILLMsLink(b, ix.HasRBAPI()),
	})
	section("Pages", [][3]string{
		{"Home", b + core.PathMarkdownHome, "the Markdown home page"},
		{"Search", b + core.PathSearch + "index.md", "search with ?" + pages.FormQuery + "; " +
			"each station is shown once (distinct=false lists every entry, duplicates included); " +
			"results come with counts by " + pages.WordList(params.FacetNames(), "and") + " as links that narrow the search, and a search that finds nothing suggests corrected spellings"},
		{"Countries", b + "/countries/index.md", "every country with its entries and the stations they stand for, most stations first (?order=name: A to Z)"},
		{"Languages", b + "/languages/index.md", "every language label with its entries and the stations they stand for, most stations first (?order=name: A to Z)"},
		{"Genres", b + "/genres/index.md", "every genre (its spellings as one: hip hop, hip-hop, hiphop) with its entries and the stations they stand for, most stations first (?order=name: A to Z)"},
		{"Locations", b + "/locations/index.md", "every location with its entries and the stations they stand for, most stations first (?order=name: A to Z)"},
	})
	section("Data", [][3]string{
		{"stations.ndjson", b + core.PathDumpNDJSON, "every station, one JSON object per line (gzip on request)"},
		{"stations.json", b + core.PathDumpJSON, "every station as one JSON array"},
		{"Dataset catalog", b + core.PathCatalog, "schema.org Dataset with sizes, sha256, record count and licence"},
	})
	section("Optional", [][3]string{
		{"Sitemap", b + core.PathSitemap, "every station and directory page"},
	})
	return out.Bytes()
}

// RBAPILLMsLink is llms.txt's entry for the Radio Browser API:
// its stats when this node serves it, else the guide that says how a node
// does.
func RBAPILLMsLink(b string, served bool) [3]string {
	what := "the Radio Browser read API under /json/ (stations/search, stations/byuuid, stations/bytag and the other by-paths, " +
		"the lists of countries, languages, tags and codecs, url/{uuid}), for programs written for that directory, " +
		"and the same paths under /xml/, /csv/, /m3u/, /pls/, /xspf/ and /ttl/ in upstream's other formats; " +
		"its paths are in the OpenAPI description under the tag radio-browser-compatible, its differences from upstream in the API guide"
	if !served {
		return [3]string{"Radio Browser compatible API", b + core.PathGuide + "index.md",
			"not served by this node, whose index was built without stationdex index -compat: " + what}
	}
	return [3]string{"Radio Browser compatible API", b + core.PathRBAPI + "stats", what}
}

package pages

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"stationdex/query"
	"stationdex/server/core"
	"stationdex/server/params"
)

// The search page: the API's search with the API's parameter rules
// (parseSearchParams), over an HTML form. The one difference is that a
// form sends every field, so an empty field means "not given" here.

func (s *Server) SearchPage(r *http.Request, ix core.Index, _ string) (*Page, error) {
	form := formValues(s.Base+core.PathSearch, r.URL.RawQuery)
	p := &Page{Title: "Search | stationdex", Heading: "Search stations", Path: core.PathSearch, Form: form}
	raw := dropEmptyPairs(r.URL.RawQuery)
	params, err := params.ParseSearchParams(raw)
	if err != nil {
		status, e := core.ErrorStatus(err)
		p.Status, p.Error = status, e.Message
		p.Title = "Invalid search | stationdex"
		return p, nil
	}
	if raw == "" {
		p.Blocks = []Block{{Text: []string{"Type words of a station's name, place, language or genre; all words must match. " +
			"Filters take a two-letter country code, a language (name or ISO code) and a genre tag."}}}
		return p, nil
	}
	res, err := ix.Search(pageQuery(params))
	if err != nil {
		return nil, err
	}
	s.Observer.Search(res.Timing.Bitmap, res.Timing.Decode, res.Total)
	p.Query = params.CanonicalQuery()
	order := sortPhrases[params.Sort]
	results := Block{Heading: "Results", Text: []string{resultSummary(res.Total, order)}, Links: s.StationLinks(res.Stations)}
	for i, km := range res.Distances {
		results.Links[i].Note = distanceText(km) + " · " + results.Links[i].Note
	}
	if params.IsDistinct(true) {
		results.Text[0] = distinctSummary(res.Total, res.Entries, order)
		for i, n := range res.Variants {
			results.Links[i].Note = joinNote(results.Links[i].Note, moreEntries(n))
		}
	}
	p.Blocks = append([]Block{results, {Heading: "Order", Links: s.sortLinks(params)}}, s.entriesLink(params, res)...)
	p.Blocks = append(p.Blocks, s.didYouMean(params, res.Suggestions)...)
	p.Blocks = append(p.Blocks, s.refinements(params, res.Facets)...)
	api := params
	if api.IsDistinct(true) {
		api.Distinct = "true" // the API's default is every entry
	}
	p.Blocks = append(p.Blocks, Block{Links: []Link{internalLink("These results in the JSON API", api.LinkURL(s.Base, core.PathStations))}})
	p.Pager = s.searchPager(params, res.Total)
	return p, nil
}

func resultSummary(total int, order string) string {
	switch total {
	case 0:
		return "No station matches."
	case 1:
		return "1 station matches."
	}
	return strconv.Itoa(total) + " stations match, " + order + "."
}

// distinctSummary says how many stations a distinct search found and
// how many entries of the directory they stand for.
func distinctSummary(groups, entries int, order string) string {
	if groups == entries {
		return resultSummary(groups, order)
	}
	matches := strconv.Itoa(groups) + " stations match"
	if groups == 1 {
		matches = "1 station matches"
	}
	return matches + ", listed as " + strconv.Itoa(entries) +
		" entries: each is shown once, at its best place (" + order + ")."
}

// sortPhrases say each order of the search's sort parameter, by its
// value ("" is relevance, the default).
var sortPhrases = map[string]string{
	"":                  "best name matches first, then alphabetically",
	"name":              "alphabetically",
	"popular":           "most votes first, then most clicks (the upstream directory's, as of the snapshot)",
	params.SortDistance: "nearest first",
	"bitrate":           "highest bitrate first, unknown last",
}

// sortTitles name the orders in the search page's switch.
var sortTitles = map[string]string{"": "Best name match", "name": "A to Z", "popular": "Most popular",
	params.SortDistance: "Nearest", "bitrate": "Highest bitrate"}

// sortLinks offer the search in each other order, from its first page,
// the current one as text; distance only to a search near a place.
func (s *Server) sortLinks(p params.SearchParams) []Link {
	links := make([]Link, 0, len(params.SortNames))
	for i, name := range params.SortNames {
		if i == 0 {
			name = "" // relevance, the default
		}
		if name == params.SortDistance && p.Near == nil {
			continue
		}
		if name == p.Sort {
			links = append(links, Link{Text: sortTitles[name], Note: "(this page)"})
			continue
		}
		other := p
		other.Sort, other.Offset = name, 0
		links = append(links, internalLink(sortTitles[name], s.searchPageURL(other)))
	}
	return links
}

// moreEntries notes the other entries of a result's group.
func moreEntries(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return "1 more entry"
	}
	return strconv.Itoa(n) + " more entries"
}

// joinNote adds part to a result's note.
func joinNote(note, part string) string {
	if note == "" || part == "" {
		return note + part
	}
	return note + " · " + part
}

// entriesLink switches between each station once and every entry.
func (s *Server) entriesLink(p params.SearchParams, res query.Result) []Block {
	other := p
	other.Offset = 0
	if p.IsDistinct(true) {
		other.Distinct = "false"
		if res.Entries == res.Total {
			return nil
		}
		return []Block{{Links: []Link{internalLink("Every entry ("+strconv.Itoa(res.Entries)+"), duplicates included", s.searchPageURL(other))}}}
	}
	other.Distinct = ""
	return []Block{{Links: []Link{internalLink("Each station once", s.searchPageURL(other))}}}
}

// searchPager links the neighbouring pages within the reachable offsets.
func (s *Server) searchPager(p params.SearchParams, total int) *Pager {
	pg := &Pager{}
	if total > 0 && p.Offset < total {
		pg.Summary = "Stations " + strconv.Itoa(p.Offset+1) + "–" + strconv.Itoa(min(p.Offset+p.Limit, total)) + " of " + strconv.Itoa(total)
	} else {
		pg.Summary = "No stations on this page."
	}
	if p.Offset > 0 {
		prev := p
		prev.Offset = max(0, p.Offset-p.Limit)
		pg.Prev = prev.LinkURL(s.Base, core.PathSearch)
	}
	if next := params.NextPage(s.Base, p, total); next != nil {
		pg.Next = strings.Replace(*next, s.Base+core.PathStations+"?", s.Base+core.PathSearch+"?", 1)
	}
	return pg
}

// dropEmptyPairs removes "name=" pairs, which a GET form sends for every
// field left blank.
func dropEmptyPairs(rawQuery string) string {
	var kept []string
	for pair := range strings.SplitSeq(rawQuery, "&") {
		if pair == "" || strings.HasSuffix(pair, "=") && !strings.Contains(strings.TrimSuffix(pair, "="), "=") {
			continue
		}
		kept = append(kept, pair)
	}
	return strings.Join(kept, "&")
}

// formValues refills the form with what was sent, valid or not, so the
// reader can correct it. The page writer escapes it (html.go).
func formValues(action, rawQuery string) *SearchForm {
	v, _ := url.ParseQuery(rawQuery)
	return newSearchForm(action, v.Get)
}

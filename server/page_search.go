package server

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"stationdex/query"
)

// The search page: the API's search with the API's parameter rules
// (parseSearchParams), over an HTML form. The one difference is that a
// form sends every field, so an empty field means "not given" here.

func (s *Server) searchPage(r *http.Request, ix *query.Index, _ []string) (*page, error) {
	form := formValues(s.base+pathSearch, r.URL.RawQuery)
	p := &page{Title: "Search | stationdex", Heading: "Search stations", Path: pathSearch, Form: form}
	raw := dropEmptyPairs(r.URL.RawQuery)
	params, err := parseSearchParams(raw)
	if err != nil {
		status, e := errorStatus(err)
		p.Status, p.Error = status, e.Message
		p.Title = "Invalid search | stationdex"
		return p, nil
	}
	if raw == "" {
		p.Blocks = []block{{Text: []string{"Type words of a station's name, place, language or genre; all words must match. " +
			"Filters take a two-letter country code, a language (name or ISO code) and a genre tag."}}}
		return p, nil
	}
	res, err := ix.Search(pageQuery(params))
	if err != nil {
		return nil, err
	}
	s.obs.Search(res.Timing.Bitmap, res.Timing.Decode, res.Total)
	p.Query = params.canonicalQuery()
	p.Blocks = []block{{Heading: "Results", Text: []string{resultSummary(res.Total)}, Links: s.stationLinks(res.Stations)}}
	p.Blocks = append(p.Blocks, s.didYouMean(params, res.Suggestions)...)
	p.Blocks = append(p.Blocks, s.refinements(params, res.Facets)...)
	p.Blocks = append(p.Blocks, block{Links: []link{internalLink("These results in the JSON API", s.base+pathStations+"?"+params.canonicalQuery())}})
	p.Pager = s.searchPager(params, res.Total)
	return p, nil
}

func resultSummary(total int) string {
	switch total {
	case 0:
		return "No station matches."
	case 1:
		return "1 station matches."
	}
	return strconv.Itoa(total) + " stations match, best name matches first, then alphabetically."
}

// searchPager links the neighbouring pages within the reachable offsets.
func (s *Server) searchPager(p searchParams, total int) *pager {
	pg := &pager{}
	if total > 0 && p.Offset < total {
		pg.Summary = "Stations " + strconv.Itoa(p.Offset+1) + "–" + strconv.Itoa(min(p.Offset+p.Limit, total)) + " of " + strconv.Itoa(total)
	} else {
		pg.Summary = "No stations on this page."
	}
	if p.Offset > 0 {
		prev := p
		prev.Offset = max(0, p.Offset-p.Limit)
		pg.Prev = s.base + pathSearch + "?" + prev.canonicalQuery()
	}
	if next := s.nextPage(p, total); next != nil {
		pg.Next = strings.Replace(*next, s.base+pathStations+"?", s.base+pathSearch+"?", 1)
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
func formValues(action, rawQuery string) *searchForm {
	v, _ := url.ParseQuery(rawQuery)
	return newSearchForm(action, v.Get)
}

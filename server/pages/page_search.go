package pages

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"stationdex/query"
	"stationdex/server/core"
	"stationdex/server/params"
)

// The search page: the API's search with the API's parameter rules
// (parseSearchParams), over an HTML form. The one difference is that a
// form sends every field, so an empty field means "not given" here.

func (s *Server) SearchPage(r *http.Request, ix core.Index, _ string) (*Page, error) {
	m := searchModels.Get().(*searchModel)
	m.inputs = fillFormValues(&m.form, m.inputs, s.Base+core.PathSearch, r.URL.RawQuery)
	m.page = Page{Title: "Search | stationdex", Heading: "Search stations", Path: core.PathSearch, Form: &m.form, model: m}
	p := &m.page
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
		m.free()
		return nil, err
	}
	s.Observer.Search(res.Timing.Bitmap, res.Timing.Decode, res.Total)
	u := s.searchURLs(params, res)
	p.Query = u.get(u.query)
	order := sortPhrases[params.Sort]
	summary, more := resultSummary(res.Total, order), []int(nil)
	if params.IsDistinct(true) {
		summary, more = distinctSummary(res.Total, res.Entries, order), res.Variants
	}
	// The results' and the refinements' links in one array, the model's.
	links := m.links[:0]
	if need := len(res.Stations) + facetValueCount(res.Facets); cap(links) < need {
		links = make([]Link, 0, need)
	}
	links = s.appendResultLinks(links, res.Stations, res.Distances, more)
	m.summary[0] = summary
	results := Block{Heading: "Results", Text: m.summary[:], Links: links[:len(links):len(links)]}
	// The blocks in one array: results, order, every entry, did you mean,
	// a block per facet, the API's link.
	blocks := m.blocks[:0]
	if need := 5 + len(res.Facets); cap(blocks) < need {
		blocks = make([]Block, 0, need)
	}
	blocks = append(blocks, results, Block{Heading: "Order", Links: sortLinks(params, &u)})
	blocks = append(blocks, entriesLink(params, res, &u)...)
	blocks = append(blocks, s.didYouMean(params, res.Suggestions)...)
	blocks, m.links = s.refinements(blocks, links, params, res.Facets)
	m.blocks = append(blocks, Block{Links: []Link{internalLink("These results in the JSON API", u.get(u.api))}})
	p.Blocks = m.blocks
	p.Pager = searchPager(params, res.Total, &u)
	return p, nil
}

// searchModel is a search page with its form, its blocks and the links of
// its results and refinements: taken from searchModels and given back once
// the page is written (Page.free), so that a page allocates only the
// strings it cuts, not the arrays that hold them.
type searchModel struct {
	page    Page
	form    SearchForm
	inputs  []FormInput
	blocks  []Block
	links   []Link
	summary [1]string
}

var searchModels = sync.Pool{New: func() any { return new(searchModel) }}

// free clears m, keeping its arrays unless a page of many results or
// facet values grew them, and gives it back.
func (m *searchModel) free() {
	inputs, blocks, links := m.inputs[:cap(m.inputs)], m.blocks[:cap(m.blocks)], m.links[:cap(m.links)]
	clear(inputs)
	clear(blocks)
	clear(links)
	if cap(links) > maxKeptLinks {
		links = nil
	}
	if cap(blocks) > maxKeptBlocks {
		blocks = nil
	}
	*m = searchModel{inputs: inputs[:0], blocks: blocks[:0], links: links[:0]}
	searchModels.Put(m)
}

// maxKeptBlocks bounds the blocks' array a freed search model keeps.
const maxKeptBlocks = 16

// facetValueCount is how many values the facets of f list.
func facetValueCount(f query.Facets) int {
	n := 0
	for _, counts := range f {
		n += len(counts)
	}
	return n
}

// searchURLs are the search page's own query and the addresses of the
// searches it links (its other orders, every entry or each station once,
// the API, the pages before and after), cut from one string: each is the
// number of its string, -1 for none.
type searchURLs struct {
	cutText
	query, entries, api, prev, next int
	sorts                           [len(params.SortNames)]int
}

// searchURLs writes p's searchURLs, res being p's result.
func (s *Server) searchURLs(p params.SearchParams, res query.Result) searchURLs {
	var space [2048]byte
	t := cuts{b: space[:0]}
	u := searchURLs{entries: -1, prev: -1, next: -1}
	t.b = p.AppendCanonicalQuery(t.b)
	u.query = t.mark()
	page := func(q params.SearchParams) int { // searchPageURL
		q.Facets, q.FacetLimit = 0, 0
		t.b = q.AppendCanonicalQuery(append(append(append(t.b, s.Base...), core.PathSearch...), '?'))
		return t.mark()
	}
	for i, name := range params.SortNames {
		u.sorts[i] = -1
		if i == 0 {
			name = "" // relevance, the default
		}
		if name == p.Sort || name == params.SortDistance && p.Near == nil {
			continue
		}
		other := p
		other.Sort, other.Offset = name, 0
		u.sorts[i] = page(other)
	}
	other := p
	other.Offset = 0
	switch {
	case !p.IsDistinct(true):
		other.Distinct = ""
		u.entries = page(other)
	case res.Entries != res.Total:
		other.Distinct = "false"
		u.entries = page(other)
	}
	api := p
	if api.IsDistinct(true) {
		api.Distinct = "true" // the API's default is every entry
	}
	t.b = api.AppendCanonicalQuery(append(append(append(t.b, s.Base...), core.PathStations...), '?'))
	u.api = t.mark()
	if p.Offset > 0 {
		prev := p
		prev.Offset = max(0, p.Offset-p.Limit)
		t.b = prev.AppendCanonicalQuery(append(append(append(t.b, s.Base...), core.PathSearch...), '?'))
		u.prev = t.mark()
	}
	if next := p; p.Offset+p.Limit < res.Total && p.Offset+p.Limit <= core.MaxOffset { // params.NextPage's
		next.Offset = p.Offset + p.Limit
		t.b = next.AppendCanonicalQuery(append(append(append(t.b, s.Base...), core.PathSearch...), '?'))
		u.next = t.mark()
	}
	u.cutText = t.done()
	return u
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
// the current one as text; distance only to a search near a place. Their
// addresses are u's.
func sortLinks(p params.SearchParams, u *searchURLs) []Link {
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
		links = append(links, internalLink(sortTitles[name], u.get(u.sorts[i])))
	}
	return links
}

// appendMoreEntries appends the note of a result's n other entries (n >
// 0).
func appendMoreEntries(b []byte, n int) []byte {
	if n == 1 {
		return append(b, "1 more entry"...)
	}
	return append(strconv.AppendInt(b, int64(n), 10), " more entries"...)
}

// entriesLink switches between each station once and every entry.
func entriesLink(p params.SearchParams, res query.Result, u *searchURLs) []Block {
	if u.entries < 0 {
		return nil
	}
	if p.IsDistinct(true) {
		return []Block{{Links: []Link{internalLink("Every entry ("+strconv.Itoa(res.Entries)+"), duplicates included", u.get(u.entries))}}}
	}
	return []Block{{Links: []Link{internalLink("Each station once", u.get(u.entries))}}}
}

// searchPager links the neighbouring pages within the reachable offsets
// (u's).
func searchPager(p params.SearchParams, total int, u *searchURLs) *Pager {
	pg := &Pager{}
	if total > 0 && p.Offset < total {
		pg.Summary = "Stations " + strconv.Itoa(p.Offset+1) + "–" + strconv.Itoa(min(p.Offset+p.Limit, total)) + " of " + strconv.Itoa(total)
	} else {
		pg.Summary = "No stations on this page."
	}
	if u.prev >= 0 {
		pg.Prev = u.get(u.prev)
	}
	if u.next >= 0 {
		pg.Next = u.get(u.next)
	}
	return pg
}

// dropEmptyPairs removes "name=" pairs, which a GET form sends for every
// field left blank.
func dropEmptyPairs(rawQuery string) string {
	if !hasEmptyPair(rawQuery) {
		return rawQuery // nothing to drop: no slice, no join
	}
	var kept []string
	for pair := range strings.SplitSeq(rawQuery, "&") {
		if pair == "" || strings.HasSuffix(pair, "=") && !strings.Contains(strings.TrimSuffix(pair, "="), "=") {
			continue
		}
		kept = append(kept, pair)
	}
	return strings.Join(kept, "&")
}

// hasEmptyPair reports whether dropEmptyPairs drops a pair of rawQuery.
func hasEmptyPair(rawQuery string) bool {
	for pair := range strings.SplitSeq(rawQuery, "&") {
		if pair == "" || strings.HasSuffix(pair, "=") && !strings.Contains(strings.TrimSuffix(pair, "="), "=") {
			return true
		}
	}
	return false
}

// fillFormValues refills the form f with what was sent, valid or not, so
// the reader can correct it, its fields in all's array (see
// fillSearchForm), which it returns. The page writer escapes it
// (html.go). Each field's value is read from the query as url.ParseQuery
// and Get read it (sentValue), without the map.
func fillFormValues(f *SearchForm, all []FormInput, action, rawQuery string) []FormInput {
	if len(rawQuery) >= maxSentQuery {
		v, _ := url.ParseQuery(rawQuery)
		return fillSearchForm(f, all, action, v.Get, unsetFields)
	}
	return fillSearchForm(f, all, action, func(name string) string { return sentValue(rawQuery, name) }, unsetFields)
}

// maxSentQuery is the length from which a query could hold more
// parameters than url.ParseQuery takes (10,000, when it takes none).
const maxSentQuery = 9999

// sentValue is url.ParseQuery(rawQuery).Get(name) for a name that needs
// no escaping, as a form's field names: the first value of a pair whose
// name unescapes to name, leaving out the pairs ParseQuery leaves out
// (with a semicolon, or a malformed escape in name or value).
func sentValue(rawQuery, name string) string {
	for rest := rawQuery; rest != ""; {
		var pair string
		pair, rest, _ = strings.Cut(rest, "&")
		if strings.IndexByte(pair, ';') >= 0 {
			continue
		}
		key, value, _ := strings.Cut(pair, "=")
		if key != name {
			if strings.IndexByte(key, '%') < 0 && strings.IndexByte(key, '+') < 0 {
				continue
			}
			if k, err := url.QueryUnescape(key); err != nil || k != name {
				continue
			}
		}
		if strings.IndexByte(value, '%') < 0 && strings.IndexByte(value, '+') < 0 {
			return value
		}
		if v, err := url.QueryUnescape(value); err == nil {
			return v
		}
	}
	return ""
}

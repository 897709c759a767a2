package pages

import (
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"stationdex/internal/dim"
	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/query"
	"stationdex/server/core"
	"stationdex/server/params"
)

// Directory pages: per kind (countries, languages, genres, locations) an
// index of every value with its entries and the stations they stand for,
// and per value the list of
// its stations, both paged. Values are the keys of the index's facet
// buckets, so every country_url, language_urls, genre_urls and location_url
// of a station names one of these pages.

// Directory describes one kind of directory page.
type Directory struct {
	Kind  string // first path segment, a stationjson.Kind constant
	Facet query.Dim
	title string // "Genres"
	one   string // "genre"
}

// Directories are the dimensions with a directory, as their rows of the
// dimension table say, in the table's order.
var Directories = func() []Directory {
	var ds []Directory
	for d := range query.NumDims {
		if row := &dim.Rows[d]; row.Directory != nil {
			ds = append(ds, Directory{Kind: row.Dir.Kind, Facet: d, title: row.Dir.Title, one: row.Dir.One})
		}
	}
	return ds
}()

// Page sizes of the directory lists.
const (
	ValuesPerPage   = 100
	StationsPerPage = query.MaxLimit
)

func (d Directory) IndexURL(base string) string { return base + "/" + d.Kind + "/" }

// ValueURL is the page of one facet key: the country code in lower case,
// as stationjson.CountryURL builds it, else the key path-escaped.
func (d Directory) ValueURL(base, key string) string {
	if d.Facet == query.DimCountry {
		return stationjson.CountryURL(base, key)
	}
	return stationjson.KeyURL(base, d.Kind, key)
}

// lookup finds the value named by the path segment, under the bucket
// keys the segment may name, in order: the segment itself (the links the
// service makes carry the exact key; a key function is not idempotent on
// every key, e.g. one ending in a space the folding left), then the key
// the index files that spelling under (so /genres/Hip-Hop/ finds
// hiphop), made only when the segment is not a key. A country's key is
// its code in upper case.
func (d Directory) lookup(ix core.Index, segment string) (fv query.Listing, ok bool, err error) {
	if d.Facet == query.DimCountry {
		return ix.Listing(d.Facet, strings.ToUpper(segment))
	}
	if fv, ok, err = ix.Listing(d.Facet, segment); ok || err != nil {
		return fv, ok, err
	}
	return ix.Listing(d.Facet, query.ListingKey(d.Facet, segment))
}

func (s *Server) DirectoryIndex(d Directory) PageFunc {
	return func(r *http.Request, ix core.Index, _ string) (*Page, error) {
		n, err := pageNumber(r)
		if err != nil {
			return nil, err
		}
		order, err := directoryOrder(r)
		if err != nil {
			return nil, err
		}
		total, vals, err := ix.Listings(d.Facet, order, (n-1)*ValuesPerPage, ValuesPerPage)
		if err != nil {
			return nil, err
		}
		if n > 1 && len(vals) == 0 {
			return nil, errPageRange(n)
		}
		listURL, q := d.IndexURL(s.Base), OrderQuery(order)
		if q != "" {
			listURL += "?" + q
		}
		pager := newPager(listURL, n, ValuesPerPage, total, d.title)
		every := "Every " + d.one
		if pager == nil { // one page: the count is said here, not by a pager
			every = "The " + strconv.Itoa(total) + " " + strings.ToLower(d.title)
			if total == 1 {
				every = "The one " + d.one
			}
		}
		return &Page{
			Title:   d.title + " | stationdex",
			Heading: d.title,
			Path:    "/" + d.Kind + "/",
			Query:   PageParam(q, n),
			Blocks: []Block{
				{Text: []string{every + " in the directory, with the stations listed under each, " + orderNames[order] + ".",
					"As on each " + d.one + "'s page, " + sameStation + "."}},
				{Heading: "Order", Links: s.orderLinks(d, order)},
				{Heading: d.title + ", " + orderNames[order], Links: s.valueIndexLinks(d, vals)},
			},
			Pager: pager,
		}, nil
	}
}

// orderNames say how a directory index is ordered.
var orderNames = map[query.Order]string{
	query.ByStations: "most stations first",
	query.ByName:     "from A to Z",
}

// directoryOrder reads the order parameter of a directory index: absent is
// most stations first, "name" is A–Z.
func directoryOrder(r *http.Request) (query.Order, error) {
	v := r.URL.Query()["order"]
	switch {
	case len(v) == 0:
		return query.ByStations, nil
	case len(v) > 1:
		return 0, core.Errorf(core.CodeRepeatedParameter, "parameter order is given more than once; give it at most once")
	case v[0] == "name":
		return query.ByName, nil
	}
	return 0, core.Errorf(core.CodeInvalidParameter, "order must be name (A to Z) or left out (most stations first); got %s", core.QuoteClip(v[0]))
}

// OrderQuery is the canonical query of an order: none for the default.
func OrderQuery(o query.Order) string {
	if o == query.ByName {
		return "order=name"
	}
	return ""
}

// orderLinks offer the other order of the same index, the current one as
// text.
func (s *Server) orderLinks(d Directory, current query.Order) []Link {
	links := make([]Link, 0, 2)
	for _, o := range []query.Order{query.ByStations, query.ByName} {
		text := "Most stations first"
		if o == query.ByName {
			text = "A to Z"
		}
		if o == current {
			links = append(links, Link{Text: text, Note: "(this page)"})
			continue
		}
		u := d.IndexURL(s.Base)
		if q := OrderQuery(o); q != "" {
			u += "?" + q
		}
		links = append(links, internalLink(text, u))
	}
	return links
}

// valueIndexLinks link each value to its page, with its entries and the
// stations they stand for, counted as on the value's page. The values'
// addresses and notes are cut from one string (an index page lists a
// hundred).
func (s *Server) valueIndexLinks(d Directory, vals []query.Listing) []Link {
	links := make([]Link, len(vals))
	b := make([]byte, 0, len(vals)*(len(s.Base)+64))
	ends := make([]int, 0, 2*len(vals))
	for _, v := range vals {
		if d.Facet == query.DimCountry || stationjson.HasPage(v.Key) {
			b = d.appendValueURL(b, s.Base, v.Key)
		}
		ends = append(ends, len(b))
		b = appendEntries(b, v.Stations, v.Groups)
		ends = append(ends, len(b))
	}
	text, start := string(b), 0
	for i, v := range vals {
		label, href := listingLabel(d.Facet, v.Label), text[start:ends[2*i]]
		links[i] = textValue(label)
		if href != "" {
			links[i] = internalLink(label, href)
		}
		links[i].Note = text[ends[2*i]:ends[2*i+1]]
		start = ends[2*i+1]
	}
	return links
}

// appendValueURL appends d.ValueURL(base, key), without a string of its
// own where the key needs no escaping (most).
func (d Directory) appendValueURL(b []byte, base, key string) []byte {
	plain := key != ""
	for i := 0; i < len(key) && plain; i++ {
		c := key[i]
		plain = 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || d.Facet == query.DimCountry && 'A' <= c && c <= 'Z'
	}
	if !plain {
		return append(b, d.ValueURL(base, key)...)
	}
	kind := d.Kind
	if d.Facet == query.DimCountry {
		kind = stationjson.KindCountries
	}
	b = append(append(append(b, base...), '/'), kind...)
	b = append(b, '/')
	for i := 0; i < len(key); i++ {
		c := key[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A' // CountryURL's strings.ToLower, on ASCII
		}
		b = append(b, c)
	}
	return append(b, '/')
}

func (s *Server) DirectoryValue(d Directory) PageFunc {
	return func(r *http.Request, ix core.Index, arg string) (*Page, error) {
		n, err := pageNumber(r)
		if err != nil {
			return nil, err
		}
		fv, ok, err := d.lookup(ix, arg)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, core.Errorf(core.CodeNotFound, "no station in this snapshot has this %s", d.one)
		}
		res, err := ix.ListedStations(d.Facet, fv.Key, (n-1)*StationsPerPage, StationsPerPage)
		if err != nil {
			return nil, err
		}
		if n > 1 && len(res.Stations) == 0 {
			return nil, errPageRange(n)
		}
		pageURL, label := d.ValueURL(s.Base, fv.Key), CleanText(listingLabel(d.Facet, fv.Label))
		return &Page{
			Title:   label + " — " + d.one + " | stationdex",
			Heading: label,
			Path:    strings.TrimPrefix(pageURL, s.Base),
			Query:   PageParam("", n),
			Blocks: []Block{
				{Text: []string{valueSummary(d, label, fv.Stations, fv.Groups)}},
				{Heading: "Stations", Links: s.StationLinks(res.Stations)},
				{Heading: "More", Links: s.valueLinks(d, fv)},
			},
			Pager: newPager(pageURL, n, StationsPerPage, res.Total, entriesWord(fv.Stations, fv.Groups)),
		}, nil
	}
}

// valueLinks offers the same list through the search and the API: the
// links' texts and addresses cut from one string, the query made once.
func (s *Server) valueLinks(d Directory, fv query.Listing) []Link {
	var stack [1024]byte
	b := append(append(stack[:0], "All "...), strings.ToLower(d.title)...)
	all := len(b)
	b = append(append(append(append(b, s.Base...), '/'), d.Kind...), '/') // d.IndexURL
	index := len(b)
	value := fv.Key
	if d.Facet != query.DimCountry {
		value = fv.Label
	}
	if utf8.RuneCountInString(value) > core.MaxFacetRunes {
		// Longer than the filter takes (a keyword-stuffed tag): a link
		// to the search would answer 400, and this page is the only
		// list of its stations.
		text := string(b)
		return []Link{internalLink(text[:all], text[all:index])}
	}
	q := params.SearchParams{Limit: core.DefaultLimit}
	q.Filter[d.Facet] = []string{value}
	b = append(append(b, "Search within this "...), d.one...)
	search := len(b)
	b = append(append(append(b, s.Base...), core.PathSearch...), '?')
	queryStart := len(b)
	b = q.AppendCanonicalQuery(b)
	searchEnd := len(b)
	b = append(append(append(b, s.Base...), core.PathStations...), '?')
	b = append(b, b[queryStart:searchEnd]...) // the same query
	text := string(b)
	return []Link{
		internalLink(text[:all], text[all:index]),
		internalLink(text[index:search], text[search:searchEnd]),
		internalLink("The same search in the JSON API", text[searchEnd:]),
	}
}

// StationLinks lists stations as links to their pages, each with what
// tells look-alikes apart: many stations share a name, so the note says
// where each is and how it streams.
// Their addresses and notes are cut from one string.
func (s *Server) StationLinks(recs []format.Record) []Link {
	return s.appendResultLinks(make([]Link, 0, len(recs)), recs, nil, nil)
}

// appendResultLinks appends to dst StationLinks with each note led by the
// station's distance (km[i], when given) and followed by its other entries
// (more[i], when given), as a search's results say them: the whole notes
// in the one string, with the addresses.
func (s *Server) appendResultLinks(dst []Link, recs []format.Record, km []float64, more []int) []Link {
	var space [4096]byte
	b := space[:0]
	if need := len(recs) * (len(s.Base) + 112); need > len(space) {
		b = make([]byte, 0, need)
	}
	var endSpace [2 * 2 * core.DefaultLimit]int
	ends := endSpace[:0]
	if len(recs) > core.DefaultLimit {
		ends = make([]int, 0, 2*len(recs))
	}
	for i := range recs {
		b = append(append(b, s.Base...), "/stations/"...) // stationjson.StationURL
		b = append(recs[i].ID.Append(b), '/')
		ends = append(ends, len(b))
		start := len(b)
		if i < len(km) {
			b = append(appendDistance(b, km[i]), " · "...)
		}
		b = appendNote(b, &recs[i])
		if i < len(more) && more[i] > 0 {
			if len(b) > start {
				b = append(b, " · "...)
			}
			b = appendMoreEntries(b, more[i])
		}
		ends = append(ends, len(b))
	}
	text, start := string(b), 0
	for i := range recs {
		l := internalLink(recs[i].Name, text[start:ends[2*i]])
		l.Note = text[ends[2*i]:ends[2*i+1]]
		dst = append(dst, l)
		start = ends[2*i+1]
	}
	return dst
}

// resultNote is the line under a result, cleaned (cleanText): where the
// station is and, where known, its stream's codec and bitrate, after lead
// (clean already; "" for none). One string, built in a stack buffer: a
// result list or a station page has one per station it links.
func resultNote(lead string, r *format.Record) string {
	var buf [160]byte
	return string(appendNote(append(buf[:0], lead...), r))
}

// appendNote appends the note of a station in a list to b: its place,
// codec and bitrate, as far as known, separated.
func appendNote(b []byte, r *format.Record) []byte {
	start := len(b)
	b = appendPlace(b, r)
	if r.Codec != "" {
		b = appendNoteSep(b, start)
		b = appendCleanText(b, r.Codec)
	}
	if r.BitrateKbps > 0 {
		b = appendNoteSep(b, start)
		b = strconv.AppendUint(b, uint64(r.BitrateKbps), 10)
		b = append(b, " kbps"...)
	}
	return b
}

// appendNoteSep separates a note's parts, once one is written past start.
func appendNoteSep(b []byte, start int) []byte {
	if len(b) > start {
		b = append(b, " · "...)
	}
	return b
}

// appendPlace appends the station's location and country (its English
// name, countryName), as far as known, cleaned (cleanText).
func appendPlace(b []byte, r *format.Record) []byte {
	if r.Location != "" {
		b = appendCleanText(b, r.Location)
	}
	if r.Country != "" {
		if r.Location != "" {
			b = append(b, ", "...)
		}
		b = appendCleanText(b, countryName(r))
	}
	return b
}

func stationCount(n int) string {
	if n == 1 {
		return "1 station"
	}
	return strconv.Itoa(n) + " stations"
}

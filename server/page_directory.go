package server

import (
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/query"
)

// Directory pages: per kind (countries, languages, genres, locations) an
// index of every value with its entries and the stations they stand for,
// and per value the list of
// its stations, both paged. Values are the keys of the index's facet
// buckets, so every country_url, language_urls, genre_urls and location_url
// of a station names one of these pages.

// directory describes one kind of directory page.
type directory struct {
	kind  string // first path segment, a stationjson.Kind constant
	facet query.Dim
	title string // "Genres"
	one   string // "genre"
}

var directories = []directory{
	{stationjson.KindCountries, query.DimCountry, "Countries", "country"},
	{stationjson.KindLanguages, query.DimLanguage, "Languages", "language"},
	{stationjson.KindGenres, query.DimGenre, "Genres", "genre"},
	{stationjson.KindLocations, query.DimLocation, "Locations", "location"},
}

// Page sizes of the directory lists.
const (
	valuesPerPage   = 100
	stationsPerPage = query.MaxLimit
)

func (d directory) indexURL(base string) string { return base + "/" + d.kind + "/" }

// valueURL is the page of one facet key: the country code in lower case,
// as stationjson.CountryURL builds it, else the key path-escaped.
func (d directory) valueURL(base, key string) string {
	if d.facet == query.DimCountry {
		return stationjson.CountryURL(base, key)
	}
	return stationjson.KeyURL(base, d.kind, key)
}

// lookupKeys are the bucket keys the path segment may name, in order: the
// segment itself (the links the service makes carry the exact key; a key
// function is not idempotent on every key, e.g. one ending in a space the
// folding left), then the key the index files that spelling under (so
// /genres/Hip-Hop/ finds hiphop).
func (d directory) lookupKeys(segment string) []string {
	if d.facet == query.DimCountry {
		return []string{strings.ToUpper(segment)}
	}
	return []string{segment, query.ListingKey(d.facet, segment)}
}

// lookup finds the value named by the path segment.
func (d directory) lookup(ix *query.Index, segment string) (fv query.Listing, ok bool, err error) {
	for _, key := range d.lookupKeys(segment) {
		if fv, ok, err = ix.Listing(d.facet, key); ok || err != nil {
			return fv, ok, err
		}
	}
	return fv, false, nil
}

func (s *Server) directoryIndex(d directory) pageFunc {
	return func(r *http.Request, ix *query.Index, _ []string) (*page, error) {
		n, err := pageNumber(r)
		if err != nil {
			return nil, err
		}
		order, err := directoryOrder(r)
		if err != nil {
			return nil, err
		}
		total, vals, err := ix.Listings(d.facet, order, (n-1)*valuesPerPage, valuesPerPage)
		if err != nil {
			return nil, err
		}
		if n > 1 && len(vals) == 0 {
			return nil, errPageRange(n)
		}
		listURL, q := d.indexURL(s.base), orderQuery(order)
		if q != "" {
			listURL += "?" + q
		}
		return &page{
			Title:   d.title + " | stationdex",
			Heading: d.title,
			Path:    "/" + d.kind + "/",
			Query:   pageParam(q, n),
			Blocks: []block{
				{Text: []string{"Every " + d.one + " in the directory, with its entries and the stations they stand for, " + orderNames[order] + ".",
					"As on each " + d.one + "'s page, " + sameStation + "."}},
				{Heading: "Order", Links: s.orderLinks(d, order)},
				{Heading: d.title + ", " + orderNames[order], Links: s.valueIndexLinks(d, vals)},
			},
			Pager: newPager(listURL, n, valuesPerPage, total, d.title),
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
		return 0, errorf(CodeRepeatedParameter, "parameter order is given more than once; give it at most once")
	case v[0] == "name":
		return query.ByName, nil
	}
	return 0, errorf(CodeInvalidParameter, "order must be name (A to Z) or left out (most stations first); got %s", quoteClip(v[0]))
}

// orderQuery is the canonical query of an order: none for the default.
func orderQuery(o query.Order) string {
	if o == query.ByName {
		return "order=name"
	}
	return ""
}

// orderLinks offer the other order of the same index, the current one as
// text.
func (s *Server) orderLinks(d directory, current query.Order) []link {
	links := make([]link, 0, 2)
	for _, o := range []query.Order{query.ByStations, query.ByName} {
		text := "Most stations first"
		if o == query.ByName {
			text = "A to Z"
		}
		if o == current {
			links = append(links, link{Text: text, Note: "(this page)"})
			continue
		}
		u := d.indexURL(s.base)
		if q := orderQuery(o); q != "" {
			u += "?" + q
		}
		links = append(links, internalLink(text, u))
	}
	return links
}

// valueIndexLinks link each value to its page, with its entries and the
// stations they stand for, counted as on the value's page.
func (s *Server) valueIndexLinks(d directory, vals []query.Listing) []link {
	links := make([]link, len(vals))
	for i, v := range vals {
		links[i] = textValue(v.Label)
		if d.facet == query.DimCountry || stationjson.HasPage(v.Key) {
			links[i] = internalLink(v.Label, d.valueURL(s.base, v.Key))
		}
		links[i].Note = entriesOf(v.Stations, v.Groups)
	}
	return links
}

func (s *Server) directoryValue(d directory) pageFunc {
	return func(r *http.Request, ix *query.Index, args []string) (*page, error) {
		n, err := pageNumber(r)
		if err != nil {
			return nil, err
		}
		fv, ok, err := d.lookup(ix, args[0])
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errorf(CodeNotFound, "no station in this snapshot has this %s", d.one)
		}
		res, err := ix.ListedStations(d.facet, fv.Key, (n-1)*stationsPerPage, stationsPerPage)
		if err != nil {
			return nil, err
		}
		if n > 1 && len(res.Stations) == 0 {
			return nil, errPageRange(n)
		}
		pageURL := d.valueURL(s.base, fv.Key)
		return &page{
			Title:   cleanText(fv.Label) + " — " + d.one + " | stationdex",
			Heading: cleanText(fv.Label),
			Path:    strings.TrimPrefix(pageURL, s.base),
			Query:   pageParam("", n),
			Blocks: []block{
				{Text: []string{stationCount(fv.Stations) + " with the " + d.one + " " + cleanText(fv.Label) + ", in alphabetical order.",
					groupsText(fv.Stations, fv.Groups)}},
				{Heading: "Stations", Links: s.stationLinks(res.Stations)},
				{Heading: "More", Links: s.valueLinks(d, fv)},
			},
			Pager: newPager(pageURL, n, stationsPerPage, res.Total, "Stations"),
		}, nil
	}
}

// valueLinks offers the same list through the search and the API.
func (s *Server) valueLinks(d directory, fv query.Listing) []link {
	links := []link{internalLink("All "+strings.ToLower(d.title), d.indexURL(s.base))}
	value := fv.Key
	if d.facet != query.DimCountry {
		value = fv.Label
	}
	if utf8.RuneCountInString(value) > maxFacetRunes {
		// Longer than the filter takes (a keyword-stuffed tag): a link
		// to the search would answer 400, and this page is the only
		// list of its stations.
		return links
	}
	q := searchParams{Limit: defaultLimit}
	q.Filter[d.facet] = []string{value}
	return append(links,
		internalLink("Search within this "+d.one, s.base+pathSearch+"?"+q.canonicalQuery()),
		internalLink("The same search in the JSON API", s.base+pathStations+"?"+q.canonicalQuery()))
}

// stationLinks lists stations as links to their pages, each with what
// tells look-alikes apart: many stations share a name, so the note says
// where each is and how it streams.
func (s *Server) stationLinks(recs []format.Record) []link {
	links := make([]link, len(recs))
	for i := range recs {
		r := &recs[i]
		links[i] = internalLink(r.Name, stationjson.StationURL(s.base, r.ID))
		links[i].Note = resultNote("", r)
	}
	return links
}

// resultNote is the line under a result, cleaned (cleanText): where the
// station is and, where known, its stream's codec and bitrate, after lead
// (clean already; "" for none). One string, built in a stack buffer: a
// result list or a station page has one per station it links.
func resultNote(lead string, r *format.Record) string {
	var buf [160]byte
	b := append(buf[:0], lead...)
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
	return string(b)
}

// appendNoteSep separates a note's parts, once one is written past start.
func appendNoteSep(b []byte, start int) []byte {
	if len(b) > start {
		b = append(b, " · "...)
	}
	return b
}

// appendPlace appends the station's location and country, as far as
// known, cleaned (cleanText).
func appendPlace(b []byte, r *format.Record) []byte {
	if r.Location != "" {
		b = appendCleanText(b, r.Location)
	}
	if r.Country != "" {
		if r.Location != "" {
			b = append(b, ", "...)
		}
		b = appendCleanText(b, r.Country)
	}
	return b
}

func stationCount(n int) string {
	if n == 1 {
		return "1 station"
	}
	return strconv.Itoa(n) + " stations"
}

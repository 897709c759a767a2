package pages

import (
	"net/http"
	"strconv"
	"sync"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/query"
	"stationdex/server/core"
)

// The station page (page_url) and the listening page (listen_url). Both
// show the same Station the API returns, so every URL in the record is a
// link here.

// availabilityNotice is the spec's wording, said where a stream is offered.
const availabilityNotice = "Stream availability, schedules, broadcast rights and regional restrictions can change. " +
	"This directory does not check them: no current availability is implied by this page."

// StationRecord reads the station named by the path segment; an id that is
// not a UUID names no station, like the API's 404.
func StationRecord(ix core.Index, segment string) (format.Record, error) {
	id, err := format.ParseUUID(segment)
	if err != nil {
		return format.Record{}, core.ErrNoStation
	}
	return ix.Station(id)
}

func (s *Server) StationPage(_ *http.Request, ix core.Index, arg string) (*Page, error) {
	rec, err := StationRecord(ix, arg)
	if err != nil {
		return nil, err
	}
	near, err := s.nearBlock(ix, &rec)
	if err != nil {
		return nil, err
	}
	variants, err := s.variantsBlock(ix, &rec)
	if err != nil {
		return nil, err
	}
	if rec.Genres, err = genreLabels(ix, rec.Genres); err != nil {
		return nil, err
	}
	return s.StationPageOf(&rec, near, variants), nil
}

// genreLabels names each genre by its label in the index (the spelling
// its stations use most), as the genre's page and the facets do; a genre
// the index does not list keeps the station's spelling. The labels are
// read once per snapshot (genreLabelsOf).
func genreLabels(ix core.Index, genres []string) ([]string, error) {
	if len(genres) == 0 {
		return genres, nil
	}
	v, err := ix.Derived("pages: genre labels", genreLabelsOf)
	if err != nil {
		return nil, err
	}
	byKey := v.(map[string]string)
	labels := make([]string, len(genres))
	var key [64]byte
	for i, g := range genres {
		labels[i] = g
		if l, ok := byKey[string(appendGenreKey(key[:0], g))]; ok { // the lookup converts without a copy
			labels[i] = l
		}
	}
	return labels, nil
}

// appendGenreKey appends the key of a genre's spelling to dst. A spelling
// of lower-case letters, digits, spaces, hyphens and apostrophes only
// (most tags) is its own key but for the last three, which keys leave out
// and folding keeps the rest of as it is: written so without a fold's
// allocations, where folding them took a tenth of a station page.
func appendGenreKey(dst []byte, g string) []byte {
	start := len(dst)
	for i := 0; i < len(g); i++ {
		switch c := g[i]; {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			dst = append(dst, c)
		case c == ' ', c == '-', c == '\'':
		default:
			return append(dst[:start], query.ListingKey(query.DimGenre, g)...)
		}
	}
	return dst
}

// genreLabelsOf is the label of every genre of the index by its key.
func genreLabelsOf(ix *query.Index) (any, error) {
	total, _, err := ix.Listings(query.DimGenre, query.ByName, 0, 0)
	if err != nil {
		return nil, err
	}
	_, all, err := ix.Listings(query.DimGenre, query.ByName, 0, total)
	if err != nil {
		return nil, err
	}
	byKey := make(map[string]string, len(all))
	for _, l := range all {
		byKey[l.Key] = l.Label
	}
	return byKey, nil
}

// StationPageOf is the station page of rec, near being its nearby stations
// and variants the other entries of its group (none: a station that
// stands alone has no such section). It reads the record itself rather
// than stationjson.New's model, whose facet URLs it would build twice,
// keeps its links in one backing array (pageLinks), its blocks and facts
// with the page (stationModel), and cuts its addresses and short texts
// from one string (cuts).
func (s *Server) StationPageOf(rec *format.Record, near, variants Block) *Page {
	var space [1024]byte
	t := cuts{b: space[:0]}
	t.b = rec.ID.Append(t.b)
	id := t.mark()
	t.b = appendStationURL(t.b, "", rec.ID, "")
	path := t.mark()
	t.b = appendStationURL(t.b, s.Base, rec.ID, "listen/")
	listen := t.mark()
	t, playable := t.withPlaylists(s.Base, rec)
	t.b = rec.ID.Append(append(append(t.b, s.Base...), core.PathStation...))
	api := t.mark()
	t.b = append(append(t.b, s.Base...), core.PathCatalog...)
	catalog := t.mark()
	t.b = appendCleanText(t.b, rec.Name)
	heading := t.mark()
	t.b = appendPageTitle(t.b, rec)
	title := t.mark()
	country := -1
	var text, address int
	if t.b, text, address = appendCountry(t.b, s.Base, rec); text >= 0 {
		country = t.markAt(text)
		t.markAt(address)
	}
	bitrate := -1
	if rec.BitrateKbps != 0 {
		t.b = append(strconv.AppendUint(t.b, uint64(rec.BitrateKbps), 10), " kbps"...)
		bitrate = t.mark()
	}
	c := t.done()

	countryLink := unknownValue(rec.Country) // countryValue's when there is no code
	if country >= 0 {
		countryLink = Link{Text: c.get(country), Href: c.get(country + 1), Internal: true}
	}
	bitrateLink := unknownValue("")
	if bitrate >= 0 {
		bitrateLink = Link{Text: c.get(bitrate)}
	}
	m := stationModels.Get().(*stationModel)
	ls := m.links[:0]
	if need := 16 + len(rec.Languages) + len(rec.Genres); cap(ls) < need {
		ls = make(pageLinks, 0, need)
	}
	blocks := append(m.blocks[:0], Block{Facts: stationFacts(m.facts[:0], s.Base, rec, countryLink, bitrateLink, c.get(id), &ls)})
	start := len(ls)
	ls = append(ls, internalLink("Listening page", c.get(listen)))
	if playable {
		ls.addPlaylistLinks(c.get(listen+1), c.get(listen+2), rec.StreamURL)
	}
	blocks = append(blocks, Block{Heading: "Listen", Notice: availabilityNotice, Links: ls.from(start)})
	if variants.Heading != "" {
		blocks = append(blocks, variants)
	}
	m.page = Page{
		Title:       c.get(title),
		Heading:     c.get(heading),
		Path:        c.get(path), // the path: the address without a base
		Description: stationDescription(rec),
		Blocks: append(blocks, near, Block{Heading: "Data", Links: ls.add(
			internalLink("This station in the JSON API", c.get(api)),
			internalLink("All stations as a download", c.get(catalog)),
		)}),
		model: m,
	}
	m.links = ls
	return &m.page
}

// stationModel is a station page with its blocks, the facts of its first
// and the backing array of its links: taken from stationModels and given
// back once the page is written (Page.free).
type stationModel struct {
	page   Page
	blocks [5]Block
	facts  [8]Fact
	links  pageLinks
}

var stationModels = sync.Pool{New: func() any { return new(stationModel) }}

// free clears m, keeping its links' array unless a page of many values
// grew it, and gives it back.
func (m *stationModel) free() {
	links := m.links[:cap(m.links)]
	clear(links)
	if cap(links) > maxKeptLinks {
		links = nil
	}
	*m = stationModel{links: links[:0]}
	stationModels.Put(m)
}

// maxKeptLinks bounds the links' array a freed station model keeps.
const maxKeptLinks = 256

// appendStationURL appends stationjson.StationFileURL(base, id, name).
func appendStationURL(b []byte, base string, id format.UUID, name string) []byte {
	b = append(append(b, base...), "/stations/"...)
	return append(append(id.Append(b), '/'), name...)
}

// appendPageTitle appends CleanText(stationjson.PageTitle(rec)), cleaned
// part by part (cleaning goes rune by rune: the same).
func appendPageTitle(b []byte, rec *format.Record) []byte {
	where := rec.Country
	if where == "" {
		where = "radio station"
	}
	b = append(appendCleanText(b, rec.Name), " — "...)
	return append(appendCleanText(b, where), " | stationdex"...)
}

// appendCountry appends the text and then the address of rec's country
// link (countryValue's), or nothing when rec names no country code: the
// lengths of b after each.
func appendCountry(b []byte, base string, rec *format.Record) (_ []byte, text, address int) {
	code := rec.CountryCode
	if code == "" {
		return b, -1, -1
	}
	label := countryName(rec)
	if label == "" {
		label = code
	}
	b = append(appendCleanText(append(appendCleanText(b, label), " ("...), code), ')')
	text = len(b)
	if len(code) == 2 && code[0]|0x20-'a' < 26 && code[1]|0x20-'a' < 26 {
		// stationjson.CountryURL: two letters, lower case, need no escape.
		b = append(append(b, base...), "/"+stationjson.KindCountries+"/"...)
		b = append(b, code[0]|0x20, code[1]|0x20, '/')
	} else {
		b = append(b, stationjson.CountryURL(base, code)...)
	}
	return b, text, len(b)
}

// pageLinks is the backing array of a page's link lists: each list is a run
// of it, with no room after it (add), so that the two dozen short lists of
// a station page cost one allocation rather than one each.
type pageLinks []Link

// add appends ls and returns them as a list of their own.
func (p *pageLinks) add(ls ...Link) []Link {
	start := len(*p)
	*p = append(*p, ls...)
	return p.from(start)
}

// from is the links appended since the length was start, as a list of
// their own: appending to it cannot overwrite the next list.
func (p *pageLinks) from(start int) []Link { return (*p)[start:len(*p):len(*p)] }

// stationFacts lists the record's fields into facts, each value linked to
// its directory page where it has one, as the station's JSON links them;
// its country, bitrate and id are given, as cut from the page's string.
func stationFacts(facts []Fact, base string, r *format.Record, country, bitrate Link, id string, ls *pageLinks) []Fact {
	location, languages, genres := ls.facetFacts(base, r)
	return append(facts,
		Fact{"Country", ls.add(country)},
		Fact{"Location", location},
		Fact{"Languages", languages},
		Fact{"Genres", genres},
		Fact{"Bitrate", ls.add(bitrate)},
		Fact{"Codec", ls.add(unknownValue(r.Codec))},
		Fact{"Official website", ls.add(officialValue(r.OfficialURL))},
		Fact{"Station id", ls.add(Link{Text: id})},
	)
}

func locationValue(base, place string) Link {
	if u, ok := stationjson.LocationURL(base, place); ok {
		return internalLink(place, u)
	}
	return unknownValue(place)
}

// facetFacts are the record's location, languages and genres as
// locationValue and facetValues make them (languages shown by
// languageLabel), their addresses written into one string.
func (p *pageLinks) facetFacts(base string, r *format.Record) (location, languages, genres []Link) {
	var space [1024]byte
	b := space[:0]
	type value struct {
		text   string // shown
		end    int    // of its address in b
		linked bool   // it has one
	}
	var valueSpace [24]value
	values := valueSpace[:0]
	add := func(kind, label, text string) {
		var ok bool
		b, ok = stationjson.AppendFacetURL(b, base, kind, label)
		values = append(values, value{text, len(b), ok})
	}
	add(stationjson.KindLocations, r.Location, r.Location)
	for _, l := range r.Languages {
		add(stationjson.KindLanguages, l, languageLabel(l))
	}
	for _, l := range r.Genres {
		add(stationjson.KindGenres, l, l)
	}
	urls, start := string(b), 0
	link := func(v value) Link {
		u := urls[start:v.end]
		start = v.end
		if !v.linked {
			return textValue(v.text)
		}
		return internalLink(v.text, u)
	}
	first := len(*p)
	*p = append(*p, link(values[0]))
	location = p.from(first)
	if !values[0].linked { // locationValue's: an unknown place
		(*p)[first] = unknownValue(r.Location)
	}
	list := func(vs []value) []Link {
		first := len(*p)
		if len(vs) == 0 {
			return p.add(unknownValue(""))
		}
		for _, v := range vs {
			*p = append(*p, link(v))
		}
		return p.from(first)
	}
	languages = list(values[1 : 1+len(r.Languages)])
	genres = list(values[1+len(r.Languages):])
	return location, languages, genres
}

// facetValues links each label to its directory page, built as
// stationjson builds the station's language_urls and genre_urls, and
// shown as show writes it (nil: as it is).
func (p *pageLinks) facetValues(base string, labels []string, kind string, show func(string) string) []Link {
	if len(labels) == 0 {
		return p.add(unknownValue(""))
	}
	start := len(*p)
	for _, l := range labels {
		text := l
		if show != nil {
			text = show(l)
		}
		v := textValue(text)
		if u, ok := stationjson.FacetURL(base, kind, l); ok {
			v = internalLink(text, u)
		}
		*p = append(*p, v)
	}
	return p.from(start)
}

func officialValue(u string) Link {
	if u == "" {
		return unknownValue("")
	}
	return externalLink(u, u)
}

func unknownValue(label string) Link {
	if label != "" {
		return textValue(label)
	}
	return textValue("not listed")
}

func (s *Server) ListenPage(_ *http.Request, ix core.Index, arg string) (*Page, error) {
	rec, err := StationRecord(ix, arg)
	if err != nil {
		return nil, err
	}
	return s.ListenPageOf(&rec), nil
}

// ListenPageOf is the listening page of rec: one allocation for the
// page with its blocks and links (listenModel), one for its texts and
// addresses (cuts).
func (s *Server) ListenPageOf(rec *format.Record) *Page {
	// Not stationjson.New: the page needs four of its fields, and the
	// others (each facet's URL) were most of the page's model.
	var space [512]byte
	t := cuts{b: space[:0]}
	t.b = appendPageTitle(append(t.b, "Listen: "...), rec)
	title := t.mark()
	t.b = appendCleanText(append(t.b, "Listen: "...), rec.Name)
	heading := t.mark()
	t.b = appendStationURL(t.b, s.Base, rec.ID, "")
	pageURL := t.mark()
	t.b = appendStationURL(t.b, "", rec.ID, "listen/")
	path := t.mark()
	t, playable := t.withPlaylists(s.Base, rec)
	c := t.done()

	m := listenModels.Get().(*listenModel)
	player := Block{Heading: "Player", Notice: availabilityNotice}
	if playable {
		player.Audio = rec.StreamURL
		if note := mixedContentNotice(rec.StreamURL); note != "" {
			m.text[0] = note
			player.Text = m.text[:]
		}
	} else {
		player.Text = noStreamText
	}
	ls := pageLinks(m.links[:0])
	blocks := append(m.blocks[:0], player)
	if playable {
		ls.addPlaylistLinks(c.get(path+1), c.get(path+2), rec.StreamURL)
		blocks = append(blocks, Block{Heading: "In another player", Links: ls.from(0)})
	}
	start := len(ls)
	ls = append(ls, internalLink("Station page", c.get(pageURL)))
	if rec.OfficialURL != "" {
		ls = append(ls, externalLink("Official website", rec.OfficialURL))
	}
	m.page = Page{
		Title:   c.get(title),
		Heading: c.get(heading),
		Path:    c.get(path), // the path: the address without a base
		Media:   player.Audio != "",
		Blocks:  append(blocks, Block{Heading: "More", Links: ls.from(start)}),
		model:   m,
	}
	return &m.page
}

// listenModel is a listening page with its blocks, links and the
// player's note: taken from listenModels and given back once the page is
// written (Page.free).
type listenModel struct {
	page   Page
	blocks [3]Block
	links  [5]Link
	text   [1]string
}

var listenModels = sync.Pool{New: func() any { return new(listenModel) }}

// free clears m and gives it back.
func (m *listenModel) free() {
	*m = listenModel{}
	listenModels.Put(m)
}

// noStreamText is the player's text for a station with no playable
// stream (the renderers only read it).
var noStreamText = []string{"No playable http(s) stream address is listed for this station."}

// stationDescription says what and where a station is, for search results,
// written into one buffer.
func stationDescription(r *format.Record) string {
	var stack [512]byte
	b := append(appendCleanText(stack[:0], r.Name), ": radio station"...)
	if r.Location != "" || r.Country != "" {
		b = appendPlace(append(b, " in "...), r)
	}
	if len(r.Genres) > 0 {
		b = append(b, " ("...)
		for i, g := range r.Genres[:min(len(r.Genres), 4)] {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendCleanText(b, g) // cleaning runes one by one: the same as cleaning the list joined
		}
		b = append(b, ')')
	}
	return ClipWords(string(append(b, ". Stream link, details and JSON in the stationdex directory."...)), MaxDescriptionRunes)
}

// withPlaylists is t with the station's M3U and PLS addresses cut, in
// that order, when its stream can be played from a page, and says whether
// it can. It takes and gives t by value: a method on *cuts that appends to
// t.b makes the compiler move the caller's stack array behind t.b to the
// heap (a kilobyte a page, a tenth of what a crawl allocated).
func (t cuts) withPlaylists(base string, rec *format.Record) (cuts, bool) {
	if !IsWebURL(rec.StreamURL) {
		return t, false
	}
	for _, name := range []string{PlaylistM3U.Name, PlaylistPLS.Name} {
		t.b = appendStationURL(t.b, base, rec.ID, name)
		t.mark()
	}
	return t, true
}

package pages

import (
	"net/http"
	"strconv"

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
	for i, g := range genres {
		labels[i] = g
		if l, ok := byKey[genreKey(g)]; ok {
			labels[i] = l
		}
	}
	return labels, nil
}

// genreKey is the key of a genre's spelling: the spelling itself when it
// is lower-case letters and digits only, which folding keeps as they are
// (most tags), without a fold's allocations.
func genreKey(g string) string {
	for i := 0; i < len(g); i++ {
		if c := g[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return query.ListingKey(query.DimGenre, g)
		}
	}
	return g
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
// than stationjson.New's model, whose facet URLs it would build twice, and
// keeps its links in one backing array (pageLinks).
func (s *Server) StationPageOf(rec *format.Record, near, variants Block) *Page {
	id := rec.ID.String()
	ls := make(pageLinks, 0, 16+len(rec.Languages)+len(rec.Genres))
	blocks := make([]Block, 0, 5)
	blocks = append(blocks, Block{Facts: stationFacts(s.Base, rec, id, &ls)})
	start := len(ls)
	ls = append(ls, internalLink("Listening page", stationjson.ListenURL(s.Base, rec.ID)))
	ls.addPlaylists(s.Base, rec)
	blocks = append(blocks, Block{Heading: "Listen", Notice: availabilityNotice, Links: ls.from(start)})
	if variants.Heading != "" {
		blocks = append(blocks, variants)
	}
	return &Page{
		Title:       CleanText(stationjson.PageTitle(rec)),
		Heading:     CleanText(rec.Name),
		Path:        stationjson.StationURL("", rec.ID), // the path: the address without a base
		Description: stationDescription(rec),
		Blocks: append(blocks, near, Block{Heading: "Data", Links: ls.add(
			internalLink("This station in the JSON API", s.Base+core.PathStation+id),
			internalLink("All stations as a download", s.Base+core.PathCatalog),
		)}),
	}
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

// stationFacts lists the record's fields, each value linked to its
// directory page where it has one, as the station's JSON links them.
func stationFacts(base string, r *format.Record, id string, ls *pageLinks) []Fact {
	return []Fact{
		{"Country", ls.add(countryValue(base, r))},
		{"Location", ls.add(locationValue(base, r.Location))},
		{"Languages", ls.facetValues(base, r.Languages, stationjson.KindLanguages, languageLabel)},
		{"Genres", ls.facetValues(base, r.Genres, stationjson.KindGenres, nil)},
		{"Bitrate", ls.add(bitrateValue(r.BitrateKbps))},
		{"Codec", ls.add(unknownValue(r.Codec))},
		{"Official website", ls.add(officialValue(r.OfficialURL))},
		{"Station id", ls.add(textValue(id))},
	}
}

func countryValue(base string, r *format.Record) Link {
	label := countryName(r)
	if label == "" {
		label = r.CountryCode
	}
	if r.CountryCode == "" {
		return unknownValue(label)
	}
	return internalLink(label+" ("+r.CountryCode+")", stationjson.CountryURL(base, r.CountryCode))
}

func locationValue(base, place string) Link {
	if u, ok := stationjson.LocationURL(base, place); ok {
		return internalLink(place, u)
	}
	return unknownValue(place)
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

func bitrateValue(kbps uint32) Link {
	if kbps == 0 {
		return unknownValue("")
	}
	return textValue(strconv.FormatUint(uint64(kbps), 10) + " kbps")
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

// ListenPageOf is the listening page of rec.
func (s *Server) ListenPageOf(rec *format.Record) *Page {
	// Not stationjson.New: the page needs four of its fields, and the
	// others (each facet's URL) were most of the page's model.
	title, pageURL := CleanText(stationjson.PageTitle(rec)), stationjson.StationURL(s.Base, rec.ID)
	player := Block{Heading: "Player", Notice: availabilityNotice}
	if IsWebURL(rec.StreamURL) {
		player.Audio = rec.StreamURL
		if note := mixedContentNotice(rec.StreamURL); note != "" {
			player.Text = []string{note}
		}
	} else {
		player.Text = []string{"No playable http(s) stream address is listed for this station."}
	}
	ls := make(pageLinks, 0, 5)
	blocks := make([]Block, 0, 3)
	blocks = append(blocks, player)
	if ls.addPlaylists(s.Base, rec); len(ls) > 0 {
		blocks = append(blocks, Block{Heading: "In another player", Links: ls.from(0)})
	}
	start := len(ls)
	ls = append(ls, internalLink("Station page", pageURL))
	if rec.OfficialURL != "" {
		ls = append(ls, externalLink("Official website", rec.OfficialURL))
	}
	return &Page{
		Title:   "Listen: " + title,
		Heading: "Listen: " + CleanText(rec.Name),
		Path:    stationjson.ListenURL("", rec.ID), // the path: the address without a base
		Media:   player.Audio != "",
		Blocks:  append(blocks, Block{Heading: "More", Links: ls.from(start)}),
	}
}

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

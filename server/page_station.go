package server

import (
	"net/http"
	"strconv"
	"strings"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/query"
)

// The station page (page_url) and the listening page (listen_url). Both
// show the same Station the API returns, so every URL in the record is a
// link here.

// availabilityNotice is the spec's wording, said where a stream is offered.
const availabilityNotice = "Stream availability, schedules, broadcast rights and regional restrictions can change. " +
	"This directory does not check them: no current availability is implied by this page."

// stationRecord reads the station named by the path segment; an id that is
// not a UUID names no station, like the API's 404.
func stationRecord(ix *query.Index, segment string) (format.Record, error) {
	id, err := format.ParseUUID(segment)
	if err != nil {
		return format.Record{}, errNoStation
	}
	return ix.Station(id)
}

func (s *Server) stationPage(_ *http.Request, ix *query.Index, args []string) (*page, error) {
	rec, err := stationRecord(ix, args[0])
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
	return s.stationPageOf(&rec, near, variants), nil
}

// stationPageOf is the station page of rec, near being its nearby stations
// and variants the other entries of its group (none: a station that
// stands alone has no such section). It reads the record itself rather
// than stationjson.New's model, whose facet URLs it would build twice, and
// keeps its links in one backing array (pageLinks).
func (s *Server) stationPageOf(rec *format.Record, near, variants block) *page {
	id := rec.ID.String()
	ls := make(pageLinks, 0, 16+len(rec.Languages)+len(rec.LanguageCodes)+len(rec.Genres))
	blocks := make([]block, 0, 5)
	blocks = append(blocks, block{Facts: stationFacts(s.base, rec, id, &ls)})
	start := len(ls)
	ls = append(ls, internalLink("Listening page", stationjson.ListenURL(s.base, rec.ID)))
	ls.addPlaylists(s.base, rec)
	blocks = append(blocks, block{Heading: "Listen", Notice: availabilityNotice, Links: ls.from(start)})
	if variants.Heading != "" {
		blocks = append(blocks, variants)
	}
	return &page{
		Title:       cleanText(stationjson.PageTitle(rec)),
		Heading:     cleanText(rec.Name),
		Path:        stationjson.StationURL("", rec.ID), // the path: the address without a base
		Description: stationDescription(rec),
		Blocks: append(blocks, near, block{Heading: "Data", Links: ls.add(
			internalLink("This station in the JSON API", s.base+pathStation+id),
			internalLink("All stations as a download", s.base+pathCatalog),
		)}),
	}
}

// pageLinks is the backing array of a page's link lists: each list is a run
// of it, with no room after it (add), so that the two dozen short lists of
// a station page cost one allocation rather than one each.
type pageLinks []link

// add appends ls and returns them as a list of their own.
func (p *pageLinks) add(ls ...link) []link {
	start := len(*p)
	*p = append(*p, ls...)
	return p.from(start)
}

// from is the links appended since the length was start, as a list of
// their own: appending to it cannot overwrite the next list.
func (p *pageLinks) from(start int) []link { return (*p)[start:len(*p):len(*p)] }

// stationFacts lists the record's fields, each value linked to its
// directory page where it has one, as the station's JSON links them.
func stationFacts(base string, r *format.Record, id string, ls *pageLinks) []fact {
	return []fact{
		{"Country", ls.add(countryValue(base, r))},
		{"Location", ls.add(locationValue(base, r.Location))},
		{"Languages", ls.facetValues(base, r.Languages, stationjson.KindLanguages)},
		{"Language codes", ls.textValues(r.LanguageCodes)},
		{"Genres", ls.facetValues(base, r.Genres, stationjson.KindGenres)},
		{"Bitrate", ls.add(bitrateValue(r.BitrateKbps))},
		{"Codec", ls.add(unknownValue(r.Codec))},
		{"Official website", ls.add(officialValue(r.OfficialURL))},
		{"Station id", ls.add(textValue(id))},
	}
}

func countryValue(base string, r *format.Record) link {
	label := r.Country
	if label == "" {
		label = r.CountryCode
	}
	if r.CountryCode == "" {
		return unknownValue(label)
	}
	return internalLink(label+" ("+r.CountryCode+")", stationjson.CountryURL(base, r.CountryCode))
}

func locationValue(base, place string) link {
	if u, ok := stationjson.LocationURL(base, place); ok {
		return internalLink(place, u)
	}
	return unknownValue(place)
}

// facetValues links each label to its directory page, built as
// stationjson builds the station's language_urls and genre_urls.
func (p *pageLinks) facetValues(base string, labels []string, kind string) []link {
	if len(labels) == 0 {
		return p.add(unknownValue(""))
	}
	start := len(*p)
	for _, l := range labels {
		v := textValue(l)
		if u, ok := stationjson.FacetURL(base, kind, l); ok {
			v = internalLink(l, u)
		}
		*p = append(*p, v)
	}
	return p.from(start)
}

func (p *pageLinks) textValues(vs []string) []link {
	if len(vs) == 0 {
		return p.add(unknownValue(""))
	}
	start := len(*p)
	for _, v := range vs {
		*p = append(*p, textValue(v))
	}
	return p.from(start)
}

func bitrateValue(kbps uint32) link {
	if kbps == 0 {
		return unknownValue("")
	}
	return textValue(strconv.FormatUint(uint64(kbps), 10) + " kbps")
}

func officialValue(u string) link {
	if u == "" {
		return unknownValue("")
	}
	return externalLink(u, u)
}

func unknownValue(label string) link {
	if label != "" {
		return textValue(label)
	}
	return textValue("not listed")
}

func (s *Server) listenPage(_ *http.Request, ix *query.Index, args []string) (*page, error) {
	rec, err := stationRecord(ix, args[0])
	if err != nil {
		return nil, err
	}
	return s.listenPageOf(&rec), nil
}

// listenPageOf is the listening page of rec.
func (s *Server) listenPageOf(rec *format.Record) *page {
	// Not stationjson.New: the page needs four of its fields, and the
	// others (each facet's URL) were most of the page's model.
	title, pageURL := cleanText(stationjson.PageTitle(rec)), stationjson.StationURL(s.base, rec.ID)
	player := block{Heading: "Player", Notice: availabilityNotice}
	if isWebURL(rec.StreamURL) {
		player.Audio = rec.StreamURL
		if note := mixedContentNotice(rec.StreamURL); note != "" {
			player.Text = []string{note}
		}
	} else {
		player.Text = []string{"No playable http(s) stream address is listed for this station."}
	}
	ls := make(pageLinks, 0, 5)
	blocks := make([]block, 0, 3)
	blocks = append(blocks, player)
	if ls.addPlaylists(s.base, rec); len(ls) > 0 {
		blocks = append(blocks, block{Heading: "In another player", Links: ls.from(0)})
	}
	start := len(ls)
	ls = append(ls, internalLink("Station page", pageURL))
	if rec.OfficialURL != "" {
		ls = append(ls, externalLink("Official website", rec.OfficialURL))
	}
	return &page{
		Title:   "Listen: " + title,
		Heading: "Listen: " + cleanText(rec.Name),
		Path:    stationjson.ListenURL("", rec.ID), // the path: the address without a base
		Media:   player.Audio != "",
		Blocks:  append(blocks, block{Heading: "More", Links: ls.from(start)}),
	}
}

// stationDescription says what and where a station is, for search results.
func stationDescription(r *format.Record) string {
	d := cleanText(r.Name) + ": radio station"
	if r.Location != "" || r.Country != "" {
		var place [96]byte
		d += " in " + string(appendPlace(place[:0], r))
	}
	if len(r.Genres) > 0 {
		d += " (" + cleanText(strings.Join(r.Genres[:min(len(r.Genres), 4)], ", ")) + ")"
	}
	return clipWords(d+". Stream link, details and JSON in the stationdex directory.", maxDescriptionRunes)
}

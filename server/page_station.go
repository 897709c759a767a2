package server

import (
	"net/http"
	"strconv"
	"strings"

	"stationdex/indexer/format"
	"stationdex/indexer/stationjson"
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
// stands alone has no such section).
func (s *Server) stationPageOf(rec *format.Record, near, variants block) *page {
	st := stationjson.New(s.base, rec)
	listen := []block{
		{Facts: stationFacts(s.base, rec, &st)},
		{Heading: "Listen", Notice: availabilityNotice,
			Links: append([]link{internalLink("Listening page", st.ListenURL)}, playlistLinks(s.base, rec)...)},
	}
	if variants.Heading != "" {
		listen = append(listen, variants)
	}
	return &page{
		Title:       cleanText(st.PageTitle),
		Heading:     cleanText(st.Name),
		Path:        strings.TrimPrefix(st.PageURL, s.base),
		Description: stationDescription(rec),
		Blocks: append(listen, near, block{Heading: "Data", Links: []link{
			internalLink("This station in the JSON API", s.base+pathStation+st.ID),
			internalLink("All stations as a download", s.base+pathCatalog),
		}}),
	}
}

// stationFacts lists the record's fields, each value linked to its
// directory page where it has one.
func stationFacts(base string, r *format.Record, st *stationjson.Station) []fact {
	return []fact{
		{"Country", []link{countryValue(r, st)}},
		{"Location", []link{facetValue(r.Location, st.LocationURL)}},
		{"Languages", facetValues(base, r.Languages, stationjson.KindLanguages)},
		{"Language codes", textValues(st.LanguageCodes)},
		{"Genres", facetValues(base, r.Genres, stationjson.KindGenres)},
		{"Bitrate", []link{bitrateValue(st.BitrateKbps)}},
		{"Codec", []link{codecValue(st.Codec)}},
		{"Official website", []link{officialValue(st.OfficialURL)}},
		{"Station id", []link{textValue(st.ID)}},
	}
}

func countryValue(r *format.Record, st *stationjson.Station) link {
	label := r.Country
	if label == "" {
		label = r.CountryCode
	}
	if st.CountryURL == "" {
		return unknownValue(label)
	}
	return internalLink(label+" ("+r.CountryCode+")", st.CountryURL)
}

func facetValue(label string, u *string) link {
	if u == nil {
		return unknownValue(label)
	}
	return internalLink(label, *u)
}

// facetValues links each label to its directory page, built as
// stationjson builds the station's language_urls and genre_urls.
func facetValues(base string, labels []string, kind string) []link {
	if len(labels) == 0 {
		return []link{unknownValue("")}
	}
	out := make([]link, len(labels))
	for i, l := range labels {
		out[i] = textValue(l)
		if u, ok := stationjson.FacetURL(base, kind, l); ok {
			out[i] = internalLink(l, u)
		}
	}
	return out
}

func textValues(vs []string) []link {
	if len(vs) == 0 {
		return []link{unknownValue("")}
	}
	out := make([]link, len(vs))
	for i, v := range vs {
		out[i] = textValue(v)
	}
	return out
}

func bitrateValue(kbps *uint32) link {
	if kbps == nil {
		return unknownValue("")
	}
	return textValue(strconv.FormatUint(uint64(*kbps), 10) + " kbps")
}

func officialValue(u *string) link {
	if u == nil {
		return unknownValue("")
	}
	return externalLink(*u, *u)
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
	title, pageURL, listenURL := cleanText(stationjson.PageTitle(rec)), stationjson.StationURL(s.base, rec.ID), stationjson.ListenURL(s.base, rec.ID)
	player := block{Heading: "Player", Notice: availabilityNotice}
	if isWebURL(rec.StreamURL) {
		player.Audio = rec.StreamURL
		if note := mixedContentNotice(rec.StreamURL); note != "" {
			player.Text = []string{note}
		}
	} else {
		player.Text = []string{"No playable http(s) stream address is listed for this station."}
	}
	links := []link{internalLink("Station page", pageURL)}
	if rec.OfficialURL != "" {
		links = append(links, externalLink("Official website", rec.OfficialURL))
	}
	blocks := []block{player}
	if files := playlistLinks(s.base, rec); files != nil {
		blocks = append(blocks, block{Heading: "In another player", Links: files})
	}
	return &page{
		Title:   "Listen: " + title,
		Heading: "Listen: " + cleanText(rec.Name),
		Path:    strings.TrimPrefix(listenURL, s.base),
		Media:   player.Audio != "",
		Blocks:  append(blocks, block{Heading: "More", Links: links}),
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

func codecValue(codec *string) link {
	if codec == nil {
		return unknownValue("")
	}
	return textValue(*codec)
}

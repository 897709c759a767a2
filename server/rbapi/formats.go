package rbapi

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"stationdex/server/core"
)

// The output formats of the Radio Browser API: upstream serves each path
// under /{format}/ as well as /json/, a station list in seven formats
// (json, xml, csv, m3u, pls, xspf, ttl), a list of values in json, csv
// and xml, a station's url in json, xml, m3u and pls, the stats in json
// and xml. A format a path does not have is a 406, as upstream's. The
// shapes are upstream's (radiobrowser-api-rust 0.7.24: its station,
// extra-info, state, country and language serialisers), written here
// from the stored station objects, each text escaped for its format:
// XML's markup characters and the characters XML 1.0 cannot hold, CSV's
// quotes, a line break in an M3U or PLS line (which would start another
// entry) made a space, Turtle's string and IRI escapes.

// rbFormat is one output format.
type rbFormat struct {
	Name        string
	ContentType string
	// Disposition names the playlist file, as upstream's header does.
	Disposition string
	head        func(dst []byte, n int) []byte
	station     func(dst []byte, st rbStation, i int) []byte
	tail        func(dst []byte, n int) []byte
}

// The formats, by upstream's path prefix.
var (
	FormatJSON = &rbFormat{Name: "json", ContentType: core.JSONType}
	formatXML  = &rbFormat{Name: "xml", ContentType: "text/xml; charset=utf-8",
		head:    func(dst []byte, _ int) []byte { return append(dst, xmlDecl+"<result>"...) },
		station: appendXMLStation, tail: func(dst []byte, _ int) []byte { return append(dst, "</result>\n"...) }}
	formatCSV = &rbFormat{Name: "csv", ContentType: "text/csv; charset=utf-8",
		head: func(dst []byte, n int) []byte {
			if n == 0 {
				return dst // upstream writes the header with the first row
			}
			return appendCSV(dst, rbStationColumns)
		},
		station: appendCSVStation, tail: func(dst []byte, _ int) []byte { return dst }}
	formatM3U = &rbFormat{Name: "m3u", ContentType: "audio/mpegurl", Disposition: `inline; filename="playlist.m3u"`,
		head: func(dst []byte, _ int) []byte { return append(dst, "#EXTM3U\r\n"...) },
		station: func(dst []byte, st rbStation, _ int) []byte {
			return appendM3UEntry(dst, st.text("stationuuid"), st.text("name"), st.text("url"))
		}, tail: func(dst []byte, _ int) []byte { return dst }}
	formatPLS = &rbFormat{Name: "pls", ContentType: "audio/x-scpls", Disposition: `inline; filename="playlist.pls"`,
		head: appendPLSHead,
		station: func(dst []byte, st rbStation, i int) []byte {
			return appendPLSEntry(dst, i+1, st.text("name"), st.text("url"))
		}, tail: func(dst []byte, _ int) []byte { return dst }}
	formatXSPF = &rbFormat{Name: "xspf", ContentType: "application/xspf+xml", Disposition: `inline; filename="playlist.xspf"`,
		head: func(dst []byte, _ int) []byte {
			return append(dst, xmlDecl+`<playlist version="1" xmlns="http://xspf.org/ns/0/"><trackList>`...)
		},
		station: appendXSPFTrack, tail: func(dst []byte, _ int) []byte { return append(dst, "</trackList></playlist>\n"...) }}
	formatTTL = &rbFormat{Name: "ttl", ContentType: "text/turtle; charset=utf-8",
		head:    func(dst []byte, _ int) []byte { return append(dst, ttlPrefixes...) },
		station: appendTTLStation, tail: func(dst []byte, _ int) []byte { return dst }}
)

// Formats are every format, JSON first.
var Formats = []*rbFormat{FormatJSON, formatXML, formatCSV, formatM3U, formatPLS, formatXSPF, formatTTL}

// The formats of each kind of answer, as upstream has them.
var (
	stationFormats = Formats
	listFormats    = []*rbFormat{FormatJSON, formatCSV, formatXML}
	clickFormats   = []*rbFormat{FormatJSON, formatXML, formatM3U, formatPLS}
	statsFormats   = []*rbFormat{FormatJSON, formatXML}
)

// errNotAcceptable answers a format a path does not have.
func errNotAcceptable(f *rbFormat, path string) error {
	return core.Errorf(core.CodeNotAcceptable, "%s is not served as %s, as upstream's is not; /json/ serves it", path, f.Name)
}

// head is the entity head of an answer in f.
func (f *rbFormat) entityHead() core.EntityHead { return core.EntityHead{ContentType: f.ContentType} }

const xmlDecl = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"

// rbStation is one stored station object, its fields as they were stored.
type rbStation map[string]json.RawMessage

// text is a field as text: a string's value, a number or boolean as
// written, "" for null or a field the object does not have.
func (st rbStation) text(field string) string {
	s, _ := st.value(field)
	return s
}

// value is text, and whether the field is there and not null.
func (st rbStation) value(field string) (string, bool) {
	raw := st[field]
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, true
		}
	}
	return string(raw), true
}

// decodeStations reads a JSON array of station objects.
func decodeStations(array []byte) ([]rbStation, error) {
	var list []rbStation
	if err := json.Unmarshal(array, &list); err != nil {
		return nil, fmt.Errorf("stored station objects: %w", err)
	}
	return list, nil
}

// rbStationColumns are upstream's station fields in its order: the CSV
// columns and the XML attributes.
var rbStationColumns = []string{
	"changeuuid", "stationuuid", "serveruuid", "name", "url", "url_resolved", "homepage", "favicon", "tags",
	"country", "countrycode", "iso_3166_2", "state", "language", "languagecodes", "votes",
	"lastchangetime", "lastchangetime_iso8601", "codec", "bitrate", "hls", "lastcheckok",
	"lastchecktime", "lastchecktime_iso8601", "lastcheckoktime", "lastcheckoktime_iso8601",
	"lastlocalchecktime", "lastlocalchecktime_iso8601", "clicktimestamp", "clicktimestamp_iso8601",
	"clickcount", "clicktrend", "ssl_error", "geo_lat", "geo_long", "has_extended_info",
}

// appendXMLStation appends <station .../> with an attribute for each of
// upstream's fields that is not null.
func appendXMLStation(dst []byte, st rbStation, _ int) []byte {
	dst = append(dst, "<station"...)
	for _, col := range rbStationColumns {
		if v, ok := st.value(col); ok {
			dst = appendXMLAttr(dst, col, v)
		}
	}
	return append(dst, "/>\n"...)
}

// appendXMLAttr appends name="value", escaped.
func appendXMLAttr(dst []byte, name, value string) []byte {
	dst = append(append(append(dst, ' '), name...), `="`...)
	return append(appendXMLText(dst, value), '"')
}

// appendXMLText appends s escaped for XML text or a quoted attribute:
// the markup characters and the white space an attribute would fold as
// references, and what XML 1.0 cannot hold (controls, lone surrogates,
// U+FFFE and U+FFFF) as U+FFFD.
func appendXMLText(dst []byte, s string) []byte {
	for _, r := range s {
		switch {
		case r == '&':
			dst = append(dst, "&amp;"...)
		case r == '<':
			dst = append(dst, "&lt;"...)
		case r == '>':
			dst = append(dst, "&gt;"...)
		case r == '"':
			dst = append(dst, "&quot;"...)
		case r == '\'':
			dst = append(dst, "&apos;"...)
		case r == '\t' || r == '\n' || r == '\r':
			dst = append(strconv.AppendInt(append(dst, "&#"...), int64(r), 10), ';')
		case r < 0x20 || r == utf8.RuneError || r == 0xFFFE || r == 0xFFFF:
			dst = utf8.AppendRune(dst, utf8.RuneError)
		default:
			dst = utf8.AppendRune(dst, r)
		}
	}
	return dst
}

// appendCSV appends one record.
func appendCSV(dst []byte, fields []string) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(fields) // a bytes.Buffer does not fail
	w.Flush()
	return append(dst, b.Bytes()...)
}

func appendCSVStation(dst []byte, st rbStation, _ int) []byte {
	fields := make([]string, len(rbStationColumns))
	for i, col := range rbStationColumns {
		fields[i] = st.text(col)
	}
	return appendCSV(dst, fields)
}

// oneLine is s with its line breaks made spaces: in a playlist a line
// break would start another entry.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n\u0085\u2028\u2029") {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '\r', '\n', '\u0085', '\u2028', '\u2029':
			return ' '
		}
		return r
	}, s)
}

// appendM3UEntry appends one entry of an extended M3U playlist.
func appendM3UEntry(dst []byte, id, name, url string) []byte {
	dst = append(dst, "#RADIOBROWSERUUID:"...)
	dst = append(dst, oneLine(id)...)
	dst = append(dst, "\r\n#EXTINF:1,"...)
	dst = append(dst, oneLine(name)...)
	dst = append(dst, "\r\n"...)
	dst = append(dst, oneLine(url)...)
	return append(dst, "\r\n\r\n"...)
}

func appendPLSHead(dst []byte, n int) []byte {
	dst = append(dst, "[playlist]\r\nNumberOfEntries="...)
	return append(strconv.AppendInt(dst, int64(n), 10), "\r\n"...)
}

// appendPLSEntry appends the i-th entry (from 1) of a PLS playlist.
func appendPLSEntry(dst []byte, i int, name, url string) []byte {
	dst = strconv.AppendInt(append(dst, "Title"...), int64(i), 10)
	dst = append(append(append(dst, '='), oneLine(name)...), "\r\nFile"...)
	dst = strconv.AppendInt(dst, int64(i), 10)
	return append(append(append(dst, '='), oneLine(url)...), "\r\n\r\n"...)
}

func appendXSPFTrack(dst []byte, st rbStation, _ int) []byte {
	dst = append(dst, "<track>"...)
	for _, e := range [...][2]string{
		{"title", st.text("name")}, {"location", st.text("url")}, {"image", st.text("favicon")},
		{"identifier", "radiobrowser:" + st.text("stationuuid")},
	} {
		dst = append(append(append(dst, '<'), e[0]...), '>')
		dst = appendXMLText(dst, e[1])
		dst = append(append(append(dst, "</"...), e[0]...), '>')
	}
	return append(dst, "</track>\n"...)
}

const ttlPrefixes = "@prefix dcterms: <http://purl.org/dc/terms/> .\n" +
	"@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n" +
	"@prefix schema: <http://schema.org/> .\n\n"

// The fields a station's Turtle description names, as upstream's do:
// the named places, and the rest as schema:PropertyValue nodes.
var (
	ttlPlaces = [...][2]string{{"Country", "country"}, {"CountryCode", "countrycode"}, {"ISO3166_2", "iso_3166_2"},
		{"State", "state"}, {"Language", "language"}}
	ttlProperties = []string{"votes", "lastchangetime", "codec", "bitrate", "hls", "lastcheckok", "lastchecktime",
		"lastcheckoktime", "clicktimestamp", "clickcount", "clicktrend"}
)

// appendTTLStation appends the description of one station, in
// upstream's vocabulary; its subject is upstream's IRI of the station.
func appendTTLStation(dst []byte, st rbStation, _ int) []byte {
	id := st.text("stationuuid")
	dst = appendTTLIRI(dst, "http://radio-browser.info/radio/"+id)
	dst = append(dst, "\n    rdf:type schema:RadioStation ;\n    dcterms:identifier "...)
	dst = appendTTLString(dst, id)
	for _, p := range [...][2]string{{"changeuuid", st.text("changeuuid")}, {"stationuuid", id}} {
		dst = appendTTLProperty(dst, p[0], p[1])
	}
	dst = appendTTLString(append(dst, " ;\n    schema:name "...), st.text("name"))
	for _, l := range [...][2]string{{"url", "url"}, {"sameAs", "homepage"}, {"logo", "favicon"}} {
		if v := st.text(l[1]); v != "" {
			dst = appendTTLIRI(append(append(append(dst, " ;\n    schema:"...), l[0]...), ' '), v)
		}
	}
	for _, p := range ttlPlaces {
		dst = append(append(append(dst, " ;\n    schema:"...), p[0]...), " [ schema:name "...)
		dst = append(appendTTLString(dst, st.text(p[1])), " ]"...)
	}
	for _, name := range ttlProperties {
		dst = appendTTLProperty(dst, name, st.text(name))
	}
	return append(dst, " .\n\n"...)
}

func appendTTLProperty(dst []byte, name, value string) []byte {
	dst = append(dst, " ;\n    schema:PropertyValue [ schema:name "...)
	dst = appendTTLString(dst, name)
	dst = append(dst, " ; schema:value "...)
	return append(appendTTLString(dst, value), " ]"...)
}

// appendTTLString appends a Turtle string literal: quotes, backslashes
// and controls escaped.
func appendTTLString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\n':
			dst = append(dst, `\n`...)
		case r == '\r':
			dst = append(dst, `\r`...)
		case r == '\t':
			dst = append(dst, `\t`...)
		case r < 0x20 || r == 0x7f:
			dst = fmt.Appendf(dst, `\u%04X`, r)
		case r == 0xFFFE || r == 0xFFFF: // no Turtle parser takes them
			dst = utf8.AppendRune(dst, utf8.RuneError)
		default:
			dst = utf8.AppendRune(dst, r)
		}
	}
	return append(dst, '"')
}

// appendTTLIRI appends <iri>, the characters a Turtle IRI cannot hold
// (space, controls, <>"{}|^`\) percent-encoded, as a URL would be.
func appendTTLIRI(dst []byte, iri string) []byte {
	dst = append(dst, '<')
	for i := 0; i < len(iri); i++ {
		c := iri[i]
		if c <= 0x20 || c == 0x7f || strings.IndexByte("<>\"{}|^`\\", c) >= 0 {
			dst = fmt.Appendf(dst, "%%%02X", c)
			continue
		}
		dst = append(dst, c)
	}
	return append(dst, '>')
}

// appendStationsIn appends the stations of array (a JSON array of
// station objects, the base URL spliced in), the first of them the
// first-th of the answer, in f; f is not JSON.
func appendStationsIn(dst []byte, f *rbFormat, array []byte, first int) ([]byte, int, error) {
	list, err := decodeStations(array)
	if err != nil {
		return dst, 0, err
	}
	for i, st := range list {
		dst = f.station(dst, st, first+i)
	}
	return dst, len(list), nil
}

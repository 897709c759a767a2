package stationjson

import (
	"slices"
	"strconv"

	"stationdex/internal/format"
)

// AppendStored appends the stored form of r's JSON (format.BucketStationJSON):
// AppendJSON of the station with every service URL's base URL replaced by
// format.BaseURLMark. Splice turns it into AppendJSON of New(base, r) for
// any base.
//
// It writes the fields straight from the record, where New would build
// the station's strings first (its URLs, its lists of them, its title):
// a build encodes every station once, and at 5M stations making those
// strings was 9.5 of the 15.9 CPU-seconds the encoding took. What it
// writes is New's station, field for field, as AppendJSON writes it:
// TestStoredJSON and FuzzAppendJSON check the two agree.
func AppendStored(dst []byte, r *format.Record) []byte {
	var text [36]byte
	id := r.ID.Append(text[:0]) // hex digits and dashes: nothing to escape
	dst = append(append(append(dst, `{"id":"`...), id...), '"')
	dst = appendField(dst, "name", r.Name)
	dst = appendStationPath(appendName(dst, "page_url"), id, "")
	dst = appendStationPath(appendName(dst, "listen_url"), id, "listen/")
	dst = appendField(dst, "country", r.Country)
	dst = appendField(dst, "country_code", r.CountryCode)
	if r.Location != "" {
		dst = appendField(dst, "location", r.Location)
	}
	dst = appendListField(dst, "languages", nonNil(r.Languages), false)
	dst = appendListField(dst, "genres", nonNil(r.Genres), false)
	dst = append(dst, `,"bitrate_kbps":`...)
	if r.BitrateKbps == 0 {
		dst = append(dst, "null"...)
	} else {
		dst = strconv.AppendUint(dst, uint64(r.BitrateKbps), 10)
	}
	dst = appendOptionalField(dst, "codec", r.Codec)
	dst = appendName(dst, "geo")
	if r.Geo.Known {
		p := Point{Lat: r.Geo.LatDeg(), Lon: r.Geo.LonDeg()}
		dst = p.AppendJSON(dst)
	} else {
		dst = append(dst, "null"...)
	}
	dst = appendOptionalField(dst, "official_url", r.OfficialURL)
	if r.CountryCode != "" {
		dst = appendURLField(dst, "country_url", CountryURL("", r.CountryCode), true)
	}
	dst = appendListField(dst, "language_codes", nonNil(r.LanguageCodes), false)
	dst = appendFacetPaths(appendName(dst, "language_urls"), KindLanguages, r.Languages)
	dst = appendFacetPaths(appendName(dst, "genre_urls"), KindGenres, r.Genres)
	dst = appendName(dst, "location_url")
	if seg, ok := facetSegments[KindLocations].get(r.Location); ok {
		dst = appendFacetPath(dst, KindLocations, seg)
	} else {
		dst = append(dst, "null"...)
	}
	return append(appendPageTitle(appendName(dst, "page_title"), r), '}')
}

// appendOptionalField is appendNullableField of Nullable(value).
func appendOptionalField(dst []byte, name, value string) []byte {
	if value == "" {
		return append(appendName(dst, name), "null"...)
	}
	return appendField(dst, name, value)
}

// appendStationPath appends StationFileURL("", id, name), marked.
func appendStationPath(dst, id []byte, name string) []byte {
	dst = append(dst, '"', format.BaseURLMark)
	dst = append(append(append(dst, "/stations/"...), id...), '/')
	return append(appendStringBody(dst, name), '"')
}

// appendFacetPaths appends, as a list, the marked paths of the directory
// pages of labels of kind, each page once: New's facetURLs.
func appendFacetPaths(dst []byte, kind string, labels []string) []byte {
	var listed [8]string // the segments written, for most stations
	segs := listed[:0]
	dst = append(dst, '[')
	for _, l := range labels {
		seg, ok := facetSegments[kind].get(l)
		if !ok || slices.Contains(segs, seg) {
			continue
		}
		if len(segs) > 0 {
			dst = append(dst, ',')
		}
		segs = append(segs, seg)
		dst = appendFacetPath(dst, kind, seg)
	}
	return append(dst, ']')
}

// appendFacetPath appends FacetURL("", kind, value) for value's segment
// seg, marked.
func appendFacetPath(dst []byte, kind, seg string) []byte {
	dst = append(dst, '"', format.BaseURLMark, '/')
	dst = appendStringBody(append(appendStringBody(dst, kind), '/'), seg)
	return append(dst, '/', '"')
}

// appendPageTitle appends PageTitle(r) as a JSON string. Its parts are
// escaped one by one: escaping goes character by character (an invalid
// byte is one invalid byte whatever follows it), and the text joining
// them opens and closes with a space, so this is the escaping of the
// whole. The same holds of the paths, joined by '/'.
func appendPageTitle(dst []byte, r *format.Record) []byte {
	where := r.Country
	if where == "" {
		where = "radio station"
	}
	dst = appendStringBody(append(dst, '"'), r.Name)
	dst = appendStringBody(append(dst, " — "...), where)
	return append(dst, ` | stationdex"`...)
}

package stationjson

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"stationdex/internal/format"
)

// AppendJSON appends st as a JSON object: byte for byte what encoding/json
// gives for a Station with its default HTML-safe escaping (TestAppendJSON
// and FuzzAppendJSON hold the two equal), without reflection. A search page
// encodes tens of stations per request, and reflection was a fifth of the
// server's CPU.
//
// The index stores what this writes (AppendStored), and the API sends the
// stored bytes: a change to the output here, or to the URLs New builds,
// must come with a new format.Version, or servers would keep sending the
// old shape from old files (`stationdex check` reports such a file, as its
// stored JSON no longer matches its records).
func (st *Station) AppendJSON(dst []byte) []byte { return st.appendJSON(dst, false) }

// Splice appends stored JSON (AppendStored, one station or several) with
// every format.BaseURLMark replaced by base, the base URL as escaped in a
// JSON string (EscapeBase): a copy, no decoding.
func Splice(dst, stored []byte, base string) []byte {
	for {
		i := bytes.IndexByte(stored, format.BaseURLMark)
		if i < 0 {
			return append(dst, stored...)
		}
		dst = append(dst, stored[:i]...)
		dst = append(dst, base...)
		stored = stored[i+1:]
	}
}

// EscapeBase is base as AppendString writes it inside the quotes, for
// Splice: a base URL may hold '&' (or anything else a JSON string escapes),
// and the escaping of a URL is that of its base followed by that of its
// path, which starts with an ASCII '/'.
func EscapeBase(base string) string {
	q := AppendString(nil, base)
	return string(q[1 : len(q)-1])
}

// appendJSON is AppendJSON, or with mark the stored form: each service
// URL (page, listen, country, language, genre and location URLs) opens
// with format.BaseURLMark, written raw, before its escaped text.
func (st *Station) appendJSON(dst []byte, mark bool) []byte {
	dst = append(dst, `{"id":`...)
	dst = AppendString(dst, st.ID)
	dst = appendField(dst, "name", st.Name)
	dst = appendURLField(dst, "page_url", st.PageURL, mark)
	dst = appendURLField(dst, "listen_url", st.ListenURL, mark)
	dst = appendField(dst, "country", st.Country)
	dst = appendField(dst, "country_code", st.CountryCode)
	if st.Location != "" {
		dst = appendField(dst, "location", st.Location)
	}
	dst = appendListField(dst, "languages", st.Languages, false)
	dst = appendListField(dst, "genres", st.Genres, false)
	dst = append(dst, `,"bitrate_kbps":`...)
	if st.BitrateKbps == nil {
		dst = append(dst, "null"...)
	} else {
		dst = strconv.AppendUint(dst, uint64(*st.BitrateKbps), 10)
	}
	dst = appendNullableField(dst, "codec", st.Codec)
	dst = appendName(dst, "geo")
	if st.Geo == nil {
		dst = append(dst, "null"...)
	} else {
		dst = st.Geo.AppendJSON(dst)
	}
	dst = appendNullableField(dst, "official_url", st.OfficialURL)
	if st.CountryURL != "" {
		dst = appendURLField(dst, "country_url", st.CountryURL, mark)
	}
	dst = appendListField(dst, "language_codes", st.LanguageCodes, false)
	dst = appendListField(dst, "language_urls", st.LanguageURLs, mark)
	dst = appendListField(dst, "genre_urls", st.GenreURLs, mark)
	if mark && st.LocationURL != nil {
		dst = appendURLField(dst, "location_url", *st.LocationURL, mark)
	} else {
		dst = appendNullableField(dst, "location_url", st.LocationURL)
	}
	dst = appendField(dst, "page_title", st.PageTitle)
	return append(dst, '}')
}

// appendField appends `,"name":"value"`; names are plain ASCII.
func appendField(dst []byte, name, value string) []byte {
	dst = appendName(dst, name)
	return AppendString(dst, value)
}

// appendURLField is appendField for a service URL, marked when mark.
func appendURLField(dst []byte, name, value string, mark bool) []byte {
	if !mark {
		return appendField(dst, name, value)
	}
	return appendURL(appendName(dst, name), value)
}

// appendURL appends a service URL's path as a JSON string opening with
// format.BaseURLMark.
func appendURL(dst []byte, path string) []byte {
	dst = append(dst, '"', format.BaseURLMark)
	return append(appendStringBody(dst, path), '"')
}

func appendNullableField(dst []byte, name string, value *string) []byte {
	dst = appendName(dst, name)
	if value == nil {
		return append(dst, "null"...)
	}
	return AppendString(dst, *value)
}

// appendListField appends a list of strings, or with mark a list of
// service URLs, marked.
func appendListField(dst []byte, name string, values []string, mark bool) []byte {
	dst = appendName(dst, name)
	if values == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, v := range values {
		if i > 0 {
			dst = append(dst, ',')
		}
		if mark {
			dst = appendURL(dst, v)
		} else {
			dst = AppendString(dst, v)
		}
	}
	return append(dst, ']')
}

func appendName(dst []byte, name string) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	return append(dst, '"', ':')
}

const hexDigits = "0123456789abcdef"

// safeASCII marks the ASCII bytes a JSON string carries as they are:
// printable, except the quote, the backslash and the HTML metacharacters.
var safeASCII = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = !strings.ContainsRune(`"\<>&`, rune(b))
	}
	return t
}()

// AppendString appends s as a JSON string with encoding/json's escaping:
// quotes, backslashes and control characters escaped, <, > and & as \u
// escapes (so station text cannot become markup where JSON is embedded in
// HTML), U+2028 and U+2029 escaped, and invalid UTF-8 replaced by U+FFFD.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	return append(appendStringBody(dst, s), '"')
}

// appendStringBody is AppendString without the quotes.
func appendStringBody(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if safeASCII[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendEscapedByte(dst, b)
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

func appendEscapedByte(dst []byte, b byte) []byte {
	switch b {
	case '\\', '"':
		return append(dst, '\\', b)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
}

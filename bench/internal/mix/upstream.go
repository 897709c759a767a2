package mix

import (
	"net/url"
	"strconv"
)

// UpSearch is one upstream-style station search (Radio Browser's
// /json/stations/search), the filters its clients send most: a name
// substring, a tag, a country code, a language, a codec, an order with
// reverse, offset and limit. The suite sends it to a node over HTTP and,
// as the upstream statement, to MariaDB (engines.MariaDB.UpstreamSearch).
type UpSearch struct {
	Name, Tag, CountryCode, Language, Codec string
	// TagExact and LanguageExact ask for the whole value (upstream's
	// comma-list test) instead of a substring.
	TagExact, LanguageExact bool
	HideBroken              bool
	// Order is an upstream order value ("" is upstream's default, name).
	Order         string
	Reverse       bool
	Offset, Limit int
}

// Path is the request target of s on a node, parameters in upstream's
// spelling.
func (s UpSearch) Path() string {
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	flag := func(k string, on bool) {
		if on {
			v.Set(k, "true")
		}
	}
	set("name", s.Name)
	set("tag", s.Tag)
	flag("tagExact", s.TagExact)
	set("countrycode", s.CountryCode)
	set("language", s.Language)
	flag("languageExact", s.LanguageExact)
	set("codec", s.Codec)
	flag("hidebroken", s.HideBroken)
	set("order", s.Order)
	flag("reverse", s.Reverse)
	if s.Offset > 0 {
		v.Set("offset", strconv.Itoa(s.Offset))
	}
	v.Set("limit", strconv.Itoa(s.Limit))
	return "/json/stations/search?" + v.Encode()
}

package oracle

import (
	"cmp"
	"slices"
	"strings"

	"stationdex/internal/fold"
	"stationdex/internal/format"
)

// The Radio Browser API's search (/json/stations/search), answered by a
// linear scan from upstream's documentation (its SQL: one condition per
// parameter, ORDER BY one column) and the deliberate differences
// server/API.md lists: text matches fold case and accents (tags case
// only); a substring of tags or languages is held by one tag or label,
// not by the comma list; an unknown bitrate is outside every bound; equal
// values go by name and reverse turns the whole order round. The cleaned
// records give what the index keeps of a station (its name, labels,
// position, stream address); the source records give what upstream's
// columns hold (the country label, the flags, the codec, the tags, the
// values orders sort by).

// UpstreamRequest is a search in upstream's parameters. Empty texts, zero
// bounds and empty flags ("true", "false" or "") set no condition.
type UpstreamRequest struct {
	Name, Country, State, Language, Tag  string
	NameExact, CountryExact, StateExact  bool
	LanguageExact, TagExact              bool
	TagList                              []string
	CountryCode, Codec                   string
	BitrateMin, BitrateMax               int
	HasGeoInfo, HasExtendedInfo, IsHTTPS string
	HideBroken                           bool
	Near                                 *Near
	Order                                string // upstream's order value; "" is name
	Reverse                              bool
	Offset, Limit                        int // Limit 0: every one
}

// upstreamStation is what upstream's columns hold for a station.
type upstreamStation struct {
	country                string // facet key of the source's label, bounded
	checkOK, extended, geo bool
	tags                   []string // the source's tags, trimmed and lower-cased, as upstream's tag cache
	// the orders' values, bounded as stored, by upstreamOrders' index
	text [len(upstreamOrders)]string
	num  [len(upstreamOrders)]float64
}

// Upstream answers the compatible search over the stations of an Oracle.
type Upstream struct {
	o  *Oracle
	up []upstreamStation // by the oracle's presentation order
}

// upCodec and upTags are the places of the codec and the tags in
// upstreamOrders: the source's values, as stored.
var upCodec, upTags = upstreamField("codec"), upstreamField("tags")

func upstreamField(field string) int {
	return slices.IndexFunc(upstreamOrders[:], func(o struct {
		order, field string
		number       bool
	}) bool {
		return o.field == field
	})
}

// upstreamOrders are the orders by a column, as the station object
// names it, and whether it holds a number.
var upstreamOrders = [...]struct {
	order, field string
	number       bool
}{
	{"url", "url", false}, {"homepage", "homepage", false}, {"favicon", "favicon", false},
	{"tags", "tags", false}, {"country", "country", false}, {"state", "state", false},
	{"language", "language", false}, {"votes", "votes", true}, {"codec", "codec", false},
	{"bitrate", "bitrate", true}, {"lastcheckok", "lastcheckok", true},
	{"lastchecktime", "lastchecktime", false}, {"clicktimestamp", "clicktimestamp", false},
	{"clickcount", "clickcount", true}, {"clicktrend", "clicktrend", true},
	{"changetimestamp", "lastchangetime", false},
}

// Bounds of the stored object's values (server/API.md): free text cut at
// 2048 characters, a URL over 2048 bytes left out, the fields of fixed
// shape (times, codec) cut at 64 characters.
const (
	upTextRunes  = 2048
	upURLBytes   = 2048
	upShortRunes = 64
)

// NewUpstream pairs the stations of o with their source records (decoded
// NDJSON objects; the first of each stationuuid counts).
func NewUpstream(o *Oracle, source []map[string]any) *Upstream {
	byID := map[format.UUID]map[string]any{}
	for _, r := range source {
		s, _ := r["stationuuid"].(string)
		id, err := format.ParseUUID(s)
		if _, seen := byID[id]; err == nil && !seen {
			byID[id] = r
		}
	}
	u := &Upstream{o: o, up: make([]upstreamStation, len(o.stations))}
	for i := range o.stations {
		u.up[i] = upstreamOf(byID[o.stations[i].id])
	}
	return u
}

func upstreamOf(r map[string]any) upstreamStation {
	text := func(k string) string { v, _ := r[k].(string); return v }
	num := func(k string) float64 { v, _ := r[k].(float64); return v }
	s := upstreamStation{
		country: format.FacetKey(cutText(text("country"), upTextRunes)), checkOK: num("lastcheckok") == 1,
		extended: r["has_extended_info"] == true, geo: r["geo_lat"] != nil && r["geo_long"] != nil,
	}
	for i, o := range upstreamOrders {
		if o.number {
			s.num[i] = num(o.field)
			continue
		}
		v := text(o.field)
		switch o.field {
		case "url", "homepage", "favicon":
			if len(v) > upURLBytes {
				v = ""
			}
		case "tags", "country", "state", "language":
			v = cutText(v, upTextRunes)
		default:
			v = cutText(v, upShortRunes)
		}
		s.text[i] = v
	}
	for _, t := range strings.Split(s.text[upTags], ",") {
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
			s.tags = append(s.tags, t)
		}
	}
	return s
}

// cutText keeps the first n characters of s, trailing spaces dropped.
func cutText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return strings.TrimRight(string(r[:n]), " ")
	}
	return s
}

// Search returns the ids q selects, in its order, paged; for random, in
// name order (a shuffle can only be compared as a set).
func (u *Upstream) Search(q UpstreamRequest) []format.UUID {
	f := newFilter(Request{Country: q.CountryCode, BitrateMin: q.BitrateMin, BitrateMax: q.BitrateMax,
		Near: q.Near, HTTPS: q.IsHTTPS})
	var hits []int
	for i := range u.o.stations {
		if f.passes(&u.o.stations[i]) && u.passes(i, &q) {
			hits = append(hits, i)
		}
	}
	u.sort(hits, q.Order)
	if q.Reverse && q.Order != "random" {
		slices.Reverse(hits)
	}
	hits = hits[min(q.Offset, len(hits)):]
	if q.Limit > 0 {
		hits = hits[:min(q.Limit, len(hits))]
	}
	ids := make([]format.UUID, len(hits))
	for i, h := range hits {
		ids[i] = u.o.stations[h].id
	}
	return ids
}

// sort orders hits (in name order) by the column of order, equal
// values in name order (hits are indexes in it).
func (u *Upstream) sort(hits []int, order string) {
	for i, o := range upstreamOrders {
		if o.order != order {
			continue
		}
		slices.SortFunc(hits, func(a, b int) int {
			return cmp.Or(cmp.Compare(u.up[a].num[i], u.up[b].num[i]), strings.Compare(u.up[a].text[i], u.up[b].text[i]), cmp.Compare(a, b))
		})
	}
}

// passes applies the conditions of q that Request has no word for.
func (u *Upstream) passes(i int, q *UpstreamRequest) bool {
	s, up := &u.o.stations[i], &u.up[i]
	if q.Tag != "" && !holdsTag(up.tags, q.Tag, q.TagExact) {
		return false
	}
	for _, t := range q.TagList {
		// A tagList item is trimmed and an empty one dropped, as the
		// list is read (API.md), unlike tag, which is taken as sent.
		if t = strings.TrimSpace(t); t != "" && !holdsTag(up.tags, t, q.TagExact) {
			return false
		}
	}
	return flag(q.HasGeoInfo, up.geo) && flag(q.HasExtendedInfo, up.extended) && (!q.HideBroken || up.checkOK) &&
		(q.Codec == "" || strings.EqualFold(up.text[upCodec], q.Codec)) && // LOWER(Codec)=LOWER(codec)
		u.holdsName(s, q) && holdsLabel([]string{up.country}, q.Country, q.CountryExact) &&
		holdsLabel([]string{s.location}, q.State, q.StateExact) && u.holdsLanguage(s, q)
}

// flag is a tri-state condition: "" none, else want must be the value.
func flag(want string, value bool) bool {
	return want == "" || (want == "true") == value
}

// holdsName: the name holds the text, case and accents aside (upstream's
// LIKE under a case- and accent-insensitive collation), or is it, case,
// accents and punctuation aside.
func (u *Upstream) holdsName(s *oracleStation, q *UpstreamRequest) bool {
	switch {
	case q.Name == "":
		return true
	case q.NameExact:
		return s.nameKey == fold.Key(q.Name)
	}
	return strings.Contains(s.folded, fold.String(q.Name))
}

// holdsLabel: one of keys (facet keys of a station's labels; "" is none)
// holds the text's key, or is it exactly.
func holdsLabel(keys []string, text string, exact bool) bool {
	if text == "" {
		return true
	}
	want := format.FacetKey(text)
	for _, k := range keys {
		if k != "" && (exact && k == want || !exact && strings.Contains(k, want)) {
			return true
		}
	}
	return !exact && want == "" // LIKE '%%'
}

// holdsLanguage: a label holds the text; exactly, a label is it, or the
// language it names (an ISO 639 code or name) is one the station has.
func (u *Upstream) holdsLanguage(s *oracleStation, q *UpstreamRequest) bool {
	if q.LanguageExact && q.Language != "" {
		return newFilter(Request{Language: q.Language}).passes(s)
	}
	return holdsLabel(s.languages, q.Language, false)
}

// holdsTag: a tag of the station (as the source writes it, lower-cased)
// is the tag, lower-cased (exact), or holds it.
func holdsTag(tags []string, tag string, exact bool) bool {
	want := strings.ToLower(tag)
	if exact {
		return slices.Contains(tags, want)
	}
	if want == "" {
		return true // LIKE '%%'
	}
	for _, t := range tags {
		if strings.Contains(t, want) {
			return true
		}
	}
	return false
}

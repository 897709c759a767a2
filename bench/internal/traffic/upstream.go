package traffic

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"stationdex/bench/internal/mix"
	"stationdex/bench/internal/raw"
	"stationdex/internal/dim"
	"stationdex/internal/fold"
	"stationdex/internal/format"
)

// UpRequest is one request of the upstream mix (issue #27): what a
// client of the upstream directory (Radio Browser) sends to a node under
// /json/.
type UpRequest struct {
	Kind string
	// Path is the request target, under /json/.
	Path string
	// API is the same question asked of our own API (/api/stations), ""
	// where it has none: a name word as q, a tag as genre, a country code,
	// a language label, a codec, the same offset and limit. Upstream's
	// name is a substring of the name and q a word prefix of name and
	// place, so their totals differ; the question is the same.
	API string
	// Search is the stations/search request's filters, for the upstream
	// statement; nil for the other kinds.
	Search *mix.UpSearch
}

// UpKinds are the kinds of the upstream mix with their weights (per 100):
// mostly searches (name, tag, country, language, codec, orders, offsets),
// then the lookups clients make by uuid and url, the station lists by one
// column, the value lists and the stream address (url/{uuid}).
var UpKinds = []Kind{
	{"search_name", 16}, {"search_name_part", 6}, {"search_tag", 10}, {"search_country", 8},
	{"search_language", 6}, {"search_codec", 4}, {"search_ordered", 10}, {"search_offset", 5},
	{"bytag", 5}, {"byname", 4}, {"byuuid", 8}, {"byurl", 3}, {"lists", 6}, {"url", 9},
}

// upStation is what the upstream generator uses of one real station.
type upStation struct {
	uuid, url string
	words     []string // folded name words of three or more letters
	country   string   // alpha-2, upper case, or ""
	languages []string // the source's labels, lower case
	tags      []string
	codec     string // one of format.Codecs, or ""
	hasURL    bool
}

type upGen struct {
	st  []upStation
	rng *rand.Rand
}

// Upstream draws n distinct requests of the upstream mix from the
// snapshot's stations, deterministically (same stations and seed, same
// requests in the same order).
func Upstream(all []raw.Station, seed uint64, n int) ([]UpRequest, error) {
	g := &upGen{rng: rand.New(rand.NewPCG(seed, seed^0x27))}
	for _, r := range all {
		g.st = append(g.st, upStationOf(r))
	}
	if len(g.st) == 0 {
		return nil, fmt.Errorf("traffic: no stations for the upstream mix")
	}
	seen := map[string]bool{}
	var out []UpRequest
	for tries := 0; len(out) < n; tries++ {
		if tries > 50*n {
			return nil, fmt.Errorf("traffic: only %d distinct upstream requests in %d draws", len(out), tries)
		}
		r := g.draw(pick(g.rng, UpKinds))
		if !seen[r.Path] {
			seen[r.Path] = true
			out = append(out, r)
		}
	}
	return out, nil
}

func upStationOf(r raw.Station) upStation {
	s := upStation{uuid: strings.ToLower(r.StationUUID), url: r.URL}
	for _, w := range fold.Tokens(raw.CleanName(r.Name)) {
		if utf8.RuneCountInString(w) >= 3 && len(w) <= 40 {
			s.words = append(s.words, w)
		}
	}
	if len(r.CountryCode) == 2 {
		s.country = strings.ToUpper(r.CountryCode)
	}
	for _, l := range raw.SplitList(r.Language) {
		if pathSafe(l) {
			s.languages = append(s.languages, strings.ToLower(l))
		}
	}
	for _, t := range raw.SplitList(r.Tags) {
		if utf8.RuneCountInString(t) <= 40 && !strings.ContainsAny(t, "\t\r\n") && pathSafe(t) {
			s.tags = append(s.tags, t)
		}
	}
	if c := strings.ToUpper(strings.TrimSpace(r.Codec)); slices.Contains(format.Codecs, c) {
		s.codec = c
	}
	s.hasURL = r.URL != "" && len(r.URL) <= 200 && !strings.ContainsAny(r.URL, " \t\r\n")
	return s
}

// pick draws a kind by weight.
func pick(rng *rand.Rand, kinds []Kind) string {
	total := 0
	for _, k := range kinds {
		total += k.Weight
	}
	r := rng.IntN(total)
	for _, k := range kinds {
		if r < k.Weight {
			return k.Name
		}
		r -= k.Weight
	}
	return kinds[0].Name
}

func (g *upGen) station(ok func(*upStation) bool) *upStation {
	for {
		if s := &g.st[g.rng.IntN(len(g.st))]; ok(s) {
			return s
		}
	}
}

func (g *upGen) limit() int { return []int{10, 20, 20, 20, 25, 30, 50, 50, 100, 100}[g.rng.IntN(10)] }

func (g *upGen) of(list []string) string { return list[g.rng.IntN(len(list))] }

// upOrders are the orders clients ask for beside name: most votes and
// clicks first (the npm client's and RadioDroid's lists), bitrate, last
// change, last check.
var upOrders = []string{"votes", "clickcount", "clickcount", "bitrate", "changetimestamp", "lastchecktime", "country", "codec"}

// draw makes one request of kind.
func (g *upGen) draw(kind string) UpRequest {
	if strings.HasPrefix(kind, "search_") {
		return g.search(kind)
	}
	lim := strconv.Itoa(g.limit())
	switch kind {
	case "bytag":
		s := g.station(func(s *upStation) bool { return len(s.tags) > 0 })
		return UpRequest{Kind: kind, Path: "/json/stations/bytag/" + pathTerm(g.of(s.tags)) + "?limit=" + lim}
	case "byname":
		w := g.of(g.station(func(s *upStation) bool { return len(s.words) > 0 }).words)
		return UpRequest{Kind: kind, Path: "/json/stations/byname/" + pathTerm(w) + "?limit=" + lim}
	case "byuuid":
		if g.rng.IntN(2) == 0 {
			return UpRequest{Kind: kind, Path: "/json/stations/byuuid/" + g.station(anyStation).uuid}
		}
		ids := make([]string, 2+g.rng.IntN(4))
		for i := range ids {
			ids[i] = g.station(anyStation).uuid
		}
		return UpRequest{Kind: kind, Path: "/json/stations/byuuid?uuids=" + strings.Join(ids, ",")}
	case "byurl":
		s := g.station(func(s *upStation) bool { return s.hasURL })
		return UpRequest{Kind: kind, Path: "/json/stations/byurl?url=" + url.QueryEscape(s.url)}
	case "lists":
		return UpRequest{Kind: kind, Path: g.list()}
	case "url":
		return UpRequest{Kind: kind, Path: "/json/url/" + g.station(anyStation).uuid}
	}
	panic("traffic: unknown upstream kind " + kind)
}

func anyStation(*upStation) bool { return true }

// pathSafe reports whether a term can be a path segment on a node: a
// slash, even escaped, splits the segment (bytag/top%2040%2Fpop answers
// 404), and a node refuses . and .. segments. The mix leaves such terms
// out of every kind.
func pathSafe(t string) bool { return !strings.Contains(t, "/") && t != "." && t != ".." }

// pathTerm is a term as a path segment.
func pathTerm(t string) string { return url.PathEscape(t) }

// list is one request of a value list: the short lists whole, the long
// ones (tags, languages) by station count and bounded, or filtered.
func (g *upGen) list() string {
	switch g.rng.IntN(8) {
	case 0:
		return "/json/countries"
	case 1:
		return "/json/codecs"
	case 2:
		return "/json/countrycodes?hidebroken=true"
	case 3:
		return "/json/languages?order=stationcount&reverse=true&limit=" + strconv.Itoa(50+50*g.rng.IntN(4))
	case 4:
		return "/json/tags?order=stationcount&reverse=true&hidebroken=true&limit=" + strconv.Itoa(100+100*g.rng.IntN(5))
	case 5:
		s := g.station(func(s *upStation) bool { return len(s.tags) > 0 })
		t := []rune(g.of(s.tags))
		return "/json/tags/" + pathTerm(string(t[:min(len(t), 3+g.rng.IntN(3))])) + "?order=stationcount&reverse=true"
	case 6:
		s := g.station(func(s *upStation) bool { return len(s.languages) > 0 })
		return "/json/languages/" + pathTerm(g.of(s.languages))
	}
	return "/json/countries?order=stationcount&reverse=true&limit=" + strconv.Itoa(10+10*g.rng.IntN(5))
}

// search makes one stations/search request of kind, and its /api twin
// where our API asks the same question.
func (g *upGen) search(kind string) UpRequest {
	s := mix.UpSearch{Limit: g.limit(), HideBroken: g.rng.IntN(3) == 0}
	twin := true
	switch kind {
	case "search_name":
		s.Name = g.of(g.station(func(s *upStation) bool { return len(s.words) > 0 }).words)
	case "search_name_part":
		w := []rune(g.of(g.station(func(s *upStation) bool { return longest(s.words) >= 6 }).words))
		for len(w) < 6 {
			w = []rune(g.of(g.station(func(s *upStation) bool { return len(s.words) > 0 }).words))
		}
		i := 1 + g.rng.IntN(len(w)-4)
		s.Name, twin = string(w[i:i+3+g.rng.IntN(min(3, len(w)-i-2))]), false
	case "search_tag":
		s.Tag, s.TagExact = g.of(g.station(func(s *upStation) bool { return len(s.tags) > 0 }).tags), true
		if g.rng.IntN(4) == 0 {
			s.TagExact, twin = false, false
		}
	case "search_country":
		s.CountryCode = g.station(func(s *upStation) bool { return s.country != "" }).country
	case "search_language":
		s.Language, s.LanguageExact = g.of(g.station(func(s *upStation) bool { return len(s.languages) > 0 }).languages), true
	case "search_codec":
		s.Codec = g.station(func(s *upStation) bool { return s.codec != "" }).codec
		s.Order, s.Reverse = "bitrate", true
	case "search_ordered":
		st := g.station(func(s *upStation) bool { return s.country != "" && len(s.tags) > 0 })
		if g.rng.IntN(2) == 0 {
			s.CountryCode = st.country
		} else {
			s.Tag, s.TagExact = g.of(st.tags), true
		}
		s.Order, s.Reverse, twin = g.of(upOrders), g.rng.IntN(4) != 0, false
	case "search_offset":
		st := g.station(func(s *upStation) bool { return s.country != "" && len(s.tags) > 0 })
		if g.rng.IntN(2) == 0 {
			s.CountryCode = st.country
		} else {
			s.Tag, s.TagExact = g.of(st.tags), true
		}
		s.Offset = g.rng.IntN(40) * s.Limit
	default:
		panic("traffic: unknown upstream kind " + kind)
	}
	r := UpRequest{Kind: kind, Path: s.Path(), Search: &s}
	// No twin for a page over apiMaxLimit, which /api does not serve, nor
	// for hidebroken: /api's working=true would give it one, but the
	// mix's twins were measured without, and adding them would change
	// the mix that earlier reports compare against.
	if twin && !s.HideBroken && s.Limit <= apiMaxLimit {
		r.API = apiPath(s.Name, s.CountryCode, s.Language, s.Tag, s.Codec, s.Limit, s.Offset)
	}
	return r
}

// apiMaxLimit is the largest page /api/stations serves (query.MaxLimit).
const apiMaxLimit = 50

// apiPath is the /api/stations search with these filters.
func apiPath(q, country, language, genre, codec string, limit, offset int) string {
	v := url.Values{}
	for k, val := range map[string]string{"q": q, dim.Country.Name(): country, dim.Language.Name(): language, dim.Genre.Name(): genre, dim.Codec.Name(): codec} {
		if val != "" {
			v.Set(k, val)
		}
	}
	v.Set("limit", strconv.Itoa(limit))
	if offset > 0 {
		v.Set("offset", strconv.Itoa(offset))
	}
	return "/api/stations?" + v.Encode()
}

// UpPaths lists the request targets of rs, and of their /api twins
// (twins true: only the requests that have one, in the same order).
func UpPaths(rs []UpRequest, twins bool) (json, api []string) {
	for _, r := range rs {
		if !twins {
			json = append(json, r.Path)
			continue
		}
		if r.API != "" {
			json, api = append(json, r.Path), append(api, r.API)
		}
	}
	return json, api
}

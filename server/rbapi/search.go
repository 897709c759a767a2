package rbapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/query"
	"stationdex/server/core"
)

// The station paths of the Radio Browser API: the upstream parameters
// translated into one query.RBAPISelect, which the engine answers.

// rbDefaultLimit is upstream's documented default page: in effect every
// station, which is why such a list is streamed (stream.go).
const rbDefaultLimit = 100000

// maxRBUUIDs bounds the uuids of one stations/byuuid request.
const maxRBUUIDs = 1000

// rbMatch is one text filter of stations/search: its exact form goes to
// the engine's filters (exact), its substring form (upstream's LIKE
// '%text%') to the engine's substring conditions (holds).
type rbMatch struct {
	text, exact RBParam
	exactly     func(sel *query.RBAPISelect, value string)
	holds       func(c *query.Contains, value string)
}

// rbMatches are the text filters of stations/search, in the order
// upstream applies them.
var rbMatches = []rbMatch{
	{RBName, RBNameExact, func(sel *query.RBAPISelect, v string) { sel.NameExact = v },
		func(c *query.Contains, v string) { c.Name = v }},
	{rbCountry, rbCountryExact, func(sel *query.RBAPISelect, v string) { sel.CountryLabel = v },
		func(c *query.Contains, v string) { c.Country = v }},
	{rbState, rbStateExact, func(sel *query.RBAPISelect, v string) { addFilter(sel, query.DimLocation, v) },
		func(c *query.Contains, v string) { c.State = v }},
	{rbLanguage, rbLanguageExact, func(sel *query.RBAPISelect, v string) { addFilter(sel, query.DimLanguage, v) },
		func(c *query.Contains, v string) { c.Language = v }},
	{rbTag, rbTagExact, func(sel *query.RBAPISelect, v string) { sel.Genres = append(sel.Genres, v) },
		func(c *query.Contains, v string) { c.Tags = append(c.Tags, v) }},
}

func addFilter(sel *query.RBAPISelect, d query.Dim, v string) {
	sel.Query.Filter[d] = append(sel.Query.Filter[d], v)
}

// rbSelect translates the parameters of stations/search (and the subset
// other paths take) into the engine's selection.
func rbSelect(p *rbParams) (query.RBAPISelect, error) {
	var sel query.RBAPISelect
	for _, m := range rbMatches {
		v := p.Text(m.text)
		if v == "" {
			continue
		}
		if p.flag(m.exact) {
			m.exactly(&sel, v)
		} else {
			m.holds(&sel.Contains, v)
		}
	}
	if err := addTagList(&sel, p); err != nil {
		return sel, err
	}
	if v := p.Text(RBCountryCode); v != "" {
		addFilter(&sel, query.DimCountry, v)
	}
	if v := p.Text(RBCodec); v != "" {
		addFilter(&sel, query.DimCodec, v) // upstream: LOWER(codec)=LOWER(v)
	}
	if p.Has(RBIsHTTPS) {
		addFilter(&sel, query.DimHTTPS, p.Text(RBIsHTTPS))
	}
	sel.Query.BitrateMin, sel.Query.BitrateMax = p.count(RBBitrateMin, 0), p.count(rbBitrateMax, 0)
	sel.CheckOK = rbTri(p, RBHideBroken, false)
	sel.ExtendedInfo, sel.Geo = rbTri(p, RBHasExtendedInfo, true), rbTri(p, RBHasGeoInfo, true)
	sel.Reverse = p.flag(RBReverse)
	return sel, rbNear(&sel, p)
}

// addTagList adds tagList's tags, every one of which a station must list
// (upstream: AND), exactly with tagExact=true.
func addTagList(sel *query.RBAPISelect, p *rbParams) error {
	if p.Text(RBTagList) == "" {
		return nil
	}
	for _, t := range strings.Split(p.Text(RBTagList), ",") {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		if p.flag(rbTagExact) {
			sel.Genres = append(sel.Genres, t)
		} else {
			sel.Contains.Tags = append(sel.Contains.Tags, t)
		}
	}
	return nil
}

// rbTri is a boolean parameter as a condition: given true, Yes; given
// false, No when both ways filter (has_geo_info=false keeps the stations
// without), else no condition (hidebroken=false shows every station).
func rbTri(p *rbParams, q RBParam, both bool) query.Tri {
	switch {
	case !p.Has(q):
		return query.Either
	case p.flag(q):
		return query.Yes
	case both:
		return query.No
	}
	return query.Either
}

// rbNear reads geo_lat and geo_long (degrees) and geo_distance (metres,
// as newer upstream servers take it): with the position, every station
// carries its geo_distance from it; with the distance too, only the
// stations within it are kept. Upstream 0.7.24 read them and ignored
// them (its #203): a position without its pair or out of range is
// ignored here too, and so is a distance that is none (0 or less, or
// beyond maxRBDistance, within which is every station).
func rbNear(sel *query.RBAPISelect, p *rbParams) error {
	lat, lon := p.decimal(rbGeoLat), p.decimal(rbGeoLong)
	if !p.Has(rbGeoLat) || !p.Has(rbGeoLong) || lat < -90 || lat > 90 || lon < -180 || lon > 180 {
		return nil
	}
	sel.DistanceFrom = &query.Position{Lat: lat, Lon: lon}
	if m := p.decimal(rbGeoDistance); p.Has(rbGeoDistance) && m > 0 && m <= maxRBDistance {
		sel.Query.Near = &query.Near{Lat: lat, Lon: lon, RadiusKm: m / 1000}
	}
	return nil
}

// maxRBDistance bounds geo_distance: about half the Earth's
// circumference, beyond which every station is within.
const maxRBDistance = 20_000_000

// rbOrderOf is the order parameter's order, its value compared ignoring
// case (the npm client sends lastCheckOK, clickTimeStamp); name when
// absent or none of upstream's orders (streamtuner2 sends order=click),
// as upstream falls back.
func rbOrderOf(p *rbParams) query.RBAPIOrder {
	v := p.Text(RBOrder)
	for o, name := range query.RBAPIOrders {
		if strings.EqualFold(v, name) {
			return query.RBAPIOrder(o)
		}
	}
	return query.OrderName
}

// serveRBSearch is /json/stations/search.
func (s *Server) serveRBSearch(w http.ResponseWriter, r *http.Request, _ []string, p *rbParams) {
	s.streamRBSearch(w, r, p, nil)
}

// streamRBSearch answers the search p asks for, narrowed further by
// narrow when given.
func (s *Server) streamRBSearch(w http.ResponseWriter, r *http.Request, p *rbParams, narrow func(*query.RBAPISelect)) {
	sel, err := rbSelect(p)
	sel.Order = rbOrderOf(p)
	if err != nil {
		s.WriteError(w, r, err)
		return
	}
	sel.Seed = rand.Uint64() // random is another shuffle on every request
	if narrow != nil {
		narrow(&sel)
	}
	offset, limit := p.count(rbOffset, 0), p.count(RBLimit, rbDefaultLimit)
	if sel.Order == query.OrderRandom {
		s.streamRBStations(w, r, p.out, sel, offset, limit)
		return
	}
	// An answer of one chunk or less (nearly all, whatever the limit) is
	// built whole, and cached, tagged and compressed as our own answers
	// are: clients ask for the same tag or top list again and again. A
	// longer one is streamed, never cached; so is random, another
	// shuffle each time.
	key := "upstream:" + r.URL.Path + "?" + p.canonical()
	s.ServeResource(w, r, key, func(ix core.Index, dst []byte) (core.EntityHead, []byte, error) {
		stations, err := ix.RBAPIStations(sel)
		if err != nil || limit == 0 {
			dst, _ = s.appendRBList(dst, p.out, nil, 0)
			return p.out.entityHead(), dst, err
		}
		page := core.GetBuffer()
		defer core.PutBuffer(page)
		var n int
		if *page, n, err = ix.RBAPIPageOf(stations, offset, min(limit, RBChunk), (*page)[:0]); err != nil {
			return core.JSONHead, dst, fmt.Errorf("stations %+v: %w", sel, err)
		}
		if n == RBChunk && limit > RBChunk {
			return core.JSONHead, dst, errLongList
		}
		dst, err = s.appendRBList(dst, p.out, *page, n)
		return p.out.entityHead(), dst, err
	}, func(w http.ResponseWriter, r *http.Request, err error) {
		if errors.Is(err, errLongList) {
			s.streamRBStations(w, r, p.out, sel, offset, limit)
			return
		}
		s.WriteError(w, r, err)
	})
}

// errLongList says that an answer is more than a chunk: it is streamed.
var errLongList = errors.New("more stations than a chunk")

// serveRBAll is /json/stations: every station, paged.
func (s *Server) serveRBAll(w http.ResponseWriter, r *http.Request, args []string, p *rbParams) {
	s.serveRBSearch(w, r, args, p)
}

// rbColumn is a /json/stations/by{column}/{term} path: the term as the
// value of one search parameter, exactly or not.
type rbColumn struct {
	param RBParam
	exact bool
}

var RBColumns = map[string]rbColumn{
	"byname": {RBName, false}, "bynameexact": {RBName, true}, "bycodec": {RBCodec, false},
	"bycodecexact": {RBCodec, true}, "bycountry": {rbCountry, false}, "bycountryexact": {rbCountry, true},
	"bycountrycodeexact": {RBCountryCode, true}, "bystate": {rbState, false}, "bystateexact": {rbState, true},
	"bytag": {rbTag, false}, "bytagexact": {rbTag, true}, "bylanguage": {rbLanguage, false},
	"bylanguageexact": {rbLanguage, true},
}

// serve answers the by{column} path of c, its term args[0].
func (c rbColumn) serve(s *Server, w http.ResponseWriter, r *http.Request, args []string, p *rbParams) {
	if c.param == RBCodec && !c.exact {
		// the codec parameter is always exact: the path says more
		s.streamRBSearch(w, r, p, func(sel *query.RBAPISelect) { sel.Contains.Codec = args[0] })
		return
	}
	p.given |= 1 << c.param
	p.values[c.param] = args[0]
	if exact := rbExactOf(c.param); exact != c.param {
		p.given |= 1 << exact
		p.values[exact] = strconv.FormatBool(c.exact)
	}
	s.serveRBSearch(w, r, nil, p)
}

// rbExactOf is the exact flag of a text filter, or the filter itself
// when it has none (codec and countrycode are always exact upstream).
func rbExactOf(q RBParam) RBParam {
	for _, m := range rbMatches {
		if m.text == q {
			return m.exact
		}
	}
	return q
}

// serveRBByUUIDs is /json/stations/byuuid?uuids=a,b: the stations named,
// in the order named, each once; unknown ones (and what is no uuid) are
// left out, as upstream's IN (...) leaves them.
func (s *Server) serveRBByUUIDs(w http.ResponseWriter, r *http.Request, _ []string, p *rbParams) {
	ids, err := rbUUIDList(p.Text(rbUUIDs))
	if err != nil {
		s.WriteError(w, r, err)
		return
	}
	s.serveRBObjects(w, r, p, ids, query.Either, 0, maxRBUUIDs)
}

// serveRBByUUID is /json/stations/byuuid/{uuid}: a list of that station,
// or an empty list, as upstream answers; upstream's query takes
// hidebroken, offset and limit (and an order, which one station has no
// use for).
func (s *Server) serveRBByUUID(w http.ResponseWriter, r *http.Request, args []string, p *rbParams) {
	var ids []format.UUID
	if id, err := format.ParseUUID(strings.TrimSpace(args[0])); err == nil {
		ids = append(ids, id)
	}
	s.serveRBObjects(w, r, p, ids, rbTri(p, RBHideBroken, false), p.count(rbOffset, 0), p.count(RBLimit, rbDefaultLimit))
}

// rbUUIDList parses a comma-separated list of station uuids, dropping
// repeats and what is not a uuid; at most maxRBUUIDs.
func rbUUIDList(list string) ([]format.UUID, error) {
	var ids []format.UUID
	for _, f := range strings.Split(list, ",") {
		id, err := format.ParseUUID(strings.TrimSpace(f))
		if err != nil {
			continue
		}
		if len(ids) == maxRBUUIDs {
			return nil, core.Errorf(core.CodeInvalidParameter, "at most %d uuids at once", maxRBUUIDs)
		}
		if !containsUUID(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

func containsUUID(ids []format.UUID, id format.UUID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// serveRBObjects answers the stations ids names in p's format, with only
// those that passed their last check when checkOK is Yes, from the
// offset-th, at most limit.
func (s *Server) serveRBObjects(w http.ResponseWriter, r *http.Request, p *rbParams, ids []format.UUID, checkOK query.Tri, offset, limit int) {
	var key strings.Builder
	fmt.Fprintf(&key, "upstream:objects:%s:%d:%d:%d:", p.out.Name, checkOK, offset, limit)
	for _, id := range ids {
		key.WriteString(id.String())
		key.WriteByte(',')
	}
	s.ServeResource(w, r, key.String(), func(ix core.Index, dst []byte) (core.EntityHead, []byte, error) {
		page := core.GetBuffer()
		defer core.PutBuffer(page)
		n, skipped := 0, 0
		for _, id := range ids {
			js, err := ix.RBAPIJSON(id, nil)
			if err == query.ErrNotFound {
				continue
			} else if err != nil {
				return core.EntityHead{}, dst, err
			}
			if checkOK == query.Yes && !bytes.Contains(js, []byte(`,"lastcheckok":1,`)) {
				continue
			}
			if skipped < offset {
				skipped++
				continue
			}
			if n == limit {
				break
			}
			if n++; n > 1 {
				*page = append(*page, ',')
			}
			*page = append(*page, js...)
		}
		dst, err := s.appendRBList(dst, p.out, *page, n)
		return p.out.entityHead(), dst, err
	}, s.WriteError)
}

// serveRBByURL is /json/stations/byurl?url=: the stations whose url (as
// entered, not resolved) is exactly url.
func (s *Server) serveRBByURL(w http.ResponseWriter, r *http.Request, _ []string, p *rbParams) {
	if p.Text(rbURL) == "" {
		s.streamRBStations(w, r, p.out, query.RBAPISelect{}, 0, 0) // no station has no url
		return
	}
	sel := query.RBAPISelect{URL: p.Text(rbURL), CheckOK: rbTri(p, RBHideBroken, false), Order: rbOrderOf(p), Reverse: p.flag(RBReverse), Seed: rand.Uint64()}
	s.streamRBStations(w, r, p.out, sel, p.count(rbOffset, 0), p.count(RBLimit, rbDefaultLimit))
}

// RBClick is the answer of /json/url/{uuid}, as upstream words it.
type RBClick struct {
	OK          bool   `json:"ok"`
	Message     string `json:"message"`
	StationUUID string `json:"stationuuid"`
	Name        string `json:"name"`
	URL         string `json:"url"`
}

// serveRBClick is /json/url/{uuid}: the station's stream address, ok
// when its last check passed, as upstream answers (in json or xml, or a
// playlist of the resolved address in m3u or pls). Upstream counts a
// click here; a mirror counts nothing.
func (s *Server) serveRBClick(w http.ResponseWriter, r *http.Request, args []string, p *rbParams) {
	id, err := format.ParseUUID(args[0])
	if err != nil {
		s.WriteError(w, r, core.ErrNoStation)
		return
	}
	f := p.out
	s.ServeResource(w, r, "upstream:url:"+f.Name+":"+id.String(), func(ix core.Index, dst []byte) (core.EntityHead, []byte, error) {
		js, err := ix.RBAPIJSON(id, nil)
		if err != nil {
			return core.EntityHead{}, dst, err
		}
		var st struct {
			Name        string `json:"name"`
			URL         string `json:"url"`
			URLResolved string `json:"url_resolved"`
			LastCheckOK int    `json:"lastcheckok"`
		}
		if err := json.Unmarshal(stationjson.Splice(nil, js, ""), &st); err != nil {
			return core.EntityHead{}, dst, fmt.Errorf("station %s: upstream object: %w", id, err)
		}
		click := RBClick{OK: st.LastCheckOK == 1, Message: "retrieved station url", StationUUID: id.String(), Name: st.Name, URL: st.URLResolved}
		if click.URL == "" {
			click.URL = st.URL
		}
		switch f {
		case formatXML:
			dst = append(dst, xmlDecl+"<result><status"...)
			for _, a := range [...][2]string{{"ok", strconv.FormatBool(click.OK)}, {"message", click.Message},
				{"stationuuid", click.StationUUID}, {"name", click.Name}, {"url", click.URL}} {
				dst = appendXMLAttr(dst, a[0], a[1])
			}
			return f.entityHead(), append(dst, "/></result>\n"...), nil
		case formatM3U:
			return f.entityHead(), appendM3UEntry(f.head(dst, 1), click.StationUUID, click.Name, click.URL), nil
		case formatPLS:
			return f.entityHead(), appendPLSEntry(f.head(dst, 1), 1, click.Name, click.URL), nil
		}
		dst, err = core.EncodeResponse(dst, click)
		return core.JSONHead, dst, err
	}, s.WriteError)
}

// rbTop is a fixed-order path: /json/stations/topvote[/{count}] and its
// kin, the stations in one order, the path's count (or limit) of them.
type rbTop struct {
	order   query.RBAPIOrder
	reverse bool
	checkOK query.Tri // broken: the stations whose last check failed
}

var RBTops = map[string]rbTop{
	"topvote":    {query.OrderVotes, true, query.Either},
	"topclick":   {query.OrderClickCount, true, query.Either},
	"lastclick":  {query.OrderClickTimestamp, true, query.Either},
	"lastchange": {query.OrderChangeTimestamp, true, query.Either},
	"broken":     {query.OrderRandom, false, query.No},
}

// rbTopParams are what a fixed-order path takes besides its count;
// broken takes no hidebroken (upstream's lists the broken stations
// whatever it says).
var (
	rbTopParams    = rbSet(RBHideBroken, rbOffset, RBLimit)
	rbBrokenParams = rbSet(rbOffset, RBLimit)
)

// serve answers a fixed-order path; args holds the count, if any.
func (top rbTop) serve(s *Server, w http.ResponseWriter, r *http.Request, args []string, p *rbParams) {
	limit := p.count(RBLimit, rbDefaultLimit)
	if len(args) == 1 {
		limit = 0 // upstream: a count that is not a number is 0
		if isRBCount(args[0]) {
			limit, _ = strconv.Atoi(args[0])
		}
	}
	sel := query.RBAPISelect{Order: top.order, Reverse: top.reverse, Seed: rand.Uint64(), CheckOK: top.checkOK}
	if p.flag(RBHideBroken) && top.checkOK == query.Either {
		sel.CheckOK = query.Yes
	}
	s.streamRBStations(w, r, p.out, sel, p.count(rbOffset, 0), limit)
}

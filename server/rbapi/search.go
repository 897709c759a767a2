package rbapi

import (
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

// The station paths of the compatible API: the upstream parameters
// translated into one query.UpstreamSelect, which the engine answers.

// upDefaultLimit is upstream's documented default page: in effect every
// station, which is why such a list is streamed (upstream_stream.go).
const upDefaultLimit = 100000

// maxUpUUIDs bounds the uuids of one stations/byuuid request.
const maxUpUUIDs = 1000

// upMatch is one text filter of stations/search: its exact form goes to
// the engine's filters (exact), its substring form (upstream's LIKE
// '%text%') to the engine's substring conditions (holds).
type upMatch struct {
	text, exact UpParam
	exactly     func(sel *query.UpstreamSelect, value string)
	holds       func(c *query.Contains, value string)
}

// upMatches are the text filters of stations/search, in the order
// upstream applies them.
var upMatches = []upMatch{
	{upName, UpNameExact, func(sel *query.UpstreamSelect, v string) { sel.NameExact = v },
		func(c *query.Contains, v string) { c.Name = v }},
	{upCountry, upCountryExact, func(sel *query.UpstreamSelect, v string) { sel.CountryLabel = v },
		func(c *query.Contains, v string) { c.Country = v }},
	{upState, upStateExact, func(sel *query.UpstreamSelect, v string) { addFilter(sel, query.DimLocation, v) },
		func(c *query.Contains, v string) { c.State = v }},
	{upLanguage, upLanguageExact, func(sel *query.UpstreamSelect, v string) { addFilter(sel, query.DimLanguage, v) },
		func(c *query.Contains, v string) { c.Language = v }},
	{upTag, upTagExact, func(sel *query.UpstreamSelect, v string) { sel.Genres = append(sel.Genres, v) },
		func(c *query.Contains, v string) { c.Tags = append(c.Tags, v) }},
}

func addFilter(sel *query.UpstreamSelect, d query.Dim, v string) {
	sel.Query.Filter[d] = append(sel.Query.Filter[d], v)
}

// upSelect translates the parameters of stations/search (and the subset
// other paths take) into the engine's selection.
func upSelect(p *upParams) (query.UpstreamSelect, error) {
	var sel query.UpstreamSelect
	for _, m := range upMatches {
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
	if v := p.Text(UpCountryCode); v != "" {
		addFilter(&sel, query.DimCountry, v)
	}
	if v := p.Text(UpCodec); v != "" {
		addFilter(&sel, query.DimCodec, v) // upstream: LOWER(codec)=LOWER(v)
	}
	if p.Has(UpIsHTTPS) {
		addFilter(&sel, query.DimHTTPS, p.Text(UpIsHTTPS))
	}
	sel.Query.BitrateMin, sel.Query.BitrateMax = p.count(UpBitrateMin, 0), p.count(upBitrateMax, 0)
	sel.CheckOK = upTri(p, UpHideBroken, false)
	sel.ExtendedInfo, sel.Geo = upTri(p, UpHasExtendedInfo, true), upTri(p, UpHasGeoInfo, true)
	sel.Reverse = p.flag(upReverse)
	return sel, upNear(&sel, p)
}

// addTagList adds tagList's tags, every one of which a station must list
// (upstream: AND), exactly with tagExact=true.
func addTagList(sel *query.UpstreamSelect, p *upParams) error {
	if p.Text(UpTagList) == "" {
		return nil
	}
	for _, t := range strings.Split(p.Text(UpTagList), ",") {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		if p.flag(upTagExact) {
			sel.Genres = append(sel.Genres, t)
		} else {
			sel.Contains.Tags = append(sel.Contains.Tags, t)
		}
	}
	return nil
}

// upTri is a boolean parameter as a condition: given true, Yes; given
// false, No when both ways filter (has_geo_info=false keeps the stations
// without), else no condition (hidebroken=false shows every station).
func upTri(p *upParams, q UpParam, both bool) query.Tri {
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

// upNear reads geo_lat and geo_long (degrees) and geo_distance (metres,
// as newer upstream servers take it): with the position, every station
// carries its geo_distance from it; with the distance too, only the
// stations within it are kept. Upstream 0.7.24 read them and ignored
// them (its #203).
func upNear(sel *query.UpstreamSelect, p *upParams) error {
	if !p.Has(upGeoLat) && !p.Has(upGeoLong) && !p.Has(upGeoDistance) {
		return nil
	}
	lat, lon := p.decimal(upGeoLat), p.decimal(upGeoLong)
	if !p.Has(upGeoLat) || !p.Has(upGeoLong) || lat < -90 || lat > 90 || lon < -180 || lon > 180 {
		return core.Errorf(core.CodeInvalidParameter, "geo_lat (-90 to 90) and geo_long (-180 to 180) go together, and geo_distance (metres) with them")
	}
	sel.DistanceFrom = &query.Position{Lat: lat, Lon: lon}
	if !p.Has(upGeoDistance) {
		return nil
	}
	if m := p.decimal(upGeoDistance); m > 0 && m <= maxUpDistance {
		sel.Query.Near = &query.Near{Lat: lat, Lon: lon, RadiusKm: m / 1000}
		return nil
	}
	return core.Errorf(core.CodeInvalidParameter, "geo_distance is metres, above 0 and at most %d", maxUpDistance)
}

// maxUpDistance bounds geo_distance: about half the Earth's
// circumference, beyond which every station is within.
const maxUpDistance = 20_000_000

// upOrderOf is the order parameter's order, its value compared ignoring
// case (the npm client sends lastCheckOK, clickTimeStamp); name when
// absent. Upstream took an unknown order as name: here it is a 400.
func upOrderOf(p *upParams) (query.UpstreamOrder, error) {
	v := p.Text(UpOrder)
	if v == "" {
		return query.OrderName, nil
	}
	for o, name := range query.UpstreamOrders {
		if strings.EqualFold(v, name) {
			return query.UpstreamOrder(o), nil
		}
	}
	return 0, core.Errorf(core.CodeInvalidParameter, "order %s is none of %s", core.QuoteClip(v), strings.Join(query.UpstreamOrders[:], ", "))
}

// serveUpSearch is /json/stations/search.
func (s *Server) serveUpSearch(w http.ResponseWriter, r *http.Request, _ []string, p *upParams) {
	s.streamUpSearch(w, r, p, nil)
}

// streamUpSearch answers the search p asks for, narrowed further by
// narrow when given.
func (s *Server) streamUpSearch(w http.ResponseWriter, r *http.Request, p *upParams, narrow func(*query.UpstreamSelect)) {
	sel, err := upSelect(p)
	if err == nil {
		sel.Order, err = upOrderOf(p)
	}
	if err != nil {
		s.WriteError(w, r, err)
		return
	}
	sel.Seed = rand.Uint64() // random is another shuffle on every request
	if narrow != nil {
		narrow(&sel)
	}
	offset, limit := p.count(upOffset, 0), p.count(UpLimit, upDefaultLimit)
	if sel.Order == query.OrderRandom {
		s.streamUpStations(w, r, sel, offset, limit)
		return
	}
	// An answer of one chunk or less (nearly all, whatever the limit) is
	// built whole, and cached, tagged and compressed as our own answers
	// are: clients ask for the same tag or top list again and again. A
	// longer one is streamed, never cached; so is random, another
	// shuffle each time.
	key := "upstream:" + r.URL.Path + "?" + p.canonical()
	s.ServeResource(w, r, key, func(ix *query.Index, dst []byte) (core.EntityHead, []byte, error) {
		stations, err := ix.UpstreamStations(sel)
		if err != nil || limit == 0 {
			return core.JSONHead, append(dst, "[]\n"...), err
		}
		page := core.GetBuffer()
		defer core.PutBuffer(page)
		var n int
		if *page, n, err = ix.UpstreamPageOf(stations, offset, min(limit, UpChunk), (*page)[:0]); err != nil {
			return core.JSONHead, dst, fmt.Errorf("stations %+v: %w", sel, err)
		}
		if n == UpChunk && limit > UpChunk {
			return core.JSONHead, dst, errLongList
		}
		return core.JSONHead, s.appendUpArray(dst, *page), nil
	}, func(w http.ResponseWriter, r *http.Request, err error) {
		if errors.Is(err, errLongList) {
			s.streamUpStations(w, r, sel, offset, limit)
			return
		}
		s.WriteError(w, r, err)
	})
}

// errLongList says that an answer is more than a chunk: it is streamed.
var errLongList = errors.New("more stations than a chunk")

// serveUpAll is /json/stations: every station, paged.
func (s *Server) serveUpAll(w http.ResponseWriter, r *http.Request, args []string, p *upParams) {
	s.serveUpSearch(w, r, args, p)
}

// upColumn is a /json/stations/by{column}/{term} path: the term as the
// value of one search parameter, exactly or not.
type upColumn struct {
	param UpParam
	exact bool
}

var UpColumns = map[string]upColumn{
	"byname": {upName, false}, "bynameexact": {upName, true}, "bycodec": {UpCodec, false},
	"bycodecexact": {UpCodec, true}, "bycountry": {upCountry, false}, "bycountryexact": {upCountry, true},
	"bycountrycodeexact": {UpCountryCode, true}, "bystate": {upState, false}, "bystateexact": {upState, true},
	"bytag": {upTag, false}, "bytagexact": {upTag, true}, "bylanguage": {upLanguage, false},
	"bylanguageexact": {upLanguage, true},
}

// serve answers the by{column} path of c, its term args[0].
func (c upColumn) serve(s *Server, w http.ResponseWriter, r *http.Request, args []string, p *upParams) {
	if c.param == UpCodec && !c.exact {
		// the codec parameter is always exact: the path says more
		s.streamUpSearch(w, r, p, func(sel *query.UpstreamSelect) { sel.Contains.Codec = args[0] })
		return
	}
	p.given |= 1 << c.param
	p.values[c.param] = args[0]
	if exact := upExactOf(c.param); exact != c.param {
		p.given |= 1 << exact
		p.values[exact] = strconv.FormatBool(c.exact)
	}
	s.serveUpSearch(w, r, nil, p)
}

// upExactOf is the exact flag of a text filter, or the filter itself
// when it has none (codec and countrycode are always exact upstream).
func upExactOf(q UpParam) UpParam {
	for _, m := range upMatches {
		if m.text == q {
			return m.exact
		}
	}
	return q
}

// serveUpByUUIDs is /json/stations/byuuid?uuids=a,b: the stations named,
// in the order named, each once; unknown ones are left out.
func (s *Server) serveUpByUUIDs(w http.ResponseWriter, r *http.Request, _ []string, p *upParams) {
	ids, err := upUUIDList(p.Text(upUUIDs))
	if err != nil {
		s.WriteError(w, r, err)
		return
	}
	s.serveUpObjects(w, r, ids)
}

// serveUpByUUID is /json/stations/byuuid/{uuid}: a list of that station,
// or an empty list, as upstream answers.
func (s *Server) serveUpByUUID(w http.ResponseWriter, r *http.Request, args []string, _ *upParams) {
	ids, err := upUUIDList(args[0])
	if err == nil && len(ids) != 1 {
		err = core.Errorf(core.CodeInvalidParameter, "the path names one station uuid")
	}
	if err != nil {
		s.WriteError(w, r, err)
		return
	}
	s.serveUpObjects(w, r, ids)
}

// upUUIDList parses a comma-separated list of station uuids, dropping
// repeats.
func upUUIDList(list string) ([]format.UUID, error) {
	var ids []format.UUID
	for _, f := range strings.Split(list, ",") {
		id, err := format.ParseUUID(strings.TrimSpace(f))
		if err != nil {
			return nil, core.Errorf(core.CodeInvalidParameter, "uuids must be station uuids separated by commas, not %s", core.QuoteClip(f))
		}
		if len(ids) == maxUpUUIDs {
			return nil, core.Errorf(core.CodeInvalidParameter, "at most %d uuids at once", maxUpUUIDs)
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

// serveUpObjects answers a JSON array of the stations ids names.
func (s *Server) serveUpObjects(w http.ResponseWriter, r *http.Request, ids []format.UUID) {
	var key strings.Builder
	key.WriteString("upstream:objects:")
	for _, id := range ids {
		key.WriteString(id.String())
		key.WriteByte(',')
	}
	s.ServeResource(w, r, key.String(), func(ix *query.Index, dst []byte) (core.EntityHead, []byte, error) {
		dst = append(dst, '[')
		n := 0
		for _, id := range ids {
			js, err := ix.UpstreamJSON(id, nil)
			if err == query.ErrNotFound {
				continue
			} else if err != nil {
				return core.EntityHead{}, dst, err
			}
			if n++; n > 1 {
				dst = append(dst, ',')
			}
			dst = stationjson.Splice(dst, js, s.BaseJSON)
		}
		return core.JSONHead, append(dst, "]\n"...), nil
	}, s.WriteError)
}

// serveUpByURL is /json/stations/byurl?url=: the stations whose url (as
// entered, not resolved) is exactly url.
func (s *Server) serveUpByURL(w http.ResponseWriter, r *http.Request, _ []string, p *upParams) {
	if p.Text(upURL) == "" {
		s.WriteError(w, r, core.Errorf(core.CodeInvalidParameter, "url is required: the stream URL as the station entered it"))
		return
	}
	s.streamUpStations(w, r, query.UpstreamSelect{URL: p.Text(upURL)}, 0, upDefaultLimit)
}

// UpClick is the answer of /json/url/{uuid}, as upstream words it.
type UpClick struct {
	OK          bool   `json:"ok"`
	Message     string `json:"message"`
	StationUUID string `json:"stationuuid"`
	Name        string `json:"name"`
	URL         string `json:"url"`
}

// serveUpClick is /json/url/{uuid}: the station's stream address. Upstream
// counts a click here; a mirror counts nothing.
func (s *Server) serveUpClick(w http.ResponseWriter, r *http.Request, args []string, _ *upParams) {
	id, err := format.ParseUUID(args[0])
	if err != nil {
		s.WriteError(w, r, core.ErrNoStation)
		return
	}
	s.ServeResource(w, r, "upstream:url:"+id.String(), func(ix *query.Index, dst []byte) (core.EntityHead, []byte, error) {
		js, err := ix.UpstreamJSON(id, nil)
		if err != nil {
			return core.EntityHead{}, dst, err
		}
		var st struct {
			Name        string `json:"name"`
			URL         string `json:"url"`
			URLResolved string `json:"url_resolved"`
		}
		if err := json.Unmarshal(stationjson.Splice(nil, js, ""), &st); err != nil {
			return core.EntityHead{}, dst, fmt.Errorf("station %s: upstream object: %w", id, err)
		}
		click := UpClick{OK: true, Message: "retrieved station url", StationUUID: id.String(), Name: st.Name, URL: st.URLResolved}
		if click.URL == "" {
			click.URL = st.URL
		}
		dst, err = core.EncodeResponse(dst, click)
		return core.JSONHead, dst, err
	}, s.WriteError)
}

// upTop is a fixed-order path: /json/stations/topvote[/{count}] and its
// kin, the stations in one order, the path's count (or limit) of them.
type upTop struct {
	order   query.UpstreamOrder
	reverse bool
	checkOK query.Tri // broken: the stations whose last check failed
}

var UpTops = map[string]upTop{
	"topvote":    {query.OrderVotes, true, query.Either},
	"topclick":   {query.OrderClickCount, true, query.Either},
	"lastclick":  {query.OrderClickTimestamp, true, query.Either},
	"lastchange": {query.OrderChangeTimestamp, true, query.Either},
	"broken":     {query.OrderRandom, false, query.No},
}

// upTopParams are what a fixed-order path takes besides its count.
var upTopParams = upSet(UpHideBroken, upOffset, UpLimit)

// serve answers a fixed-order path; args holds the count, if any.
func (top upTop) serve(s *Server, w http.ResponseWriter, r *http.Request, args []string, p *upParams) {
	limit := p.count(UpLimit, upDefaultLimit)
	if len(args) == 1 {
		if !isUpCount(args[0]) {
			s.WriteError(w, r, core.Errorf(core.CodeInvalidParameter, "the count in the path must be a whole number, not %s", core.QuoteClip(args[0])))
			return
		}
		limit = (&upParams{given: 1 << UpLimit, values: [NumUpParams]string{UpLimit: args[0]}}).count(UpLimit, 0)
	}
	sel := query.UpstreamSelect{Order: top.order, Reverse: top.reverse, Seed: rand.Uint64(), CheckOK: top.checkOK}
	if p.flag(UpHideBroken) {
		sel.CheckOK = query.Yes
	}
	if top.checkOK == query.No && sel.CheckOK == query.Yes {
		limit = 0 // broken and working: none
	}
	s.streamUpStations(w, r, sel, p.count(upOffset, 0), limit)
}

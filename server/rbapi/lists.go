package rbapi

import (
	"cmp"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"stationdex/internal/fold"
	"stationdex/internal/format"
	"stationdex/internal/iso"
	"stationdex/query"
	"stationdex/server/core"
)

// The lists of the Radio Browser API (/json/countries, countrycodes,
// codecs, languages, tags, states): every value with its station count,
// from the buckets the filters read (query.RBAPICounts), so a value's
// count is what filtering on it finds. A list is fixed per snapshot: it
// is made once per index (query.Index.Derived), its names folded and the
// entries in name order, so that an answer only filters, orders and
// pages a copy; answers are cached and compressed as the others are.
//
// The {filter} path segment keeps the values whose name holds it, after
// folding case and accents (upstream: LIKE, case-sensitive on some lists);
// order is name (the default) or stationcount, anything else a 400
// (upstream: a 500).

// rbList is one list path.
type rbList struct {
	serve func(s *Server, w http.ResponseWriter, r *http.Request, args []string, p *rbParams)
}

// RBEntry is one value of a list, in upstream's field names; the fields
// a list does not have are left out.
type RBEntry struct {
	Name         string `json:"name"`
	ISO3166_1    string `json:"iso_3166_1,omitempty"`
	Country      string `json:"country,omitempty"`
	ISO639       rbCode `json:"iso_639,omitzero"`
	StationCount int    `json:"stationcount"`
	// folded is Name folded (a country's ISO3166_1), countryKey
	// Country's key (states), made once with the list
	folded, countryKey string
}

// rbCode is a code of a list that has the field (listed): null when the
// value has none, as upstream sends it (its Option), and left out of the
// lists without the field.
type rbCode struct {
	listed bool
	code   string
}

// IsZero makes omitzero leave the field out of the lists without it.
func (c rbCode) IsZero() bool { return !c.listed }

func (c rbCode) MarshalJSON() ([]byte, error) {
	if c.code == "" {
		return []byte("null"), nil
	}
	return json.Marshal(c.code)
}

// rbDimListNames are the lists of one dimension's values, each a path
// with and without {filter}; states, with its {country}, has rows of its
// own.
var rbDimListNames = []string{"countries", "countrycodes", "codecs", "tags", "languages"}

// RBListOf is the list path cmd, or nil.
func RBListOf(cmd string) *rbList {
	switch cmd {
	case "countries":
		return rbDimList(cmd, query.DimCountry, func(c query.RBAPICount) RBEntry {
			return RBEntry{Name: c.Label, ISO3166_1: c.Key, StationCount: c.Stations}
		})
	case "countrycodes":
		return rbDimList(cmd, query.DimCountry, plainRBEntry(func(c query.RBAPICount) string { return c.Key }))
	case "codecs":
		return rbDimList(cmd, query.DimCodec, plainRBEntry(func(c query.RBAPICount) string { return c.Key }))
	case "tags":
		return rbDimList(cmd, query.DimGenre, plainRBEntry(func(c query.RBAPICount) string { return c.Label }))
	case "languages":
		return rbDimList(cmd, query.DimLanguage, func(c query.RBAPICount) RBEntry {
			code, _ := iso.LanguageCode(c.Label)
			return RBEntry{Name: c.Label, ISO639: rbCode{listed: true, code: code}, StationCount: c.Stations}
		})
	}
	return nil
}

func plainRBEntry(name func(query.RBAPICount) string) func(query.RBAPICount) RBEntry {
	return func(c query.RBAPICount) RBEntry { return RBEntry{Name: name(c), StationCount: c.Stations} }
}

// rbDimList is list cmd, the values of d, each made an entry by entry.
func rbDimList(cmd string, d query.Dim, entry func(query.RBAPICount) RBEntry) *rbList {
	return &rbList{serve: func(s *Server, w http.ResponseWriter, r *http.Request, args []string, p *rbParams) {
		hide := p.flag(RBHideBroken)
		s.serveRBList(w, r, cmd, args, p, nil, func(ix core.Index) ([]RBEntry, error) {
			return rbListMade(ix, cmd, hide, func(ix core.Index) ([]RBEntry, error) {
				counts, err := ix.RBAPICounts(d, hide)
				entries := make([]RBEntry, len(counts))
				for i, c := range counts {
					entries[i] = entry(c)
				}
				return entries, err
			})
		})
	}}
}

// rbListMade is list cmd (with only the stations that passed their last
// check when hide) as build makes it, made once per index: its names
// folded and its entries in name order.
func rbListMade(ix core.Index, cmd string, hide bool, build func(core.Index) ([]RBEntry, error)) ([]RBEntry, error) {
	key := "upstream list " + cmd
	if hide {
		key += " hidebroken"
	}
	v, err := ix.Derived(key, func(ix *query.Index) (any, error) {
		list, err := build(ix)
		if err != nil {
			return nil, err
		}
		for i := range list {
			e := &list[i]
			e.folded, e.countryKey = fold.String(e.Name), format.FacetKey(e.Country)
			if e.ISO3166_1 != "" {
				// a country is filtered and ordered by its code, as
				// upstream groups, filters and orders by CountryCode
				e.folded = fold.String(e.ISO3166_1)
			}
		}
		sortRBEntries(list, false, false)
		return list, nil
	})
	list, _ := v.([]RBEntry)
	return list, err
}

// serveRBStates is /json/states[/{filter}] and /json/states/{country}/{filter};
// /json/states/{country}/ (the filter empty) is a country's states, as
// upstream reads the path by its slashes.
func (s *Server) serveRBStates(w http.ResponseWriter, r *http.Request, args []string, p *rbParams) {
	var keep func(e *RBEntry) bool
	if len(args) == 1 && strings.HasSuffix(r.URL.Path, "/") {
		args = append(args, "")
	}
	if len(args) == 2 {
		country := format.FacetKey(args[0])
		keep, args = func(e *RBEntry) bool { return e.countryKey == country }, args[1:]
	}
	hide := p.flag(RBHideBroken)
	s.serveRBList(w, r, "states", args, p, keep, func(ix core.Index) ([]RBEntry, error) {
		return rbListMade(ix, "states", hide, func(ix core.Index) ([]RBEntry, error) {
			states, err := ix.RBAPIStates(hide)
			entries := make([]RBEntry, len(states))
			for i, st := range states {
				entries[i] = RBEntry{Name: st.Name, Country: st.Country, StationCount: st.Stations}
			}
			return entries, err
		})
	})
}

// serveRBList answers a list: read by entries (shared, in name order),
// then filtered by keep (nil: every entry) and the {filter} segment,
// ordered and paged.
func (s *Server) serveRBList(w http.ResponseWriter, r *http.Request, cmd string, args []string, p *rbParams, keep func(*RBEntry) bool, entries func(core.Index) ([]RBEntry, error)) {
	filter := ""
	if len(args) == 1 {
		filter = fold.String(args[0])
	}
	byCount, err := rbListOrder(p)
	if err != nil {
		s.WriteError(w, r, err)
		return
	}
	key := "upstream:" + r.URL.Path + "?" + p.canonical()
	s.ServeResource(w, r, key, func(ix core.Index, dst []byte) (core.EntityHead, []byte, error) {
		list, err := entries(ix)
		if err != nil {
			return core.EntityHead{}, dst, err
		}
		switch reorder := byCount || p.flag(RBReverse); {
		case filter != "" || keep != nil:
			list = filterRBEntries(list, filter, keep)
		case reorder:
			list = slices.Clone(list)
		}
		if byCount || p.flag(RBReverse) {
			sortRBEntries(list, byCount, p.flag(RBReverse))
		}
		list = list[min(p.count(rbOffset, 0), len(list)):]
		list = list[:min(p.count(RBLimit, len(list)), len(list))]
		return appendRBEntries(dst, p.out, cmd, list)
	}, s.WriteError)
}

// rbListOrder reports whether a list is ordered by station count.
func rbListOrder(p *rbParams) (byCount bool, err error) {
	switch p.Text(RBOrder) {
	case "", "name":
		return false, nil
	case "stationcount":
		return true, nil
	}
	return false, core.Errorf(core.CodeInvalidParameter, "a list's order is name or stationcount, not %s", core.QuoteClip(p.Text(RBOrder)))
}

// filterRBEntries keeps the entries whose name (or code) holds the
// folded filter.
func filterRBEntries(list []RBEntry, filter string, keep func(*RBEntry) bool) []RBEntry {
	out := []RBEntry{} // list is shared: a copy is filtered (and ordered); none is [], not null
	for i := range list {
		e := &list[i]
		if (keep == nil || keep(e)) && (filter == "" || strings.Contains(e.folded, filter)) {
			out = append(out, *e)
		}
	}
	return out
}

// sortRBEntries orders a list by folded name (then name, then country),
// or by station count and then so; reverse turns the whole order round.
func sortRBEntries(list []RBEntry, byCount, reverse bool) {
	slices.SortStableFunc(list, func(a, b RBEntry) int {
		c := cmp.Or(cmp.Compare(a.folded, b.folded), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Country, b.Country))
		if byCount {
			c = cmp.Or(cmp.Compare(a.StationCount, b.StationCount), c)
		}
		if reverse {
			return -c
		}
		return c
	})
}

// rbStateEntry is a state as upstream sends it: its country even when "".
type rbStateEntry struct {
	Name         string `json:"name"`
	Country      string `json:"country"`
	StationCount int    `json:"stationcount"`
}

// rbListElements are the XML element of each list's entries, as
// upstream names them (its countries are language elements).
var rbListElements = map[string]string{
	"countries": "language", "countrycodes": "countrycode", "codecs": "codec", "tags": "tag", "languages": "language", "states": "state",
}

// appendRBEntries appends the entries of list cmd in format f (json,
// csv or xml), with the fields upstream's list has, in its order.
func appendRBEntries(dst []byte, f *rbFormat, cmd string, list []RBEntry) (core.EntityHead, []byte, error) {
	if f == FormatJSON {
		var v any = list
		if cmd == "states" {
			states := make([]rbStateEntry, len(list))
			for i, e := range list {
				states[i] = rbStateEntry{e.Name, e.Country, e.StationCount}
			}
			v = states
		}
		dst, err := core.EncodeResponse(dst, v)
		return core.JSONHead, dst, err
	}
	columns := []string{"name", "stationcount"}
	switch cmd {
	case "countries":
		columns = []string{"name", "iso_3166_1", "stationcount"}
	case "languages":
		columns = []string{"name", "iso_639", "stationcount"}
	case "states":
		columns = []string{"name", "country", "stationcount"}
	}
	if f == formatXML {
		dst = append(dst, xmlDecl+"<result>"...)
	} else if len(list) > 0 {
		dst = appendCSV(dst, columns)
	}
	fields := make([]string, len(columns))
	for _, e := range list {
		for i, c := range columns {
			switch c {
			case "name":
				fields[i] = e.Name
			case "iso_3166_1":
				fields[i] = e.ISO3166_1
			case "iso_639":
				fields[i] = e.ISO639.code
			case "country":
				fields[i] = e.Country
			case "stationcount":
				fields[i] = strconv.Itoa(e.StationCount)
			}
		}
		if f == formatCSV {
			dst = appendCSV(dst, fields)
			continue
		}
		dst = append(append(dst, '<'), rbListElements[cmd]...)
		for i, c := range columns {
			if c != "iso_639" || fields[i] != "" { // upstream: the code when there is one
				dst = appendXMLAttr(dst, c, fields[i])
			}
		}
		dst = append(dst, "/>\n"...)
	}
	if f == formatXML {
		dst = append(dst, "</result>\n"...)
	}
	return f.entityHead(), dst, nil
}

// rbStats is /json/stats as upstream words it, for this node.
type rbStats struct {
	SupportedVersion int    `json:"supported_version"`
	SoftwareVersion  string `json:"software_version"`
	Status           string `json:"status"`
	Stations         int    `json:"stations"`
	StationsBroken   int    `json:"stations_broken"`
	Tags             int    `json:"tags"`
	ClicksLastHour   int    `json:"clicks_last_hour"`
	ClicksLastDay    int    `json:"clicks_last_day"`
	Languages        int    `json:"languages"`
	Countries        int    `json:"countries"`
}

// serveRBStats describes this node's snapshot. A mirror counts no clicks.
func (s *Server) serveRBStats(w http.ResponseWriter, r *http.Request, _ []string, p *rbParams) {
	s.ServeResource(w, r, "upstream:stats:"+p.out.Name, func(ix core.Index, dst []byte) (core.EntityHead, []byte, error) {
		m := ix.Meta()
		working, err := ix.RBAPIWorking()
		if err != nil {
			return core.EntityHead{}, dst, err
		}
		st := rbStats{
			SupportedVersion: 1, SoftwareVersion: "stationdex (snapshot " + core.SnapshotAt(m) + ")", Status: "OK",
			Stations: m.Stations, StationsBroken: m.Stations - working, Tags: m.Genres, Languages: m.Languages, Countries: m.Countries,
		}
		if p.out == formatXML {
			return p.out.entityHead(), st.appendXML(dst), nil
		}
		dst, err = core.EncodeResponse(dst, st)
		return core.JSONHead, dst, err
	}, s.WriteError)
}

// appendXML appends the stats as upstream's XML: one stats element.
func (st rbStats) appendXML(dst []byte) []byte {
	dst = append(dst, xmlDecl+"<result><stats"...)
	for _, a := range [...][2]string{
		{"supported_version", strconv.Itoa(st.SupportedVersion)}, {"software_version", st.SoftwareVersion}, {"status", st.Status},
		{"stations", strconv.Itoa(st.Stations)}, {"stations_broken", strconv.Itoa(st.StationsBroken)}, {"tags", strconv.Itoa(st.Tags)},
		{"clicks_last_hour", strconv.Itoa(st.ClicksLastHour)}, {"clicks_last_day", strconv.Itoa(st.ClicksLastDay)},
		{"languages", strconv.Itoa(st.Languages)}, {"countries", strconv.Itoa(st.Countries)},
	} {
		dst = appendXMLAttr(dst, a[0], a[1])
	}
	return append(dst, "/></result>\n"...)
}

// rbServer is one entry of /json/servers.
type rbServer struct {
	IP   string `json:"ip"`
	Name string `json:"name"`
}

// serveRBServers names this node, the only server it knows: clients take
// a name from this list and call https://{name}/json/...
func (s *Server) serveRBServers(w http.ResponseWriter, r *http.Request, _ []string, _ *rbParams) {
	s.ServeResource(w, r, "upstream:servers", func(_ core.Index, dst []byte) (core.EntityHead, []byte, error) {
		host := ""
		if u, err := url.Parse(s.Base); err == nil {
			host = u.Host
		}
		dst, err := core.EncodeResponse(dst, []rbServer{{IP: "", Name: host}})
		return core.JSONHead, dst, err
	}, s.WriteError)
}

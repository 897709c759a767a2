package rbapi

import (
	"cmp"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"stationdex/internal/fold"
	"stationdex/internal/format"
	"stationdex/internal/iso"
	"stationdex/query"
	"stationdex/server/core"
)

// The lists of the compatible API (/json/countries, countrycodes,
// codecs, languages, tags, states): every value with its station count,
// from the buckets the filters read (query.UpstreamCounts), so a value's
// count is what filtering on it finds. A list is fixed per snapshot: it
// is made once per index (query.Index.Derived), its names folded and the
// entries in name order, so that an answer only filters, orders and
// pages a copy; answers are cached and compressed as the others are.
//
// The {filter} path segment keeps the values whose name holds it, after
// folding case and accents (upstream: LIKE, case-sensitive on some lists);
// order is name (the default) or stationcount, anything else a 400
// (upstream: a 500).

// upList is one list path.
type upList struct {
	serve func(s *Server, w http.ResponseWriter, r *http.Request, args []string, p *upParams)
}

// UpEntry is one value of a list, in upstream's field names; the fields
// a list does not have are left out.
type UpEntry struct {
	Name         string `json:"name"`
	ISO3166_1    string `json:"iso_3166_1,omitempty"`
	Country      string `json:"country,omitempty"`
	ISO639       upCode `json:"iso_639,omitzero"`
	StationCount int    `json:"stationcount"`
	// folded and foldedCode are Name and ISO3166_1 folded, countryKey
	// Country's key (states), made once with the list
	folded, foldedCode, countryKey string
}

// upCode is a code of a list that has the field (listed): null when the
// value has none, as upstream sends it (its Option), and left out of the
// lists without the field.
type upCode struct {
	listed bool
	code   string
}

// IsZero makes omitzero leave the field out of the lists without it.
func (c upCode) IsZero() bool { return !c.listed }

func (c upCode) MarshalJSON() ([]byte, error) {
	if c.code == "" {
		return []byte("null"), nil
	}
	return json.Marshal(c.code)
}

// upDimListNames are the lists of one dimension's values, each a path
// with and without {filter}; states, with its {country}, has rows of its
// own.
var upDimListNames = []string{"countries", "countrycodes", "codecs", "tags", "languages"}

// UpListOf is the list path cmd, or nil.
func UpListOf(cmd string) *upList {
	switch cmd {
	case "countries":
		return upDimList(cmd, query.DimCountry, func(c query.UpstreamCount) UpEntry {
			return UpEntry{Name: c.Label, ISO3166_1: c.Key, StationCount: c.Stations}
		})
	case "countrycodes":
		return upDimList(cmd, query.DimCountry, plainUpEntry(func(c query.UpstreamCount) string { return c.Key }))
	case "codecs":
		return upDimList(cmd, query.DimCodec, plainUpEntry(func(c query.UpstreamCount) string { return c.Key }))
	case "tags":
		return upDimList(cmd, query.DimGenre, plainUpEntry(func(c query.UpstreamCount) string { return c.Label }))
	case "languages":
		return upDimList(cmd, query.DimLanguage, func(c query.UpstreamCount) UpEntry {
			code, _ := iso.LanguageCode(c.Label)
			return UpEntry{Name: c.Label, ISO639: upCode{listed: true, code: code}, StationCount: c.Stations}
		})
	}
	return nil
}

func plainUpEntry(name func(query.UpstreamCount) string) func(query.UpstreamCount) UpEntry {
	return func(c query.UpstreamCount) UpEntry { return UpEntry{Name: name(c), StationCount: c.Stations} }
}

// upDimList is list cmd, the values of d, each made an entry by entry.
func upDimList(cmd string, d query.Dim, entry func(query.UpstreamCount) UpEntry) *upList {
	return &upList{serve: func(s *Server, w http.ResponseWriter, r *http.Request, args []string, p *upParams) {
		hide := p.flag(UpHideBroken)
		s.serveUpList(w, r, args, p, nil, func(ix *query.Index) ([]UpEntry, error) {
			return upListMade(ix, cmd, hide, func(ix *query.Index) ([]UpEntry, error) {
				counts, err := ix.UpstreamCounts(d, hide)
				entries := make([]UpEntry, len(counts))
				for i, c := range counts {
					entries[i] = entry(c)
				}
				return entries, err
			})
		})
	}}
}

// upListMade is list cmd (with only the stations that passed their last
// check when hide) as build makes it, made once per index: its names
// folded and its entries in name order.
func upListMade(ix *query.Index, cmd string, hide bool, build func(*query.Index) ([]UpEntry, error)) ([]UpEntry, error) {
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
			e.folded, e.foldedCode, e.countryKey = fold.String(e.Name), fold.String(e.ISO3166_1), format.FacetKey(e.Country)
		}
		sortUpEntries(list, false, false)
		return list, nil
	})
	list, _ := v.([]UpEntry)
	return list, err
}

// serveUpStates is /json/states[/{filter}] and /json/states/{country}/{filter}.
func (s *Server) serveUpStates(w http.ResponseWriter, r *http.Request, args []string, p *upParams) {
	var keep func(e *UpEntry) bool
	if len(args) == 2 {
		country := format.FacetKey(args[0])
		keep, args = func(e *UpEntry) bool { return e.countryKey == country }, args[1:]
	}
	hide := p.flag(UpHideBroken)
	s.serveUpList(w, r, args, p, keep, func(ix *query.Index) ([]UpEntry, error) {
		return upListMade(ix, "states", hide, func(ix *query.Index) ([]UpEntry, error) {
			states, err := ix.UpstreamStates(hide)
			entries := make([]UpEntry, len(states))
			for i, st := range states {
				entries[i] = UpEntry{Name: st.Name, Country: st.Country, StationCount: st.Stations}
			}
			return entries, err
		})
	})
}

// serveUpList answers a list: read by entries (shared, in name order),
// then filtered by keep (nil: every entry) and the {filter} segment,
// ordered and paged.
func (s *Server) serveUpList(w http.ResponseWriter, r *http.Request, args []string, p *upParams, keep func(*UpEntry) bool, entries func(*query.Index) ([]UpEntry, error)) {
	filter := ""
	if len(args) == 1 {
		filter = fold.String(args[0])
	}
	byCount, err := upListOrder(p)
	if err != nil {
		s.WriteError(w, r, err)
		return
	}
	key := "upstream:" + r.URL.Path + "?" + p.canonical()
	s.ServeResource(w, r, key, func(ix *query.Index, dst []byte) (core.EntityHead, []byte, error) {
		list, err := entries(ix)
		if err != nil {
			return core.EntityHead{}, dst, err
		}
		switch reorder := byCount || p.flag(upReverse); {
		case filter != "" || keep != nil:
			list = filterUpEntries(list, filter, keep)
		case reorder:
			list = slices.Clone(list)
		}
		if byCount || p.flag(upReverse) {
			sortUpEntries(list, byCount, p.flag(upReverse))
		}
		list = list[min(p.count(upOffset, 0), len(list)):]
		list = list[:min(p.count(UpLimit, len(list)), len(list))]
		dst, err = core.EncodeResponse(dst, list)
		return core.JSONHead, dst, err
	}, s.WriteError)
}

// upListOrder reports whether a list is ordered by station count.
func upListOrder(p *upParams) (byCount bool, err error) {
	switch p.Text(UpOrder) {
	case "", "name":
		return false, nil
	case "stationcount":
		return true, nil
	}
	return false, core.Errorf(core.CodeInvalidParameter, "a list's order is name or stationcount, not %s", core.QuoteClip(p.Text(UpOrder)))
}

// filterUpEntries keeps the entries whose name (or code) holds the
// folded filter.
func filterUpEntries(list []UpEntry, filter string, keep func(*UpEntry) bool) []UpEntry {
	out := []UpEntry{} // list is shared: a copy is filtered (and ordered); none is [], not null
	for i := range list {
		e := &list[i]
		if (keep == nil || keep(e)) && (filter == "" || strings.Contains(e.folded, filter) || strings.Contains(e.foldedCode, filter)) {
			out = append(out, *e)
		}
	}
	return out
}

// sortUpEntries orders a list by folded name (then name, then country),
// or by station count and then so; reverse turns the whole order round.
func sortUpEntries(list []UpEntry, byCount, reverse bool) {
	slices.SortStableFunc(list, func(a, b UpEntry) int {
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

// upStats is /json/stats as upstream words it, for this node.
type upStats struct {
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

// serveUpStats describes this node's snapshot. A mirror counts no clicks.
func (s *Server) serveUpStats(w http.ResponseWriter, r *http.Request, _ []string, _ *upParams) {
	s.ServeResource(w, r, "upstream:stats", func(ix *query.Index, dst []byte) (core.EntityHead, []byte, error) {
		m := ix.Meta()
		working, err := ix.UpstreamWorking()
		if err != nil {
			return core.EntityHead{}, dst, err
		}
		dst, err = core.EncodeResponse(dst, upStats{
			SupportedVersion: 1, SoftwareVersion: "stationdex (snapshot " + core.SnapshotAt(m) + ")", Status: "OK",
			Stations: m.Stations, StationsBroken: m.Stations - working, Tags: m.Genres, Languages: m.Languages, Countries: m.Countries,
		})
		return core.JSONHead, dst, err
	}, s.WriteError)
}

// upServer is one entry of /json/servers.
type upServer struct {
	IP   string `json:"ip"`
	Name string `json:"name"`
}

// serveUpServers names this node, the only server it knows: clients take
// a name from this list and call https://{name}/json/...
func (s *Server) serveUpServers(w http.ResponseWriter, r *http.Request, _ []string, _ *upParams) {
	s.ServeResource(w, r, "upstream:servers", func(_ *query.Index, dst []byte) (core.EntityHead, []byte, error) {
		host := ""
		if u, err := url.Parse(s.Base); err == nil {
			host = u.Host
		}
		dst, err := core.EncodeResponse(dst, []upServer{{IP: "", Name: host}})
		return core.JSONHead, dst, err
	}, s.WriteError)
}

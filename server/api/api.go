// Package api is the station API: GET /api/stations (a search) and GET
// /api/stations/:id (one station), JSON envelopes answered through the
// core's handler shape, cached and tagged like every resource.
//
// File map:
//   - api.go: the routes and the two operations
//   - api_envelope.go: the search envelope and its echo of the request
//   - api_json.go: the envelope's encoder, by hand, byte for byte what
//     encoding/json wrote
//   - api_facets.go: the envelope's facets, suggestions and filter echoes
//   - api_variants.go: a station with the other entries of its group
package api

import (
	"fmt"
	"net/http"

	"github.com/julienschmidt/httprouter"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/server/core"
	"stationdex/server/params"
)

// Server answers the station API: its handlers are methods on the core
// they share with the other rooms.
type Server struct{ *core.Server }

// apiRoutes registers the JSON API.
func (s *Server) Routes() []core.Route {
	return []core.Route{
		s.APIRoute(core.PathStations, s.searchStations),
		core.PreflightRoute(core.PathStations),
		s.APIRoute(core.PathStation+":id", s.getStation),
		core.PreflightRoute(core.PathStation + ":id"),
	}
}

// storedJSON is stations in the index's stored form (comma-separated
// when several) and the escaped base URL to splice into them.
type storedJSON struct {
	json []byte
	base string
	ok   bool
}

// append appends the stations with the base spliced in.
func (j *storedJSON) append(dst []byte) []byte { return stationjson.Splice(dst, j.json, j.base) }

// StationEnvelope is the spec's single-station response.
type StationEnvelope struct {
	SchemaVersion string              `json:"schema_version"`
	SnapshotAt    string              `json:"snapshot_at"`
	Source        string              `json:"source"`
	Station       StationWithVariants `json:"station"`

	stored storedJSON // when set, stands for Station.Station (query.StationJSON)
}

// searchStations is GET /api/stations (searchStations in the spec).
func (s *Server) searchStations(r *http.Request, _ httprouter.Params) (string, core.Builder, error) {
	p, err := params.ParseSearchParams(r.URL.RawQuery)
	if err != nil {
		return "", nil, err
	}
	var kb [192]byte // the key is one allocation: the string made from it
	key := string(p.AppendCanonicalQuery(append(kb[:0], core.PathStations+"?"...)))
	return key, func(ix core.Index, dst []byte) (core.EntityHead, []byte, error) {
		// The page's stations come as the index stores them, copied into
		// a pooled buffer, and are spliced into dst with the base URL: no
		// record is decoded or encoded (see query.SearchJSON).
		page := core.GetBuffer()
		defer core.PutBuffer(page)
		res, stored, err := ix.SearchJSON(p.Query(), (*page)[:0])
		if stored != nil {
			*page = stored[:0] // keep the grown buffer
		}
		if err != nil {
			return core.EntityHead{}, dst, fmt.Errorf("search %s: %w", p.CanonicalQuery(), err)
		}
		s.Observer.Search(res.Timing.Bitmap, res.Timing.Decode, res.Total)
		env := s.SearchEnvelope(ix.Meta(), p, res)
		env.stored = storedJSON{json: stored, base: s.BaseJSON, ok: true}
		return core.JSONHead, append(env.AppendJSON(dst), '\n'), nil
	}, nil
}

// positive allocates only what it returns: a parameter whose address is
// returned is moved to the heap on entry, before the test, so "return &n"
// cost an allocation per call even for the nil answer (stationjson.Nullable
// is written the same way).
func positive(n int) *int {
	if n <= 0 {
		return nil
	}
	v := n
	return &v
}

// getStation is GET /api/stations/:id (getStation in the spec). The id is
// accepted in either case; responses always use the lower-case form. An id
// that is not a UUID cannot name a station, so it is a 404 like an unknown
// one.
func (s *Server) getStation(_ *http.Request, ps httprouter.Params) (string, core.Builder, error) {
	id, err := format.ParseUUID(ps.ByName("id"))
	if err != nil {
		return "", nil, core.ErrNoStation
	}
	return core.PathStation + id.String(), func(ix core.Index, dst []byte) (core.EntityHead, []byte, error) {
		page := core.GetBuffer()
		defer core.PutBuffer(page)
		stored, err := ix.StationJSON(id, (*page)[:0])
		*page = stored[:0]
		if err != nil {
			return core.EntityHead{}, dst, fmt.Errorf("station %s: %w", id, err)
		}
		variants, total, err := VariantsOf(ix, s.Base, id)
		if err != nil {
			return core.EntityHead{}, dst, fmt.Errorf("station %s: variants: %w", id, err)
		}
		meta := ix.Meta()
		env := StationEnvelope{
			SchemaVersion: core.SchemaVersion(meta),
			SnapshotAt:    core.SnapshotAt(meta),
			Source:        meta.Source,
			Station:       StationWithVariants{Variants: variants, VariantsTotal: total},
			stored:        storedJSON{json: stored, base: s.BaseJSON, ok: true},
		}
		return core.JSONHead, append(env.AppendJSON(dst), '\n'), nil
	}, nil
}

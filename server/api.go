package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/julienschmidt/httprouter"

	"stationdex/indexer/format"
	"stationdex/indexer/stationjson"
	"stationdex/query"
)

// Ranking is the constant "ranking" of every search envelope.
const Ranking = "name_match_then_alphabetical"

// etagVersion changes whenever the server renders the same index
// differently, so that caches do not keep responses of an older server.
const etagVersion = "1"

// apiRoutes registers the JSON API.
func (s *Server) apiRoutes(r *httprouter.Router) {
	s.handle(r, pathStations, s.searchStations)
	s.handle(r, pathStation+":id", s.getStation)
}

// searchEnvelope is the spec's search response. Field order is the spec's.
type searchEnvelope struct {
	SchemaVersion string                `json:"schema_version"`
	SnapshotAt    string                `json:"snapshot_at"`
	Source        string                `json:"source"`
	Ranking       string                `json:"ranking"`
	Q             string                `json:"q"`
	Country       *string               `json:"country"`
	Language      *string               `json:"language"`
	Genre         *string               `json:"genre"`
	Codec         []string              `json:"codec"`
	BitrateMin    *int                  `json:"bitrate_min"`
	BitrateMax    *int                  `json:"bitrate_max"`
	Near          *stationjson.Point    `json:"near"`
	RadiusKm      *float64              `json:"radius_km"`
	Total         int                   `json:"total"`
	Limit         int                   `json:"limit"`
	Offset        int                   `json:"offset"`
	Results       []stationjson.Station `json:"results"`
	Next          *string               `json:"next"`
	Facets        *facetsJSON           `json:"facets,omitempty"`
	Suggestions   []suggestionJSON      `json:"suggestions"`
}

// stationEnvelope is the spec's single-station response.
type stationEnvelope struct {
	SchemaVersion string              `json:"schema_version"`
	SnapshotAt    string              `json:"snapshot_at"`
	Source        string              `json:"source"`
	Station       stationjson.Station `json:"station"`
}

// searchStations is GET /api/stations (searchStations in the spec).
func (s *Server) searchStations(w http.ResponseWriter, r *http.Request, _ httprouter.Params) error {
	p, err := parseSearchParams(r.URL.RawQuery)
	if err != nil {
		return err
	}
	ix, release := s.acquire()
	if ix == nil {
		return errNoIndex
	}
	defer release()
	res, err := ix.Search(p.query())
	if err != nil {
		return fmt.Errorf("search %s: %w", p.canonicalQuery(), err)
	}
	s.obs.Search(res.Timing.Bitmap, res.Timing.Decode, res.Total)
	meta := ix.Meta()
	env := s.searchEnvelope(meta, p, res)
	return s.writeCacheable(w, r, etag(meta, s.base, pathStations+"?"+p.canonicalQuery()), &env)
}

func (s *Server) searchEnvelope(meta format.Meta, p searchParams, res query.Result) searchEnvelope {
	env := searchEnvelope{
		SchemaVersion: schemaVersion(meta),
		SnapshotAt:    snapshotAt(meta),
		Source:        meta.Source,
		Ranking:       Ranking,
		Q:             p.Q,
		Country:       stationjson.Nullable(p.Country),
		Language:      stationjson.Nullable(p.Language),
		Genre:         stationjson.Nullable(p.Genre),
		Codec:         p.Codecs,
		BitrateMin:    positive(p.BitrateMin),
		BitrateMax:    positive(p.BitrateMax),
		Total:         res.Total,
		Limit:         p.Limit,
		Offset:        p.Offset,
		Results:       make([]stationjson.Station, len(res.Stations)),
		Next:          s.nextPage(p, res.Total),
	}
	for i := range res.Stations {
		env.Results[i] = stationjson.New(s.base, &res.Stations[i])
	}
	if p.Near != nil {
		env.Near = &stationjson.Point{Lat: p.Near.Lat, Lon: p.Near.Lon}
		env.RadiusKm = &p.RadiusKm
	}
	env.Facets = s.facetsJSON(p, res.Facets)
	env.Suggestions = s.suggestionsJSON(p, res.Suggestions)
	return env
}

func positive(n int) *int {
	if n <= 0 {
		return nil
	}
	return &n
}

// nextPage is the absolute URL of the page after p, or nil when p is the
// last page or the next one would start beyond the reachable offset 5000.
func (s *Server) nextPage(p searchParams, total int) *string {
	next := p
	next.Offset = p.Offset + p.Limit
	if next.Offset >= total || next.Offset > maxOffset {
		return nil
	}
	u := s.base + pathStations + "?" + next.canonicalQuery()
	return &u
}

// getStation is GET /api/stations/:id (getStation in the spec). The id is
// accepted in either case; responses always use the lower-case form. An id
// that is not a UUID cannot name a station, so it is a 404 like an unknown
// one.
func (s *Server) getStation(w http.ResponseWriter, r *http.Request, ps httprouter.Params) error {
	id, err := format.ParseUUID(ps.ByName("id"))
	if err != nil {
		return errNoStation
	}
	ix, release := s.acquire()
	if ix == nil {
		return errNoIndex
	}
	defer release()
	rec, err := ix.Station(id)
	if err != nil {
		return fmt.Errorf("station %s: %w", id, err)
	}
	meta := ix.Meta()
	env := stationEnvelope{
		SchemaVersion: schemaVersion(meta),
		SnapshotAt:    snapshotAt(meta),
		Source:        meta.Source,
		Station:       stationjson.New(s.base, &rec),
	}
	return s.writeCacheable(w, r, etag(meta, s.base, pathStation+id.String()), &env)
}

// acquire returns the index to serve from and its release function, or a
// nil index (nothing to release) when none is loaded.
func (s *Server) acquire() (*query.Index, func()) {
	if s.src == nil {
		return nil, nil
	}
	ix, release := s.src.Acquire()
	if release == nil {
		release = func() {}
	}
	if ix == nil {
		release()
		return nil, nil
	}
	return ix, release
}

func schemaVersion(m format.Meta) string {
	if m.SchemaVersion == "" {
		return format.SchemaVersion
	}
	return m.SchemaVersion
}

func snapshotAt(m format.Meta) string { return m.SnapshotAt.UTC().Format(time.RFC3339) }

// etag identifies one response body: everything the body is a function of.
// That is the snapshot (its time, source, size, schema and the build that
// indexed it), the base URL the links are built on, and the resource with
// its canonical query. It is strong, because equal tags mean equal bytes.
func etag(m format.Meta, base, resource string) string {
	h := sha256.New()
	for _, part := range [...]string{
		etagVersion, schemaVersion(m), m.SnapshotAt.UTC().Format(time.RFC3339Nano), m.Source,
		strconv.Itoa(m.Stations), m.BuiltBy, base, resource,
	} {
		h.Write([]byte(part))
		h.Write([]byte{0}) // so that parts cannot run into each other
	}
	return `"` + hex.EncodeToString(h.Sum(nil)[:16]) + `"`
}

// writeCacheable writes v as a cacheable 200, or 304 when the client already
// has the representation tagged tag.
func (s *Server) writeCacheable(w http.ResponseWriter, r *http.Request, tag string, v any) error {
	if s.revalidated(w, r, tag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	s.writeJSON(w, r, http.StatusOK, v)
	return nil
}

// writeJSON writes v as the JSON body of a response with status. The body is
// encoded in full first so Content-Length is exact, for HEAD too, which gets
// the same headers without the body. Either encoder (the envelopes' own
// appenders, encoding/json for the rest) replaces invalid UTF-8 by U+FFFD and
// escapes <, >, &, U+2028 and U+2029, so no stored text can break the output
// or turn into markup where the JSON is embedded; the data dumps share the
// station appender, so a station is the same bytes in both.
func (s *Server) writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	body, err := encodeResponse(v)
	if err != nil {
		s.log.Error("encode response", "path", r.URL.Path, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body) // a write error means the client left; nothing to do
	}
}

// encodeResponse is v's body, ending in a newline as json.Encoder ends it:
// through its own appender when it has one (the envelopes), else through
// encoding/json (errors and the rest).
func encodeResponse(v any) ([]byte, error) {
	if a, ok := v.(jsonAppender); ok {
		return append(a.AppendJSON(make([]byte, 0, 8<<10)), '\n'), nil
	}
	var buf bytes.Buffer
	err := json.NewEncoder(&buf).Encode(v)
	return buf.Bytes(), err
}

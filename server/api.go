package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/julienschmidt/httprouter"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
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

// storedJSON is stations in the index's stored form (comma-separated
// when several) and the escaped base URL to splice into them.
type storedJSON struct {
	json []byte
	base string
	ok   bool
}

// append appends the stations with the base spliced in.
func (j *storedJSON) append(dst []byte) []byte { return stationjson.Splice(dst, j.json, j.base) }

// stationEnvelope is the spec's single-station response.
type stationEnvelope struct {
	SchemaVersion string              `json:"schema_version"`
	SnapshotAt    string              `json:"snapshot_at"`
	Source        string              `json:"source"`
	Station       stationWithVariants `json:"station"`

	stored storedJSON // when set, stands for Station.Station (query.StationJSON)
}

// searchStations is GET /api/stations (searchStations in the spec).
func (s *Server) searchStations(r *http.Request, _ httprouter.Params) (string, builder, error) {
	p, err := parseSearchParams(r.URL.RawQuery)
	if err != nil {
		return "", nil, err
	}
	var kb [192]byte // the key is one allocation: the string made from it
	key := string(p.appendCanonicalQuery(append(kb[:0], pathStations+"?"...)))
	return key, func(ix *query.Index, dst []byte) (entityHead, []byte, error) {
		// The page's stations come as the index stores them, copied into
		// a pooled buffer, and are spliced into dst with the base URL: no
		// record is decoded or encoded (see query.SearchJSON).
		page := getBuffer()
		defer putBuffer(page)
		res, stored, err := ix.SearchJSON(p.query(), (*page)[:0])
		if stored != nil {
			*page = stored[:0] // keep the grown buffer
		}
		if err != nil {
			return entityHead{}, dst, fmt.Errorf("search %s: %w", p.canonicalQuery(), err)
		}
		s.obs.Search(res.Timing.Bitmap, res.Timing.Decode, res.Total)
		env := s.searchEnvelope(ix.Meta(), p, res)
		env.stored = storedJSON{json: stored, base: s.baseJSON, ok: true}
		return jsonHead, append(env.AppendJSON(dst), '\n'), nil
	}, nil
}

// jsonHead describes every JSON body.
var jsonHead = entityHead{contentType: jsonType}

const jsonType = "application/json; charset=utf-8"

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

// nextPage is the absolute URL of the page after p, or nil when p is the
// last page or the next one would start beyond the reachable offset 5000.
func (s *Server) nextPage(p searchParams, total int) *string {
	next := p
	next.Offset = p.Offset + p.Limit
	if next.Offset >= total || next.Offset > maxOffset {
		return nil
	}
	var ub [256]byte // one allocation for the URL, as for the search key
	u := string(next.appendCanonicalQuery(append(append(ub[:0], s.base...), pathStations+"?"...)))
	return &u
}

// getStation is GET /api/stations/:id (getStation in the spec). The id is
// accepted in either case; responses always use the lower-case form. An id
// that is not a UUID cannot name a station, so it is a 404 like an unknown
// one.
func (s *Server) getStation(_ *http.Request, ps httprouter.Params) (string, builder, error) {
	id, err := format.ParseUUID(ps.ByName("id"))
	if err != nil {
		return "", nil, errNoStation
	}
	return pathStation + id.String(), func(ix *query.Index, dst []byte) (entityHead, []byte, error) {
		page := getBuffer()
		defer putBuffer(page)
		stored, err := ix.StationJSON(id, (*page)[:0])
		*page = stored[:0]
		if err != nil {
			return entityHead{}, dst, fmt.Errorf("station %s: %w", id, err)
		}
		variants, total, err := variantsOf(ix, s.base, id)
		if err != nil {
			return entityHead{}, dst, fmt.Errorf("station %s: variants: %w", id, err)
		}
		meta := ix.Meta()
		env := stationEnvelope{
			SchemaVersion: schemaVersion(meta),
			SnapshotAt:    snapshotAt(meta),
			Source:        meta.Source,
			Station:       stationWithVariants{Variants: variants, VariantsTotal: total},
			stored:        storedJSON{json: stored, base: s.baseJSON, ok: true},
		}
		return jsonHead, append(env.AppendJSON(dst), '\n'), nil
	}, nil
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

func snapshotAt(m format.Meta) string {
	// Every search envelope carries it, and a snapshot's time never
	// changes: formatted once per snapshot time, not per response.
	if f := lastSnapshotAt.Load(); f != nil && f.t.Equal(m.SnapshotAt) {
		return f.s
	}
	f := &formattedTime{t: m.SnapshotAt, s: m.SnapshotAt.UTC().Format(time.RFC3339)}
	lastSnapshotAt.Store(f)
	return f.s
}

// lastSnapshotAt is the last snapshot time snapshotAt formatted. Equal
// instants format alike (in UTC), so one value serves every server in the
// process, and two snapshots at once only format again.
var lastSnapshotAt atomic.Pointer[formattedTime]

type formattedTime struct {
	t time.Time
	s string
}

// etag identifies one response body: everything the body is a function of.
// That is the snapshot (its time, source, size, schema and the build that
// indexed it), the base URL the links are built on, and the resource with
// its canonical query. It is strong, because equal tags mean equal bytes.
//
// It is computed for every answer built, so the parts are appended into
// one buffer (each followed by a 0 byte, so that parts cannot run into
// each other) and hashed at once: the same bytes as hashing them one by
// one, without a conversion per part.
func etag(m format.Meta, base, resource string) string {
	var space [512]byte
	b := append(space[:0], etagVersion...)
	b = append(append(b, 0), schemaVersion(m)...)
	b = m.SnapshotAt.UTC().AppendFormat(append(b, 0), time.RFC3339Nano)
	b = append(append(b, 0), m.Source...)
	b = strconv.AppendInt(append(b, 0), int64(m.Stations), 10)
	b = append(append(b, 0), m.BuiltBy...)
	b = append(append(b, 0), base...)
	b = append(append(b, 0), resource...)
	sum := sha256.Sum256(append(b, 0))
	var tag [2 + 2*16]byte
	tag[0], tag[len(tag)-1] = '"', '"'
	hex.Encode(tag[1:len(tag)-1], sum[:16])
	return string(tag[:])
}

// writeJSON writes v, an answer that is not cached (an error), as the JSON
// body of a response with status. Either encoder (the envelopes' own
// appenders, encoding/json for the rest) replaces invalid UTF-8 by U+FFFD and
// escapes <, >, &, U+2028 and U+2029, so no stored text can break the output
// or turn into markup where the JSON is embedded; the data dumps share the
// station appender, so a station is the same bytes in both.
func (s *Server) writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	body, err := encodeResponse(nil, v)
	if err != nil {
		s.log.Error("encode response", "path", r.URL.Path, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	s.send(w, r, &entity{contentType: jsonType, body: body, single: true}, reply{status: status}, nil)
}

// encodeResponse appends v's body to dst, ending in a newline as
// json.Encoder ends it: through its own appender when it has one (the
// envelopes), else through encoding/json (errors and the rest).
func encodeResponse(dst []byte, v any) ([]byte, error) {
	if a, ok := v.(jsonAppender); ok {
		return append(a.AppendJSON(dst), '\n'), nil
	}
	buf := bytes.NewBuffer(dst)
	err := json.NewEncoder(buf).Encode(v)
	return buf.Bytes(), err
}

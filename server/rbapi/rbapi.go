// Package rbapi is the Radio Browser API: the read paths of the upstream
// directory (Radio Browser) under /json/, so that its clients (the npm
// package radio-browser-api, pyradios, RadioDroid, Shortwave) pointed at
// this node work unchanged. Every answer comes from the same index and
// engine as /api/ (the station objects stored at index time). What
// Radio Browser does and this node does not (yet) is a 501 that says so;
// writes are a 403: this node is a mirror.
//
// File map:
//   - rbapi.go: the routes: the table of /json/ path shapes and their
//     handlers
//   - params.go: the Radio Browser API's parameters, from the query string
//     or a form or JSON body
//   - search.go: the station searches, translated into the engine's
//   - lists.go: the lists (countries, languages, tags, codecs...), stats
//     and servers
//   - stream.go: long station lists streamed in chunks
package rbapi

import (
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"

	"stationdex/server/core"
)

// Server answers the Radio Browser API: its handlers are methods on the
// core they share with the other rooms.
type Server struct{ *core.Server }

// upEndpoint is one path of the compatible API: the parameters it takes
// and how it is answered, given the path's arguments (a uuid, a term, a
// filter).
type upEndpoint struct {
	Takes upParamSet
	serve func(s *Server, w http.ResponseWriter, r *http.Request, args []string, p *upParams)
}

// upstreamRoutes registers the compatible API.
func (s *Server) Routes(r *httprouter.Router) {
	s.Route(r, core.PathRBAPI+"*path", s.upstream, http.MethodGet, http.MethodHead, http.MethodPost)
	s.Route(r, core.PathRBAPI+"*path", core.Preflight, http.MethodOptions)
}

// upstream answers every path under /json/.
func (s *Server) upstream(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	core.SetCORS(w.Header(), r)
	segs := strings.Split(strings.Trim(ps.ByName("path"), "/"), "/")
	ep, args, err := UpEndpointOf(segs)
	if err == nil && !s.servesCompat() {
		err = core.ErrNoCompat
	}
	if err != nil {
		s.WriteError(w, r, err)
		return
	}
	p, err := ParseUpParams(r, ep.Takes)
	if err != nil {
		s.WriteError(w, r, err)
		return
	}
	ep.serve(s, w, r, args, &p)
}

// The errors of paths upstream has and this node does not serve.
var (
	ErrReadOnly = &core.Error{core.CodeReadOnly, "this node is a read-only mirror of the directory: votes, new stations and other changes go to the upstream directory (https://www.radio-browser.info)"}
	errNoUpPath = &core.Error{core.CodeNotFound, "no such path under /json/; the paths this node serves are in /openapi.json under the tag radio-browser-compatible"}
)

// servesCompat reports whether the index served has the compatible data.
// With no index loaded it says yes: the handler's answer (a 503) stands.
func (s *Server) servesCompat() bool {
	ix, release := s.Acquire()
	if ix == nil {
		return true
	}
	defer release()
	return ix.HasCompat()
}

func notServed(what string) error {
	return core.Errorf(core.CodeNotImplemented, "%s is not served by this node yet; what is served is in /openapi.json under the tag radio-browser-compatible", what)
}

// UpEndpointOf routes the segments of a path under /json/ to its
// endpoint and arguments.
func UpEndpointOf(segs []string) (upEndpoint, []string, error) {
	switch cmd := segs[0]; {
	case cmd == "stations":
		return upStationsEndpoint(segs[1:])
	case cmd == "url" && len(segs) == 2:
		return upEndpoint{serve: (*Server).serveUpClick}, segs[1:], nil
	case UpListOf(cmd) != nil && len(segs) <= UpListOf(cmd).maxArgs+1:
		return upEndpoint{Takes: UpPaging, serve: UpListOf(cmd).serve}, segs[1:], nil
	case cmd == "stats" && len(segs) == 1:
		return upEndpoint{serve: (*Server).serveUpStats}, nil, nil
	case cmd == "servers" && len(segs) == 1:
		return upEndpoint{serve: (*Server).serveUpServers}, nil, nil
	case cmd == "vote" || cmd == "add":
		return upEndpoint{}, nil, ErrReadOnly
	case cmd == "config" || cmd == "checks" || cmd == "clicks" || cmd == "checksteps" || cmd == "streamingservers":
		return upEndpoint{}, nil, notServed("/json/" + cmd)
	}
	return upEndpoint{}, nil, errNoUpPath
}

// upStationsEndpoint routes the segments after /json/stations.
func upStationsEndpoint(segs []string) (upEndpoint, []string, error) {
	if len(segs) == 0 {
		return upEndpoint{Takes: UpPaging, serve: (*Server).serveUpAll}, nil, nil
	}
	sub, args := segs[0], segs[1:]
	switch {
	case sub == "search" && len(args) == 0:
		return upEndpoint{Takes: UpSearchParams, serve: (*Server).serveUpSearch}, nil, nil
	case sub == "byuuid" && len(args) == 0:
		return upEndpoint{Takes: upSet(upUUIDs), serve: (*Server).serveUpByUUIDs}, nil, nil
	case sub == "byuuid" && len(args) == 1:
		return upEndpoint{serve: (*Server).serveUpByUUID}, args, nil
	case sub == "byurl" && len(args) == 0:
		return upEndpoint{Takes: upSet(upURL), serve: (*Server).serveUpByURL}, nil, nil
	case upByColumn(sub) != nil && len(args) >= 1:
		// A term may hold a slash ("Talk 24/7", the tag "rock/pop"):
		// clients send it as %2F, which the path arrives decoded from,
		// or as it is; either way the rest of the path is the term.
		return upEndpoint{Takes: UpPaging, serve: upByColumn(sub).serve}, []string{strings.Join(args, "/")}, nil
	case UpTops[sub] != (upTop{}) && len(args) <= 1:
		return upEndpoint{Takes: upTopParams, serve: UpTops[sub].serve}, args, nil
	case sub == "changed":
		return upEndpoint{}, nil, notServed("/json/stations/changed")
	}
	return upEndpoint{}, nil, errNoUpPath
}

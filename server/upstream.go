package server

import (
	"net/http"
	"strings"

	"github.com/julienschmidt/httprouter"
)

// The compatible read API: the upstream directory's (Radio Browser's)
// read paths under /json/, so that its clients (the npm package
// radio-browser-api, pyradios, RadioDroid, Shortwave) pointed at this
// node work unchanged. Every answer comes from the same index and engine
// as /api/ (query.UpstreamPage, the station objects stored at index
// time); upstream_search.go translates the upstream filters into the
// engine's, upstream_lists.go answers the lists, upstream_stream.go
// streams long station lists. What upstream does and this node does not
// (yet) is a 501 that says so; writes are a 403: this node is a mirror.
//
// One route, /json/*path, takes every path: httprouter 1.3 cannot hold
// /json/stations beside /json/:list, nor /json/stations/byuuid/:uuid
// beside /json/stations/:by/:term, which is how upstream lays them out.
// upEndpointOf is the routing table, and the route's template labels
// every /json/ request in the metrics.

// pathUpstream is the prefix of the compatible API.
const pathUpstream = "/json/"

// upEndpoint is one path of the compatible API: the parameters it takes
// and how it is answered, given the path's arguments (a uuid, a term, a
// filter).
type upEndpoint struct {
	takes upParamSet
	serve func(s *Server, w http.ResponseWriter, r *http.Request, args []string, p *upParams)
}

// upstreamRoutes registers the compatible API.
func (s *Server) upstreamRoutes(r *httprouter.Router) {
	s.route(r, pathUpstream+"*path", s.upstream, http.MethodGet, http.MethodHead, http.MethodPost)
	s.route(r, pathUpstream+"*path", preflight, http.MethodOptions)
}

// upstream answers every path under /json/.
func (s *Server) upstream(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	setCORS(w.Header(), r)
	segs := strings.Split(strings.Trim(ps.ByName("path"), "/"), "/")
	ep, args, err := upEndpointOf(segs)
	if err == nil && !s.servesCompat() {
		err = errNoCompat
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p, err := parseUpParams(r, ep.takes)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ep.serve(s, w, r, args, &p)
}

// The errors of paths upstream has and this node does not serve.
var (
	errReadOnly = &Error{CodeReadOnly, "this node is a read-only mirror of the directory: votes, new stations and other changes go to the upstream directory (https://www.radio-browser.info)"}
	errNoUpPath = &Error{CodeNotFound, "no such path under /json/; the paths this node serves are in /openapi.json under the tag radio-browser-compatible"}
	// errNoCompat: the index served has no compatible data (it is
	// optional, format.Meta.Compat); query.ErrNoCompat is answered so too.
	errNoCompat = &Error{CodeCompatNotIndexed, "this node's index was built without the Radio Browser compatible data, so /json/ is not served; rebuild the index with `stationdex index -compat` to serve it"}
)

// servesCompat reports whether the index served has the compatible data.
// With no index loaded it says yes: the handler's answer (a 503) stands.
func (s *Server) servesCompat() bool {
	ix, release := s.acquire()
	if ix == nil {
		return true
	}
	defer release()
	return ix.HasCompat()
}

func notServed(what string) error {
	return errorf(CodeNotImplemented, "%s is not served by this node yet; what is served is in /openapi.json under the tag radio-browser-compatible", what)
}

// upEndpointOf routes the segments of a path under /json/ to its
// endpoint and arguments.
func upEndpointOf(segs []string) (upEndpoint, []string, error) {
	switch cmd := segs[0]; {
	case cmd == "stations":
		return upStationsEndpoint(segs[1:])
	case cmd == "url" && len(segs) == 2:
		return upEndpoint{serve: (*Server).serveUpClick}, segs[1:], nil
	case upListOf(cmd) != nil && len(segs) <= upListOf(cmd).maxArgs+1:
		return upEndpoint{takes: upPaging, serve: upListOf(cmd).serve}, segs[1:], nil
	case cmd == "stats" && len(segs) == 1:
		return upEndpoint{serve: (*Server).serveUpStats}, nil, nil
	case cmd == "servers" && len(segs) == 1:
		return upEndpoint{serve: (*Server).serveUpServers}, nil, nil
	case cmd == "vote" || cmd == "add":
		return upEndpoint{}, nil, errReadOnly
	case cmd == "config" || cmd == "checks" || cmd == "clicks" || cmd == "checksteps" || cmd == "streamingservers":
		return upEndpoint{}, nil, notServed("/json/" + cmd)
	}
	return upEndpoint{}, nil, errNoUpPath
}

// upStationsEndpoint routes the segments after /json/stations.
func upStationsEndpoint(segs []string) (upEndpoint, []string, error) {
	if len(segs) == 0 {
		return upEndpoint{takes: upPaging, serve: (*Server).serveUpAll}, nil, nil
	}
	sub, args := segs[0], segs[1:]
	switch {
	case sub == "search" && len(args) == 0:
		return upEndpoint{takes: upSearchParams, serve: (*Server).serveUpSearch}, nil, nil
	case sub == "byuuid" && len(args) == 0:
		return upEndpoint{takes: upSet(upUUIDs), serve: (*Server).serveUpByUUIDs}, nil, nil
	case sub == "byuuid" && len(args) == 1:
		return upEndpoint{serve: (*Server).serveUpByUUID}, args, nil
	case sub == "byurl" && len(args) == 0:
		return upEndpoint{takes: upSet(upURL), serve: (*Server).serveUpByURL}, nil, nil
	case upByColumn(sub) != nil && len(args) >= 1:
		// A term may hold a slash ("Talk 24/7", the tag "rock/pop"):
		// clients send it as %2F, which the path arrives decoded from,
		// or as it is; either way the rest of the path is the term.
		return upEndpoint{takes: upPaging, serve: upByColumn(sub).serve}, []string{strings.Join(args, "/")}, nil
	case upTops[sub] != (upTop{}) && len(args) <= 1:
		return upEndpoint{takes: upTopParams, serve: upTops[sub].serve}, args, nil
	case sub == "changed":
		return upEndpoint{}, nil, notServed("/json/stations/changed")
	}
	return upEndpoint{}, nil, errNoUpPath
}

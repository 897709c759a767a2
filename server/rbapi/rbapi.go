// Package rbapi is the Radio Browser API: the read paths of the upstream
// directory (Radio Browser) under /json/, and under /xml/, /csv/, /m3u/,
// /pls/, /xspf/ and /ttl/ in the formats upstream serves them in, so that
// its clients (the npm package radio-browser-api, pyradios, RadioDroid,
// Shortwave, streamtuner2) pointed at this node work unchanged. Every
// request upstream answers with 200 is answered with its meaning (unknown
// parameters ignored and counted); only what upstream fails on, or what
// would be unbounded, is a 400. Every answer comes from the same index
// and engine as /api/ (the station objects stored at index time). What
// Radio Browser does and this node does not (yet) is a 501 that says so;
// writes are a 403: this node is a mirror.
//
// File map:
//   - rbapi.go: the routes: the table of /json/ path shapes, under each
//     format's prefix, and their handlers
//   - params.go: the Radio Browser API's parameters, from the query string
//     or a form or JSON body
//   - search.go: the station searches, translated into the engine's
//   - lists.go: the lists (countries, languages, tags, codecs...), stats
//     and servers
//   - stream.go: long station lists streamed in chunks
//   - formats.go: the output formats (xml, csv, m3u, pls, xspf, ttl) and
//     their escaping
package rbapi

import (
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/julienschmidt/httprouter"

	"stationdex/server/core"
)

// Server answers the Radio Browser API: its handlers are methods on the
// core they share with the other rooms.
type Server struct{ *core.Server }

// An Endpoint is one row of the Radio Browser API's table: a path under
// /json/ in httprouter's notation, the parameters it takes and the method
// that answers it, given the path's parameters in order (a uuid, a term, a
// filter); or the error a path Radio Browser has and this node does not
// serve is answered with.
type Endpoint struct {
	Pattern string
	Takes   rbParamSet
	serve   func(s *Server, w http.ResponseWriter, r *http.Request, args []string, p *rbParams)
	Refusal error
	// Formats are the output formats the path has besides JSON (under
	// /xml/, /csv/...), as upstream's; nil: JSON only.
	Formats []*rbFormat
}

// Endpoints is the Radio Browser API's table, laid out as Radio Browser
// lays out its paths: fixed names beside parameters
// (/json/stations/search beside /json/stations/bytag/{term}), which is why
// its rows are rows of the table of path shapes (core.Shape) rather than
// routes of the router. A term may hold a slash ("Talk 24/7", the tag
// "rock/pop"): clients send it as %2F, which the path arrives decoded
// from, or as it is; either way the rest of the path is the term (*term).
func Endpoints() []Endpoint {
	rows := []Endpoint{
		{Pattern: "/json/stations", Takes: RBPaging, serve: (*Server).serveRBAll, Formats: stationFormats},
		{Pattern: "/json/stations/search", Takes: RBSearchParams, serve: (*Server).serveRBSearch, Formats: stationFormats},
		{Pattern: "/json/stations/byuuid", Takes: rbSet(rbUUIDs), serve: (*Server).serveRBByUUIDs, Formats: stationFormats},
		{Pattern: "/json/stations/byuuid/:uuid", Takes: RBPaging, serve: (*Server).serveRBByUUID, Formats: stationFormats},
		{Pattern: "/json/stations/byurl", Takes: RBPaging | rbSet(rbURL), serve: (*Server).serveRBByURL, Formats: stationFormats},
		{Pattern: "/json/url/:uuid", serve: (*Server).serveRBClick, Formats: clickFormats},
		{Pattern: "/json/stats", serve: (*Server).serveRBStats, Formats: statsFormats},
		{Pattern: "/json/servers", serve: (*Server).serveRBServers},
		{Pattern: "/json/states", Takes: RBPaging, serve: (*Server).serveRBStates, Formats: listFormats},
		{Pattern: "/json/states/:filter", Takes: RBPaging, serve: (*Server).serveRBStates, Formats: listFormats},
		{Pattern: "/json/states/:country/:filter", Takes: RBPaging, serve: (*Server).serveRBStates, Formats: listFormats},
	}
	for _, name := range rbDimListNames {
		l := RBListOf(name)
		rows = append(rows,
			Endpoint{Pattern: "/json/" + name, Takes: RBPaging, serve: l.serve, Formats: listFormats},
			Endpoint{Pattern: "/json/" + name + "/:filter", Takes: RBPaging, serve: l.serve, Formats: listFormats})
	}
	for _, by := range slices.Sorted(maps.Keys(RBColumns)) {
		rows = append(rows, Endpoint{Pattern: "/json/stations/" + by + "/*term", Takes: RBPaging, serve: RBColumns[by].serve, Formats: stationFormats})
	}
	for _, name := range slices.Sorted(maps.Keys(RBTops)) {
		takes := rbTopParams
		if name == "broken" {
			takes = rbBrokenParams
		}
		rows = append(rows,
			Endpoint{Pattern: "/json/stations/" + name, Takes: takes, serve: RBTops[name].serve, Formats: stationFormats},
			Endpoint{Pattern: "/json/stations/" + name + "/:count", Takes: takes, serve: RBTops[name].serve, Formats: stationFormats})
	}
	for _, name := range []string{"vote", "add"} {
		rows = append(rows,
			Endpoint{Pattern: "/json/" + name, Refusal: ErrReadOnly},
			Endpoint{Pattern: "/json/" + name + "/*path", Refusal: ErrReadOnly})
	}
	for _, name := range []string{"stations/changed", "config", "checks", "clicks", "checksteps", "streamingservers"} {
		err := notServed("/json/" + name)
		rows = append(rows,
			Endpoint{Pattern: "/json/" + name, Refusal: err},
			Endpoint{Pattern: "/json/" + name + "/*path", Refusal: err})
	}
	return rows
}

// getHeadPost are the methods of every path: POST carries the parameters
// in a form or JSON body, as Radio Browser's clients send them.
var getHeadPost = []string{http.MethodGet, http.MethodHead, http.MethodPost}

// Routes is the Radio Browser API's route table: the CORS preflight of
// every path, under each format's prefix.
func (s *Server) Routes() []core.Route {
	var rows []core.Route
	for _, f := range Formats {
		rows = append(rows, core.RBAPIPreflightRoute("/"+f.Name+"/*path"))
	}
	return rows
}

// Shapes are the Radio Browser API's rows of the table of path shapes:
// each endpoint under each format's prefix, and errNoPath for any other
// path under a prefix.
func (s *Server) Shapes() []core.Shape {
	var rows []core.Shape
	for _, f := range Formats {
		for _, e := range Endpoints() {
			pattern := "/" + f.Name + strings.TrimPrefix(e.Pattern, "/json")
			rows = append(rows, core.Shape{Pattern: pattern, Kind: core.ShapeDecoded, Methods: getHeadPost, Handle: s.endpoint(e, f)})
		}
		rows = append(rows, core.Shape{Pattern: "/" + f.Name + "/*path", Kind: core.ShapeOtherwise, Methods: getHeadPost, Handle: s.noPath})
	}
	return rows
}

// IgnoredObserver is told of each parameter a request under /json/ gave
// and its path ignored, by IgnoredLabel (package metrics counts them).
type IgnoredObserver interface {
	RBAPIIgnoredParameter(label string)
}

// endpoint answers the path of e in format f: its refusal, a 406 for a
// format e does not have, or, when the index has the Radio Browser API's
// section, e's method with the parameters it takes.
func (s *Server) endpoint(e Endpoint, f *rbFormat) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		core.SetCORS(w.Header(), r)
		err := e.Refusal
		if err == nil && f != FormatJSON && !slices.Contains(e.Formats, f) {
			err = errNotAcceptable(f, e.Pattern)
		}
		if err == nil && !s.servesRBAPI() {
			err = core.ErrNoRBAPI
		}
		if err != nil {
			s.WriteError(w, r, err)
			return
		}
		p, err := ParseRBParams(r, e.Takes)
		if o, ok := s.Observer.(IgnoredObserver); ok {
			for _, label := range p.Ignored() {
				o.RBAPIIgnoredParameter(label)
			}
		}
		if err != nil {
			s.WriteError(w, r, err)
			return
		}
		p.out = f
		if f.Disposition != "" {
			w.Header().Set("Content-Disposition", f.Disposition)
		}
		var args []string
		if len(ps) > 0 {
			args = make([]string, len(ps))
			for i, p := range ps {
				args[i] = p.Value
			}
		}
		e.serve(s, w, r, args, &p)
	}
}

// noPath answers a path under /json/ that no endpoint has.
func (s *Server) noPath(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	core.SetCORS(w.Header(), r)
	s.WriteError(w, r, errNoRBPath)
}

// The errors of paths upstream has and this node does not serve.
var (
	ErrReadOnly = &core.Error{Code: core.CodeReadOnly, Message: "this node is a read-only mirror of the directory: votes, new stations and other changes go to the upstream directory (https://www.radio-browser.info)"}
	errNoRBPath = &core.Error{Code: core.CodeNotFound, Message: "no such path under /json/; the paths this node serves are in /openapi.json under the tag radio-browser-compatible"}
)

// servesRBAPI reports whether the index served has the Radio Browser API's section.
// With no index loaded it says yes: the handler's answer (a 503) stands.
func (s *Server) servesRBAPI() bool {
	ix, release := s.Acquire()
	if ix == nil {
		return true
	}
	defer release()
	return ix.HasRBAPI()
}

func notServed(what string) error {
	return core.Errorf(core.CodeNotImplemented, "%s is not served by this node yet; what is served is in /openapi.json under the tag radio-browser-compatible", what)
}

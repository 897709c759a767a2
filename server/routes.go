package server

import (
	"slices"

	"github.com/julienschmidt/httprouter"
)

// routes builds the one router. Each room hands its route table, rows of
// a pattern, methods and handler; the paths httprouter cannot hold (a
// fixed name beside a parameter) are rows of the one table of path shapes
// (core/shapes.go), whose rows the pages and the Radio Browser API hand
// in. Every row is labelled for the Observer by its pattern; a request no
// row matches is RouteUnmatched.
func (s *Server) routes() *httprouter.Router {
	r := httprouter.New()
	r.HandleMethodNotAllowed = true
	r.MethodNotAllowed = s.Unmatched(s.MethodNotAllowed)
	r.NotFound = s.Unmatched(s.pages.NotFound)
	s.Routes(r, slices.Concat(
		s.api.Routes(),   // /api/stations, /api/stations/:id
		s.rbapi.Routes(), // the preflight of /json/
		s.pages.Routes(), // /, /search/, /guide/ and their twins
		s.files.Routes(), // OpenAPI, well-known, sitemaps, llms.txt, dumps, static
	))
	s.ShapeRoutes(r, slices.Concat(
		s.pages.Shapes(), // /stations/..., each directory
		s.rbapi.Shapes(), // /json/...
	), s.pages.NotFound)
	return r
}

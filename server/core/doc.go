// Package core is what every room of the server stands on: the one
// handler shape (a resolver names the resource, a builder appends its body
// from the index), the one writer, the response cache, content coding,
// errors, request limits, CORS, shedding, the fixed public paths and the
// table of path shapes that serves the paths httprouter cannot hold.
//
// Each room hands the top package a route table (Route rows) and, for
// the paths httprouter cannot hold, rows of the one table of path shapes
// (Shape rows). Every route is registered through Server.Route, which
// takes the route pattern ("/api/stations/:id") that also labels the
// request for the Observer, so metrics are labelled by pattern, never by
// raw path. API routes are Server.APIRoute rows, which add CORS and JSON
// errors; PreflightRoute answers their OPTIONS.
//
// File map:
//   - doc.go: this comment
//   - index.go: Index, the door through which the rooms reach the engine:
//     every question a request asks of its snapshot
//   - server.go: the Server the rooms share (the index's source, the base
//     URL, the Observer, the cache), route registration, instrumentation
//     (the status is read through wire.Recorder, the one status-recording
//     wrapper) and panic recovery
//   - handle.go: the one handler shape (resolver: a canonical key and a
//     builder), answer (cache lookup, build into a pooled buffer, store);
//     apiResource and ServeTarget (the pages) look the request target up
//     in the cache first
//   - respond.go: the one writer (send): headers, ETag per coding, 304,
//     HEAD, Content-Length, an answer sent in one writev (package
//     server/wire); the media types and the pages' security headers
//   - coding.go: gzip/zstd negotiation and encoders
//   - cache.go: the byte-bounded response cache, with the request targets
//     each entry answered
//   - etag_match.go: ETags and If-None-Match
//   - errors.go: error codes, their statuses and the JSON error body
//   - limits.go: request limits, refused before routing
//   - cors.go: CORS headers and the preflight
//   - shed.go: the answer to a request shed for load
//   - paths.go: the fixed public paths
//   - shapes.go: the table of path shapes below a catch-all route
package core

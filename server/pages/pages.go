// Package pages is the HTML pages and their Markdown twins: one model per
// page (page.go), built from the index and written as HTML (html.go, by
// hand) or Markdown (markdown.go). Markdown is chosen when the URL ends in
// index.md or the client asks for text/markdown, HTML otherwise (Vary:
// Accept).
//
// File map:
//   - pages.go: the routes, the page trees (pages below /stations/ and the
//     directories, served through the core's path shapes), the one way a
//     page is answered, error pages and the not-found page
//   - page.go: the page model and the search form
//   - page_home.go: the home page and the guide
//   - page_search.go: the search page
//   - page_refine.go: did-you-mean, narrowing by facet, nearby stations
//   - page_station.go: a station's page and its listening page
//   - page_directory.go: the directories (countries, languages, genres...)
//   - page_variants.go: the other entries of a station's group, and how a
//     directory counts entries and stations
//   - labels.go: how the pages name countries, languages and genres
//   - guide_clients.go: the guide's part on clients of the Radio Browser
//     API
//   - html.go: the layout, written by hand; static/: the style sheet
//   - html_parts.go: form, blocks, pager
//   - html_escape.go: html/template's escaping, byte for byte
//   - markdown.go: the Markdown writer
//   - playlist.go: a station's M3U and PLS files
//   - provenance.go: where the stations come from, as every page, llms.txt
//     and the catalogue say it
package pages

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"stationdex/server/core"
	"stationdex/server/params"
)

// Server answers the pages: its handlers are methods on the core they
// share with the other rooms.
type Server struct{ *core.Server }

// PageFunc builds one page from the index, arg being the one segment its
// path shape's parameter matched (see SegmentArg; "" for a page without
// one). An *Error makes an error page with its status (400, 404); anything
// else is a 500.
type PageFunc func(r *http.Request, ix core.Index, arg string) (*Page, error)

// Routes is the pages' route table: the pages at fixed paths and their
// twins.
func (s *Server) Routes() []core.Route {
	return []core.Route{
		core.Get("/", s.page(s.HomePage, false)),
		core.Get("/"+core.MarkdownIndex, s.page(s.HomePage, true)),
		core.Get(core.PathSearch, s.page(s.SearchPage, false)),
		core.Get(core.PathSearch+core.MarkdownIndex, s.page(s.SearchPage, true)),
		core.Get(core.PathGuide, s.page(s.GuidePage, false)),
		core.Get(core.PathGuide+core.MarkdownIndex, s.page(s.GuidePage, true)),
		core.Get(core.PathMarkdownHome, s.page(s.HomePage, true)),
	}
}

// Shapes are the pages' rows of the table of path shapes: the pages below
// /stations/ and each directory, whose fixed names (index.md, listen/,
// the playlists) stand beside a parameter. The playlists come first: a
// file is never redirected to a trailing slash.
func (s *Server) Shapes() []core.Shape {
	var rows []core.Shape
	for _, f := range PlaylistFormats {
		rows = append(rows, core.Shape{Pattern: "/stations/:id/" + f.Name, Kind: core.ShapeFile, Methods: core.GetHead, Handle: s.playlist(f)})
	}
	rows = append(rows, s.pageShapes("/stations/:id/", s.StationPage)...)
	rows = append(rows, s.pageShapes("/stations/:id/listen/", s.ListenPage)...)
	for _, d := range Directories {
		rows = append(rows, s.pageShapes("/"+d.Kind+"/", s.DirectoryIndex(d))...)
		rows = append(rows, s.pageShapes("/"+d.Kind+"/:key/", s.DirectoryValue(d))...)
	}
	return rows
}

// pageShapes are the rows of the page at pattern and its Markdown twin.
func (s *Server) pageShapes(pattern string, build PageFunc) []core.Shape {
	return []core.Shape{
		{Pattern: pattern, Kind: core.ShapePage, Methods: core.GetHead, Handle: s.page(build, false)},
		{Pattern: pattern + core.MarkdownIndex, Kind: core.ShapeTwin, Methods: core.GetHead, Handle: s.page(build, true)},
	}
}

// page answers the page build makes from the path's parameter, if any: in
// Markdown for a twin (md) or a client that prefers it, in HTML otherwise.
func (s *Server) page(build PageFunc, md bool) httprouter.Handle {
	return func(w http.ResponseWriter, req *http.Request, ps httprouter.Params) {
		var arg string
		if len(ps) > 0 {
			arg = ps[0].Value
		}
		s.servePage(w, req, build, SegmentArg(arg), md)
	}
}

// SegmentArg gives a page its argument: the one segment its shape's
// parameter matched, path-unescaped (a tag "rock/pop" travels as one
// segment "rock%2Fpop"), or "" for a shape without a parameter.
func SegmentArg(segment string) string {
	if strings.IndexByte(segment, '%') < 0 {
		return segment // nothing to unescape: a station id, most keys
	}
	u, err := url.PathUnescape(segment)
	if err != nil {
		u = "\x00" // matches no key: the page is a 404
	}
	return u
}

// servePage answers one page in the representation asked for: a twin
// (twin), in Markdown; otherwise Markdown when the client prefers it, else
// HTML. A twin and an HTML page are named by the request target alone,
// and a repeat is answered from the response cache by its target.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request, build PageFunc, arg string, twin bool) {
	h := w.Header()
	h["Referrer-Policy"] = core.FieldNoReferrer
	core.AddVary(h, core.FieldVaryAccept)
	md := twin || wantsMarkdown(r)
	buildPage := func(ix core.Index, dst []byte) (core.EntityHead, []byte, error) {
		meta := ix.Meta()
		p, err := build(r, ix, arg)
		if err != nil {
			p = s.ErrorPage(r, err)
		}
		head, body := s.renderPage(dst, p, Footer{SnapshotAt: meta.SnapshotAt, Source: meta.Source}, md)
		p.free() // written: its model goes back to its pool
		return head, body, nil
	}
	fail := func(w http.ResponseWriter, r *http.Request, err error) { s.failPage(w, r, err, md) }
	if md && !twin {
		s.ServeResource(w, r, pageResource(r, md), buildPage, fail)
		return
	}
	s.ServeTarget(w, r, func() string { return pageResource(r, md) }, buildPage, fail)
}

// failPage answers a page that could not be built: 503 while no index is
// loaded, a plain 500 for any other failure.
func (s *Server) failPage(w http.ResponseWriter, r *http.Request, err error, md bool) {
	if err != core.ErrNoIndex {
		s.Log.Error("render page", "path", r.URL.Path, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	p := &Page{Title: "Not available | stationdex", Heading: "Not available yet", Status: http.StatusServiceUnavailable,
		Error: core.ErrNoIndex.Message, Path: strings.TrimSuffix(r.URL.EscapedPath(), core.MarkdownIndex), Query: r.URL.RawQuery}
	head, body := s.renderPage(nil, p, Footer{}, md)
	w.Header().Set("Retry-After", core.RetryAfterSeconds)
	s.Send(w, r, &core.Entity{ContentType: head.ContentType, CSP: head.CSP, Body: body, Single: true}, core.Reply{Status: head.Status}, nil)
}

// pageResource names a representation for its ETag.
func pageResource(r *http.Request, md bool) string {
	kind := "html "
	if md {
		kind = "markdown "
	}
	return kind + r.URL.EscapedPath() + "?" + r.URL.RawQuery
}

// ErrorPage turns a builder's error into a page the reader can act on.
func (s *Server) ErrorPage(r *http.Request, err error) *Page {
	status, e := core.ErrorStatus(err)
	if status >= 500 {
		s.Log.Error("page failed", "path", r.URL.Path, "err", err)
	}
	// The twin of an error page is the same request as Markdown.
	path := strings.TrimSuffix(r.URL.EscapedPath(), core.MarkdownIndex)
	p := &Page{Status: status, Error: e.Message, Path: path, Query: r.URL.RawQuery}
	switch status {
	case http.StatusBadRequest:
		p.Title, p.Heading = "Invalid request | stationdex", "Invalid request"
	case http.StatusNotFound:
		p.Title, p.Heading = "Not found | stationdex", "Not found"
	default:
		p.Title, p.Heading = "Error | stationdex", "Something went wrong"
	}
	p.Blocks = []Block{{Links: []Link{internalLink("Search the directory", s.Base+core.PathSearch), internalLink("Home", s.Base+"/")}}}
	return p
}

// renderPage appends p in HTML or Markdown to dst.
func (s *Server) renderPage(dst []byte, p *Page, f Footer, md bool) (core.EntityHead, []byte) {
	head := core.EntityHead{ContentType: core.HTMLType, Status: p.Status, CSP: core.PageCSP}
	if p.Media {
		head.CSP = core.PageMediaCSP
	}
	if md {
		head.ContentType = core.MarkdownMediaType
		return head, s.AppendMarkdown(dst, p, f)
	}
	return head, s.AppendHTML(dst, p, f)
}

// wantsMarkdown reports whether the Accept header prefers text/markdown
// to text/html: a higher q, or the same q with text/html only implied by a
// wildcard. Browsers, which list text/html, always get HTML.
func wantsMarkdown(r *http.Request) bool {
	mdQ, htmlQ, htmlExplicit := 0.0, 0.0, false
	for _, accept := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(accept, ",") {
			mediaType, q := core.ParseAcceptPart(part)
			switch mediaType {
			case "text/markdown":
				mdQ = max(mdQ, q)
			case "text/html":
				htmlQ, htmlExplicit = max(htmlQ, q), true
			case "text/*", "*/*":
				if !htmlExplicit {
					htmlQ = max(htmlQ, q)
				}
			}
		}
	}
	return mdQ > 0 && (mdQ > htmlQ || mdQ == htmlQ && !htmlExplicit)
}

// pageNumber reads the page parameter of a paged list: absent is page 1.
func pageNumber(r *http.Request) (int, error) {
	v := r.URL.Query()
	if len(v["page"]) == 0 {
		return 1, nil
	}
	if len(v["page"]) > 1 {
		return 0, core.Errorf(core.CodeRepeatedParameter, "parameter page is given more than once; give it at most once")
	}
	n, err := params.Integer("page", v.Get("page"), 1, 1<<30, "default 1")
	return n, err
}

// newPager builds the pager of page n of a list of total items, size per
// page, for the list at listURL (absolute; its query, if any, is kept):
// none for a list on one page, whose count the page says already.
func newPager(listURL string, n, size, total int, what string) *Pager {
	if n == 1 && total > 0 && total <= size {
		return nil
	}
	p := &Pager{}
	first := (n-1)*size + 1
	last := min(n*size, total)
	if total == 0 {
		p.Summary = "No " + what + "."
	} else {
		p.Summary = what + " " + strconv.Itoa(first) + "–" + strconv.Itoa(last) + " of " + strconv.Itoa(total)
	}
	if n > 1 {
		p.Prev = withPage(listURL, n-1)
	}
	if last < total {
		p.Next = withPage(listURL, n+1)
	}
	return p
}

// withPage is the URL of page n of the list at u: page 1 is u itself.
func withPage(u string, n int) string {
	if n == 1 {
		return u
	}
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + "page=" + strconv.Itoa(n)
}

// PageParam is the canonical query of page n of a list whose own query is
// q ("" for none).
func PageParam(q string, n int) string {
	switch {
	case n == 1:
		return q
	case q == "":
		return "page=" + strconv.Itoa(n)
	}
	return q + "&page=" + strconv.Itoa(n)
}

// errPageRange is the 404 of a page number past the end of a list.
func errPageRange(n int) error {
	return core.Errorf(core.CodeNotFound, "there is no page %d of this list; the list is shorter", n)
}

// NotFound answers paths no route matches in the form the client reads,
// as a missing station is answered: the JSON error under /api/, where
// clients expect JSON, and the not-found page elsewhere (its Markdown twin
// for a path ending in index.md or a client preferring Markdown).
func (s *Server) NotFound(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if !core.IsAPIPath(r.URL.Path) {
		s.servePage(w, r, NoPage, "", strings.HasSuffix(r.URL.Path, "/"+core.MarkdownIndex))
		return
	}
	core.SetCORS(w.Header(), r)
	s.WriteError(w, r, core.Errorf(core.CodeNotFound, "no such API endpoint; the API has /api/stations and /api/stations/{id}"))
}

// errNoPage is the not-found page's message for a path that names no page.
var errNoPage = &core.Error{Code: core.CodeNotFound, Message: "there is no page at this address"}

// NoPage builds the page of a path no route matches: always not found.
func NoPage(*http.Request, core.Index, string) (*Page, error) { return nil, errNoPage }

package server

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"

	"stationdex/query"
)

// The HTML pages and their Markdown twins. Every page is one pageFunc that
// builds a Page from the index; servePage picks the representation:
// Markdown when the URL ends in index.md or the client asks for
// text/markdown, HTML otherwise (Vary: Accept).

// Security headers of every page. Pages load only their own style sheet
// and icon; a listening page also plays the station's stream, which lives
// elsewhere. No page runs a script; connect-src 'self' lets tools that
// audit a page from inside it (a crawler checking robots.txt) read this
// site's own files.
const (
	pageCSP      = "default-src 'none'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
	pageMediaCSP = pageCSP + "; media-src http: https:"
	htmlType     = "text/html; charset=utf-8"
)

// pageFunc builds one page from the index. An *Error makes an error page
// with its status (400, 404); anything else is a 500.
type pageFunc func(r *http.Request, ix *query.Index, args []string) (*page, error)

// pageRoutes registers every page, the style sheet and the other public
// resources (machine-readable files, dumps, sitemap).
func (s *Server) pageRoutes(r *httprouter.Router) {
	s.exactPage(r, "/", s.homePage)
	s.exactPage(r, pathSearch, s.searchPage)
	s.exactPage(r, pathGuide, s.guidePage)
	s.get(r, pathMarkdownHome, s.markdownOnly(s.homePage))
	s.tree(r, "stations", map[string]pageFunc{"/:id/": s.stationPage, "/:id/listen/": s.listenPage}, s.playlistFiles())
	for _, d := range directories {
		s.tree(r, d.kind, map[string]pageFunc{"/": s.directoryIndex(d), "/:key/": s.directoryValue(d)}, nil)
	}
	s.staticRoutes(r)
	s.resourceRoutes(r)
}

// get registers a plain GET/HEAD handler under its route label.
func (s *Server) get(r *httprouter.Router, route string, h httprouter.Handle) {
	s.route(r, route, h, http.MethodGet, http.MethodHead)
}

// exactPage registers a page at path and its twin at path+"index.md".
func (s *Server) exactPage(r *httprouter.Router, path string, build pageFunc) {
	s.get(r, path, func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) {
		s.servePage(w, req, build, nil, wantsMarkdown(req))
	})
	s.get(r, path+markdownIndex, func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) {
		s.servePage(w, req, build, nil, true)
	})
}

func (s *Server) markdownOnly(build pageFunc) httprouter.Handle {
	return func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) {
		s.servePage(w, req, build, nil, true)
	}
}

// tree registers the pages under /{top}/ with one catch-all route, since
// the router cannot have a static and a parameter segment side by side
// ("index.md" and ":key"). shapes maps the page shape below top, with
// ":x" for one path segment, to its builder. The catch-all itself is not
// instrumented (Server.route would label every page of the tree alike):
// each shape is, under its own template label, so labels stay a fixed set.
// files are the tree's other resources by shape ("/:id/listen.m3u"):
// matched before the pages, never redirected to a trailing slash.
func (s *Server) tree(r *httprouter.Router, top string, shapes map[string]pageFunc, files map[string]httprouter.Handle) {
	prefix := "/" + top
	pageShapes, fileShapes := compileShapes(shapes), compileShapes(files)
	// Each shape's handlers, by place in pageShapes (HTML, then Markdown)
	// and fileShapes.
	pages := make([][2]httprouter.Handle, len(pageShapes))
	for i, sh := range pageShapes {
		build := shapes[sh.shape]
		for j, md := range []bool{false, true} {
			label := prefix + sh.shape
			if md {
				label += markdownIndex
			}
			pages[i][j] = s.instrument(label, func(w http.ResponseWriter, req *http.Request, ps httprouter.Params) {
				s.servePage(w, req, build, segmentArgs(ps.ByName("segments")), md || wantsMarkdown(req))
			})
		}
	}
	fileHandlers := make([]httprouter.Handle, len(fileShapes))
	for i, sh := range fileShapes {
		fileHandlers[i] = s.instrument(prefix+sh.shape, files[sh.shape])
	}
	unmatched := s.instrument(RouteUnmatched, s.notFound)
	dispatch := func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) {
		rest := strings.TrimPrefix(req.URL.EscapedPath(), prefix)
		if i, arg, ok := matchTreeFile(rest, fileShapes); ok {
			fileHandlers[i](w, req, httprouter.Params{{Key: "segments", Value: arg}})
			return
		}
		i, arg, md, ok := matchTree(rest, pageShapes)
		switch {
		case !ok:
			unmatched(w, req, nil)
		case !md && !strings.HasSuffix(rest, "/"):
			redirectSlash(w, req)
		default:
			h := pages[i][0]
			if md {
				h = pages[i][1]
			}
			h(w, req, httprouter.Params{{Key: "segments", Value: arg}})
		}
	}
	r.Handle(http.MethodGet, prefix+"/*rest", dispatch)
	r.Handle(http.MethodHead, prefix+"/*rest", dispatch)
}

// segmentArgs gives a page its arguments: the one segment its shape's
// parameter matched, path-unescaped (a tag "rock/pop" travels as one
// segment "rock%2Fpop"), or none for a shape without a parameter.
func segmentArgs(segment string) []string {
	if segment == "" {
		return nil
	}
	u, err := url.PathUnescape(segment)
	if err != nil {
		u = "\x00" // matches no key: the page is a 404
	}
	return []string{u}
}

func redirectSlash(w http.ResponseWriter, r *http.Request) {
	target := r.URL.EscapedPath() + "/"
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	http.Redirect(w, r, target, http.StatusMovedPermanently)
}

// servePage answers one page in the representation asked for.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request, build pageFunc, args []string, md bool) {
	h := w.Header()
	h["Referrer-Policy"] = fieldNoReferrer
	addVary(h, fieldVaryAccept)
	s.serveResource(w, r, pageResource(r, md), func(ix *query.Index, dst []byte) (entityHead, []byte, error) {
		meta := ix.Meta()
		p, err := build(r, ix, args)
		if err != nil {
			p = s.errorPage(r, err)
		}
		head, body := s.renderPage(dst, p, footer{SnapshotAt: meta.SnapshotAt, Source: meta.Source}, md)
		return head, body, nil
	}, func(w http.ResponseWriter, r *http.Request, err error) { s.failPage(w, r, err, md) })
}

// failPage answers a page that could not be built: 503 while no index is
// loaded, a plain 500 for any other failure.
func (s *Server) failPage(w http.ResponseWriter, r *http.Request, err error, md bool) {
	if err != errNoIndex {
		s.log.Error("render page", "path", r.URL.Path, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	p := &page{Title: "Not available | stationdex", Heading: "Not available yet", Status: http.StatusServiceUnavailable,
		Error: errNoIndex.Message, Path: strings.TrimSuffix(r.URL.EscapedPath(), markdownIndex), Query: r.URL.RawQuery}
	head, body := s.renderPage(nil, p, footer{}, md)
	w.Header().Set("Retry-After", retryAfterSeconds)
	s.send(w, r, &entity{contentType: head.contentType, csp: head.csp, body: body, single: true}, reply{status: head.status}, nil)
}

// pageResource names a representation for its ETag.
func pageResource(r *http.Request, md bool) string {
	kind := "html "
	if md {
		kind = "markdown "
	}
	return kind + r.URL.EscapedPath() + "?" + r.URL.RawQuery
}

// errorPage turns a builder's error into a page the reader can act on.
func (s *Server) errorPage(r *http.Request, err error) *page {
	status, e := errorStatus(err)
	if status >= 500 {
		s.log.Error("page failed", "path", r.URL.Path, "err", err)
	}
	// The twin of an error page is the same request as Markdown.
	path := strings.TrimSuffix(r.URL.EscapedPath(), markdownIndex)
	p := &page{Status: status, Error: e.Message, Path: path, Query: r.URL.RawQuery}
	switch status {
	case http.StatusBadRequest:
		p.Title, p.Heading = "Invalid request | stationdex", "Invalid request"
	case http.StatusNotFound:
		p.Title, p.Heading = "Not found | stationdex", "Not found"
	default:
		p.Title, p.Heading = "Error | stationdex", "Something went wrong"
	}
	p.Blocks = []block{{Links: []link{internalLink("Search the directory", s.base+pathSearch), internalLink("Home", s.base+"/")}}}
	return p
}

// renderPage appends p in HTML or Markdown to dst.
func (s *Server) renderPage(dst []byte, p *page, f footer, md bool) (entityHead, []byte) {
	head := entityHead{contentType: htmlType, status: p.Status, csp: pageCSP}
	if p.Media {
		head.csp = pageMediaCSP
	}
	if md {
		head.contentType = markdownMediaType
		return head, s.appendMarkdown(dst, p, f)
	}
	return head, s.appendHTML(dst, p, f)
}

// wantsMarkdown reports whether the Accept header prefers text/markdown
// to text/html: a higher q, or the same q with text/html only implied by a
// wildcard. Browsers, which list text/html, always get HTML.
func wantsMarkdown(r *http.Request) bool {
	mdQ, htmlQ, htmlExplicit := 0.0, 0.0, false
	for _, accept := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(accept, ",") {
			mediaType, q := parseAcceptPart(part)
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

func parseAcceptPart(part string) (string, float64) {
	mediaType, params, _ := strings.Cut(part, ";")
	q := 1.0
	for p := range strings.SplitSeq(params, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(name, "q") {
			if v, err := strconv.ParseFloat(value, 64); err == nil && v >= 0 && v <= 1 {
				q = v
			}
		}
	}
	return strings.ToLower(strings.TrimSpace(mediaType)), q
}

// pageNumber reads the page parameter of a paged list: absent is page 1.
func pageNumber(r *http.Request) (int, error) {
	v := r.URL.Query()
	if len(v["page"]) == 0 {
		return 1, nil
	}
	if len(v["page"]) > 1 {
		return 0, errorf(CodeRepeatedParameter, "parameter page is given more than once; give it at most once")
	}
	n, err := integer("page", v.Get("page"), 1, 1<<30, "default 1")
	return n, err
}

// newPager builds the pager of page n of a list of total items, size per
// page, for the list at listURL (absolute; its query, if any, is kept).
func newPager(listURL string, n, size, total int, what string) *pager {
	p := &pager{}
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

// pageParam is the canonical query of page n of a list whose own query is
// q ("" for none).
func pageParam(q string, n int) string {
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
	return errorf(CodeNotFound, "there is no page %d of this list; the list is shorter", n)
}

// zeroTime leaves Last-Modified out of http.ServeContent responses: the
// ETag is the validator.
var zeroTime time.Time

package server

import (
	"bufio"
	"encoding/xml"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"stationdex/indexer/format"
	"stationdex/indexer/stationjson"
	"stationdex/query"
)

// /sitemap.xml is a sitemap index (sitemaps.org protocol) of child
// sitemaps under /sitemaps/: pages.xml (home, search, guide, directory
// indexes), then stations-N.xml and one series per directory kind, each
// child at most sitemapMaxURLs long. lastmod is the snapshot time, the only
// time at which the data is known to have been as listed. Children stream
// from the index's key order; none is built in memory.

const (
	sitemapMaxURLs = 50000
	sitemapNS      = "http://www.sitemaps.org/schemas/sitemap/0.9"
	xmlType        = "application/xml; charset=utf-8"
)

// sitemapSection is one series of children.
type sitemapSection struct {
	name  string
	count func(ix *query.Index) (int, error)
	each  func(s *Server, ix *query.Index, offset, limit int, emit func(loc string) error) error
}

func sitemapSections() []sitemapSection {
	secs := []sitemapSection{{
		name:  "stations",
		count: func(ix *query.Index) (int, error) { return ix.Meta().Stations, nil },
		each: func(s *Server, ix *query.Index, offset, limit int, emit func(string) error) error {
			return ix.EachStationID(offset, limit, func(id format.UUID) error { return emit(stationjson.StationURL(s.base, id)) })
		},
	}}
	for _, d := range directories {
		secs = append(secs, sitemapSection{
			name:  d.kind,
			count: func(ix *query.Index) (int, error) { return ix.FacetCount(d.facet) },
			each: func(s *Server, ix *query.Index, offset, limit int, emit func(string) error) error {
				return ix.EachFacetKey(d.facet, offset, limit, func(key []byte) error {
					if d.facet != query.FacetCountry && !stationjson.HasPage(string(key)) {
						return nil
					}
					return emit(d.valueURL(s.base, string(key)))
				})
			},
		})
	}
	return secs
}

// sitemapPages are the fixed pages, in pages.xml.
func (s *Server) sitemapPages() []string {
	pages := []string{s.base + "/", s.base + pathSearch, s.base + pathGuide}
	for _, d := range directories {
		pages = append(pages, d.indexURL(s.base))
	}
	return pages
}

func (s *Server) sitemapIndex(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	s.withIndex(w, r, func(ix *query.Index) error {
		children := []string{"pages.xml"}
		for _, sec := range sitemapSections() {
			n, err := sec.count(ix)
			if err != nil {
				return err
			}
			for i := 1; (i-1)*sitemapMaxURLs < n; i++ {
				children = append(children, sec.name+"-"+strconv.Itoa(i)+".xml")
			}
		}
		return s.streamXML(w, r, ix, "sitemapindex", func(emit func(string) error) error {
			for _, c := range children {
				if err := emit(s.base + pathSitemaps + c); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

func (s *Server) sitemapChild(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	s.withIndex(w, r, func(ix *query.Index) error {
		name := ps.ByName("file")
		if name == "pages.xml" {
			return s.streamXML(w, r, ix, "urlset", func(emit func(string) error) error {
				for _, p := range s.sitemapPages() {
					if err := emit(p); err != nil {
						return err
					}
				}
				return nil
			})
		}
		sec, n, ok := parseSitemapName(name)
		if !ok {
			return errorf(CodeNotFound, "no sitemap %s; start from /sitemap.xml", quoteClip(name))
		}
		count, err := sec.count(ix)
		if err != nil {
			return err
		}
		if n-1 >= (count+sitemapMaxURLs-1)/sitemapMaxURLs { // before multiplying: n may be near MaxInt
			return errorf(CodeNotFound, "no sitemap %s; start from /sitemap.xml", quoteClip(name))
		}
		offset := (n - 1) * sitemapMaxURLs
		return s.streamXML(w, r, ix, "urlset", func(emit func(string) error) error {
			return sec.each(s, ix, offset, sitemapMaxURLs, emit)
		})
	})
}

// parseSitemapName reads "{section}-{n}.xml", n >= 1 without leading zeros.
func parseSitemapName(name string) (sitemapSection, int, bool) {
	stem, ok := strings.CutSuffix(name, ".xml")
	i := strings.LastIndexByte(stem, '-')
	if !ok || i < 0 {
		return sitemapSection{}, 0, false
	}
	num := stem[i+1:]
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 || strconv.Itoa(n) != num {
		return sitemapSection{}, 0, false
	}
	for _, sec := range sitemapSections() {
		if sec.name == stem[:i] {
			return sec, n, true
		}
	}
	return sitemapSection{}, 0, false
}

// streamXML writes a urlset or sitemapindex of the locations list emits,
// each with the snapshot as lastmod. The body streams, so it has no
// Content-Length; the ETag (snapshot, base URL, path) allows 304s.
func (s *Server) streamXML(w http.ResponseWriter, r *http.Request, ix *query.Index, root string, list func(emit func(string) error) error) error {
	meta := ix.Meta()
	h := w.Header()
	h.Set("Content-Type", xmlType)
	h.Set("X-Content-Type-Options", "nosniff")
	if s.revalidated(w, r, etag(meta, s.base, r.URL.Path)) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return nil
	}
	item := "url"
	if root == "sitemapindex" {
		item = "sitemap"
	}
	lastmod := "<lastmod>" + snapshotAt(meta) + "</lastmod>"
	bw := bufio.NewWriterSize(w, 32<<10)
	io.WriteString(bw, xml.Header+"<"+root+` xmlns="`+sitemapNS+`">`+"\n")
	err := list(func(loc string) error {
		bw.WriteString("<" + item + "><loc>")
		xml.EscapeText(bw, []byte(loc))
		_, err := bw.WriteString("</loc>" + lastmod + "</" + item + ">\n")
		return err
	})
	if err != nil {
		// The status is sent already; a cut body is all that can tell.
		s.log.Error("sitemap", "path", r.URL.Path, "err", err)
		return nil
	}
	io.WriteString(bw, "</"+root+">\n")
	if err := bw.Flush(); err != nil {
		s.log.Debug("sitemap: client gone", "path", r.URL.Path, "err", err)
	}
	return nil
}

// withIndex runs fn with the current index; fn's error is answered as a
// JSON error when nothing was written yet.
func (s *Server) withIndex(w http.ResponseWriter, r *http.Request, fn func(ix *query.Index) error) {
	ix, release := s.acquire()
	if ix == nil {
		s.writeError(w, r, errNoIndex)
		return
	}
	defer release()
	if err := fn(ix); err != nil {
		s.writeError(w, r, err)
	}
}

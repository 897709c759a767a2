package files

import (
	"bytes"
	"encoding/xml"
	"net/http"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/query"
	"stationdex/server/core"
	"stationdex/server/pages"
)

// /sitemap.xml is a sitemap index (sitemaps.org protocol) of child
// sitemaps under /sitemaps/: pages.xml (home, search, guide, directory
// indexes), then stations-N.xml and one series per directory kind, each
// child at most sitemapMaxURLs long. lastmod is the snapshot time, the only
// time at which the data is known to have been as listed. Children stream
// from the index's key order; none is built in memory.

const (
	SitemapMaxURLs = 50000
	SitemapNS      = "http://www.sitemaps.org/schemas/sitemap/0.9"
	XMLType        = "application/xml; charset=utf-8"
)

// sitemapSection is one series of children.
type sitemapSection struct {
	name  string
	count func(ix core.Index) (int, error)
	each  func(s *Server, ix core.Index, offset, limit int, emit func(loc string) error) error
}

func sitemapSections() []sitemapSection {
	secs := []sitemapSection{{
		name:  "stations",
		count: func(ix core.Index) (int, error) { return ix.Meta().Stations, nil },
		each: func(s *Server, ix core.Index, offset, limit int, emit func(string) error) error {
			return ix.EachStationID(offset, limit, func(id format.UUID) error { return emit(stationjson.StationURL(s.Base, id)) })
		},
	}}
	for _, d := range pages.Directories {
		secs = append(secs, sitemapSection{
			name:  d.Kind,
			count: func(ix core.Index) (int, error) { return ix.ListingCount(d.Facet) },
			each: func(s *Server, ix core.Index, offset, limit int, emit func(string) error) error {
				return ix.EachListedKey(d.Facet, offset, limit, func(key []byte) error {
					if d.Facet != query.DimCountry && !stationjson.HasPage(string(key)) {
						return nil
					}
					return emit(d.ValueURL(s.Base, string(key)))
				})
			},
		})
	}
	return secs
}

// sitemapPages are the fixed pages, in pages.xml.
func (s *Server) sitemapPages() []string {
	fixed := []string{s.Base + "/", s.Base + core.PathSearch, s.Base + core.PathGuide}
	for _, d := range pages.Directories {
		fixed = append(fixed, d.IndexURL(s.Base))
	}
	return fixed
}

// sitemapIndex is /sitemap.xml: pages.xml and one child per 50,000
// locations of each section.
func (s *Server) sitemapIndex(r *http.Request, _ httprouter.Params) (string, core.Builder, error) {
	return r.URL.Path, func(ix core.Index, dst []byte) (core.EntityHead, []byte, error) {
		children := []string{"pages.xml"}
		for _, sec := range sitemapSections() {
			n, err := sec.count(ix)
			if err != nil {
				return core.EntityHead{}, dst, err
			}
			for i := 1; (i-1)*SitemapMaxURLs < n; i++ {
				children = append(children, sec.name+"-"+strconv.Itoa(i)+".xml")
			}
		}
		return s.appendXML(dst, ix, "sitemapindex", func(emit func(string) error) error {
			for _, c := range children {
				if err := emit(s.Base + core.PathSitemaps + c); err != nil {
					return err
				}
			}
			return nil
		})
	}, nil
}

// sitemapChild is one child sitemap: pages.xml or SECTION-N.xml.
func (s *Server) sitemapChild(r *http.Request, ps httprouter.Params) (string, core.Builder, error) {
	name := ps.ByName("file")
	if name == "pages.xml" {
		return r.URL.Path, func(ix core.Index, dst []byte) (core.EntityHead, []byte, error) {
			return s.appendXML(dst, ix, "urlset", func(emit func(string) error) error {
				for _, p := range s.sitemapPages() {
					if err := emit(p); err != nil {
						return err
					}
				}
				return nil
			})
		}, nil
	}
	sec, n, ok := ParseSitemapName(name)
	if !ok {
		return "", nil, core.Errorf(core.CodeNotFound, "no sitemap %s; start from /sitemap.xml", core.QuoteClip(name))
	}
	return r.URL.Path, func(ix core.Index, dst []byte) (core.EntityHead, []byte, error) {
		count, err := sec.count(ix)
		if err != nil {
			return core.EntityHead{}, dst, err
		}
		if n-1 >= (count+SitemapMaxURLs-1)/SitemapMaxURLs { // before multiplying: n may be near MaxInt
			return core.EntityHead{}, dst, core.Errorf(core.CodeNotFound, "no sitemap %s; start from /sitemap.xml", core.QuoteClip(name))
		}
		offset := (n - 1) * SitemapMaxURLs
		return s.appendXML(dst, ix, "urlset", func(emit func(string) error) error {
			return sec.each(s, ix, offset, SitemapMaxURLs, emit)
		})
	}, nil
}

// ParseSitemapName reads "{section}-{n}.xml", n >= 1 without leading zeros.
func ParseSitemapName(name string) (sitemapSection, int, bool) {
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

// appendXML appends a urlset or sitemapindex of the locations list emits,
// each with the snapshot as lastmod.
func (s *Server) appendXML(dst []byte, ix core.Index, root string, list func(emit func(string) error) error) (core.EntityHead, []byte, error) {
	item := "url"
	if root == "sitemapindex" {
		item = "sitemap"
	}
	lastmod := "<lastmod>" + core.SnapshotAt(ix.Meta()) + "</lastmod>"
	b := bytes.NewBuffer(dst)
	b.WriteString(xml.Header + "<" + root + ` xmlns="` + SitemapNS + `">` + "\n")
	err := list(func(loc string) error {
		b.WriteString("<" + item + "><loc>")
		xml.EscapeText(b, []byte(loc)) // a bytes.Buffer takes every write
		b.WriteString("</loc>" + lastmod + "</" + item + ">\n")
		return nil
	})
	if err != nil {
		return core.EntityHead{}, b.Bytes(), err
	}
	b.WriteString("</" + root + ">\n")
	return core.EntityHead{ContentType: XMLType}, b.Bytes(), nil
}

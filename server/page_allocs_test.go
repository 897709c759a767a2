package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"stationdex/internal/format"
	"stationdex/server/core"
)

// pageAllocBounds are the most allocations one page of each kind (of
// pageKinds) may make, built from the demo index and written, a little
// above what it makes now; writing alone makes at most writeAllocBound
// (the page's canonical and Markdown URLs and its description), in HTML
// and as its Markdown twin (the footer's text). Building
// makes the rest: the model's strings and the records read. The demo
// index is built with -compat, whose root bucket holds the compatible
// API's buckets too: since upstream_orders it is a level deeper, and
// each bucket a page opens through bbolt costs an allocation more in
// its cursor, so pages open each bucket once (the directory page went
// from 387 to 417 when it opened one per value). Directory pages read
// through the page tree since, as searches do, which opens no bucket
// through bbolt (310 to 233). The station page went from 84 to 52 when it
// read its nearest stations as stored (format's nearby bucket) instead of
// searching, and wrote the text of its nearby, variants and description
// blocks into one buffer each; to 30 (listening page 18 to 8) when the
// page, its blocks and facts became one allocation and its addresses and
// short texts were cut from one string, with its nearby stations' and
// other entries' addresses cut from their blocks' text, and a page's
// canonical and Markdown URLs from one string.
var pageAllocBounds = map[string]float64{
	"home":            70,  // 66: the search form's fields in slices made to size
	"search":          36,  // 34: distinct by default; results with their notes, the facets' refining links (each facet's search written once), and the page's other links to searches, cut from one string each; the page, its form, blocks and links in a pooled model (37 before), the form read without url.Values (53 before, 329 before that)
	"station":         28,  // 26: the record, its nearest stations and group read, their text and addresses in one string each; its location's, languages' and genres' addresses in one (27 while its cut addresses' stack array escaped, 30 before)
	"listen":          9,   // 8: the page in one allocation, its texts and addresses in another, the record (9 while its stack array escaped)
	"directory":       155, // 148: the values' addresses and notes cut from one string
	"directory_entry": 34,  // 31: its stations' addresses and notes, and its search and API links, cut from one string each (44 before)
	"guide":           170, // with the /json/ part: client facts built on the base URL
}

const writeAllocBound = 8

// TestPageAllocs guards the allocations of each kind of page, built and
// written, and written alone into a buffer that has grown.
func TestPageAllocs(t *testing.T) {
	if pagesRace {
		t.Skip("the race detector allocates on its own")
	}
	s, ix := newDemoServer(t, nil), demoIx(t)
	for _, k := range pageKinds {
		r := httptest.NewRequest(http.MethodGet, k.target, nil)
		var dst []byte
		all := testing.AllocsPerRun(50, func() {
			p, f := buildPage(s, ix, r)
			dst = s.pages.AppendHTML(dst[:0], p, f)
		})
		p, f := buildPage(s, ix, r)
		write := testing.AllocsPerRun(50, func() { dst = s.pages.AppendHTML(dst[:0], p, f) })
		md := testing.AllocsPerRun(50, func() { dst = s.pages.AppendMarkdown(dst[:0], p, f) })
		if all > pageAllocBounds[k.name] || write > writeAllocBound || md > writeAllocBound {
			t.Errorf("%s page: %v allocations built and written (at most %v), %v written, %v as Markdown (at most %v)",
				k.name, all, pageAllocBounds[k.name], write, md, writeAllocBound)
		}
	}
}

// pageAnswerAllocBound is the most allocations answering a page may add to
// building and writing it (TestPageAllocs): routing, the cache key and
// tag, the header fields and the test's own request and recorder.
// Measured 19 on every kind since an answer built for one request is tagged
// in one allocation (22 to 23 before); 30 to 40 before the page trees'
// routing stopped splitting paths and shapes per request, and before a
// page sent once stopped allocating header fields kept for a next time.
const pageAnswerAllocBound = 21

// TestAllocsPerPageResponse guards what the response path adds to a page
// of each kind, answered through the whole handler with the response cache
// off, as a crawler's pages are (each asked for once), HTML and Markdown.
func TestAllocsPerPageResponse(t *testing.T) {
	if pagesRace {
		t.Skip("the race detector allocates on its own")
	}
	s, ix := newServerWithCache(t, fixedSource{demoIx(t)}, -1), demoIx(t)
	h := s.Handler()
	for _, k := range pageKinds {
		for _, md := range []bool{false, true} {
			target := k.target
			if md {
				target = markdownTwinTarget(target)
			}
			answered := allocsPerGet(t, h, target, 50)
			r := httptest.NewRequest(http.MethodGet, k.target, nil) // buildPage knows the HTML target
			var dst []byte
			built := testing.AllocsPerRun(50, func() {
				p, f := buildPage(s, ix, r)
				if md {
					dst = s.pages.AppendMarkdown(dst[:0], p, f)
				} else {
					dst = s.pages.AppendHTML(dst[:0], p, f)
				}
			})
			t.Logf("%s: %v built, %v answered", target, built, answered)
			if added := answered - built; added > pageAnswerAllocBound {
				t.Errorf("%s: answering adds %v allocations to building (%v of %v), at most %v", target, added, built, answered, pageAnswerAllocBound)
			}
		}
	}
}

// markdownTwinTarget is the Markdown twin of a page's target: index.md
// after the path's slash, the query kept.
func markdownTwinTarget(target string) string {
	path, query, found := strings.Cut(target, "?")
	if found {
		query = "?" + query
	}
	return path + core.MarkdownIndex + query
}

// realStationAllocs bound the allocations of a station page of the real
// snapshot that lists nearby stations and other entries of its group,
// built and written: a base, a few for each station it links (its
// address, its name where cleaning changes it, its note's share) and for
// each of its own genres and languages (a directory link each). Measured
// 54 to 188, the most for a station of some fifty genres; 36 to 67 on the
// first five since the page's and its linked stations' addresses are cut
// from one string per block; 33 to 125 (from 151) since its location's,
// languages' and genres' addresses are one string.
const (
	realStationAllocBase   = 35
	realStationAllocLinked = 3
	realStationAllocList   = 2
)

// TestRealStationPageAllocs guards the station pages whose blocks read
// other stations, on the real snapshot: the first five with nearby
// stations and other entries, HTML and Markdown; and the reads of those
// blocks (the stored nearest stations, the group), a few allocations
// each (the records decoded into one buffer).
func TestRealStationPageAllocs(t *testing.T) {
	if pagesRace {
		t.Skip("the race detector allocates on its own")
	}
	ix := realIx(t)
	s := serverAt(t, ix, testBase)
	type station struct {
		rec                     format.Record
		linked, lists, variants int
	}
	var picked []station
	err := ix.EachStationID(0, ix.Meta().Stations, func(id format.UUID) error {
		if len(picked) == 5 {
			return nil
		}
		rec, err := ix.Station(id)
		if err != nil || !rec.Geo.Known {
			return err
		}
		vs, total, err := ix.Variants(id)
		if err != nil || total == 0 {
			return err
		}
		near, err := ix.Nearby(&rec, 5)
		picked = append(picked, station{rec, len(vs) + len(near), len(rec.Genres) + len(rec.Languages), len(vs)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(picked) == 0 {
		t.Fatal("no station with coordinates and other entries in the snapshot")
	}
	for _, st := range picked {
		target := "/stations/" + st.rec.ID.String() + "/"
		reads := testing.AllocsPerRun(20, func() {
			if _, err := ix.Nearby(&st.rec, 5); err != nil {
				t.Fatal(err)
			}
		})
		groups := testing.AllocsPerRun(20, func() {
			if _, _, err := ix.Variants(st.rec.ID); err != nil {
				t.Fatal(err)
			}
		})
		searched := testing.AllocsPerRun(20, func() {
			if _, err := ix.Index.Nearby(&st.rec, 5); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("%s: nearby stations read in %v allocations (searched: %v), its group in %v", target, reads, searched, groups)
		// The group's entries are decoded one by one: a few allocations
		// for the read and at most one an entry (measured 10 to 20 for 2
		// to 20 entries, on the snapshot and the sample).
		if groupBound := float64(10 + st.variants); reads > 10 || groups > groupBound {
			t.Errorf("%s: reading its nearby stations makes %v allocations (at most 10), its group of %d entries %v (at most %v)",
				target, reads, st.variants, groups, groupBound)
		}
		r := httptest.NewRequest(http.MethodGet, target, nil)
		var dst []byte
		for _, md := range []bool{false, true} {
			n := testing.AllocsPerRun(20, func() {
				p, f := buildPage(s, ix, r)
				if md {
					dst = s.pages.AppendMarkdown(dst[:0], p, f)
				} else {
					dst = s.pages.AppendHTML(dst[:0], p, f)
				}
			})
			bound := float64(realStationAllocBase + realStationAllocLinked*st.linked + realStationAllocList*st.lists)
			t.Logf("%s (Markdown %v, %d stations linked): %v allocations", target, md, st.linked, n)
			if n > bound {
				t.Errorf("%s (Markdown %v): %v allocations built and written, at most %v", target, md, n, bound)
			}
		}
	}
}

// TestPageCacheHits: a page answered from the response cache is found by
// its request target before its key is made, as an API search is, and
// allocates nothing, but for the router's parameter of a page below a
// path shape's top (httprouter's catch-all, made per request); a client preferring Markdown at the same target
// still gets the Markdown twin, not the HTML the target was answered with.
func TestPageCacheHits(t *testing.T) {
	s := newServerWithCache(t, fixedSource{demoIx(t)}, 0)
	h := s.Handler()
	for _, k := range pageKinds {
		for _, target := range []string{k.target, markdownTwinTarget(k.target)} {
			r := httptest.NewRequest(http.MethodGet, target, nil)
			w := &discardWriter{h: http.Header{}}
			serve := func() {
				w.reset()
				h.ServeHTTP(w, r)
				if w.code != http.StatusOK {
					t.Fatalf("%s: status %d", target, w.code)
				}
			}
			serve()
			before := s.Cache.Stats().Hits
			n := testing.AllocsPerRun(20, serve)
			if hits := s.Cache.Stats().Hits - before; hits < 20 {
				t.Errorf("%s: %d of 21 answers from the cache", target, hits)
			}
			bound := 1.0 // the router's parameter
			if k.name == "home" || k.name == "search" || k.name == "guide" {
				bound = 0 // routes of their own
			}
			if n > bound && !pagesRace {
				t.Errorf("%s: %v allocations per answer from the cache, at most %v", target, n, bound)
			}
		}
		rec := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, k.target, nil)
		r.Header.Set("Accept", "text/markdown")
		h.ServeHTTP(rec, r)
		if ct := rec.Header().Get("Content-Type"); rec.Code != http.StatusOK || ct != core.MarkdownMediaType {
			t.Errorf("%s with Accept: text/markdown after its HTML was cached: %d %s", k.target, rec.Code, ct)
		}
	}
}

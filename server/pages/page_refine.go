package pages

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"stationdex/internal/dim"
	"stationdex/internal/format"
	"stationdex/query"
	"stationdex/server/core"
	"stationdex/server/params"
)

// The search page's refining blocks: "did you mean" links and facets as
// refinement links with counts. They link search pages, so a reader
// refines without JavaScript; the Markdown twin renders the same blocks.

// pageFacetLimit is how many values of each facet the search page lists.
const pageFacetLimit = 8

// pageFacets are the facets the search page counts: every one a search
// can.
var pageFacets = func() query.DimSet {
	var ds query.DimSet
	for d := range query.NumDims {
		if d.Facetable() {
			ds = ds.With(d)
		}
	}
	return ds
}()

// pageQuery is the engine query of the search page: the API's, with every
// facet counted, whatever the reader asked for.
func pageQuery(p params.SearchParams) query.Query {
	q := p.Query()
	q.Facets = pageFacets
	q.FacetLimit = pageFacetLimit
	q.Distinct = p.IsDistinct(true)
	q.CountVariants = q.Distinct // each result notes its other entries
	return q
}

// searchPageURL is the search page of p, without the API-only facet
// parameters.
func (s *Server) searchPageURL(p params.SearchParams) string {
	p.Facets, p.FacetLimit = 0, 0
	return p.LinkURL(s.Base, core.PathSearch)
}

func (s *Server) didYouMean(p params.SearchParams, sg []query.Suggestion) []Block {
	if len(sg) == 0 {
		return nil
	}
	links := make([]Link, len(sg))
	for i, g := range sg {
		alt := p
		alt.Q, alt.Offset = g.Q, 0
		links[i] = internalLink(g.Q, s.searchPageURL(alt))
		links[i].Note = stationCount(g.Total)
	}
	return []Block{{Heading: "Did you mean", Links: links}}
}

// refinements appends to blocks each facet's values, each linking this
// search with that filter set, and their links to links, returning both.
// The links' addresses and notes are cut from one string and the links
// are one array: a search page lists some forty. Each facet's search is
// written once with its value's place left open (AppendCanonicalQueryOf),
// and each value escaped into a copy.
func (s *Server) refinements(blocks []Block, links []Link, p params.SearchParams, f query.Facets) ([]Block, []Link) {
	n := facetValueCount(f)
	if n == 0 {
		return blocks, links
	}
	var stack [8192]byte
	b := stack[:0]
	var endStack [2 * 8 * pageFacetLimit]int
	ends := endStack[:0]
	alt := p // p.Refined(d, c.Value) as searchPageURL writes it, its filter in one
	alt.Offset, alt.Facets, alt.FacetLimit = 0, 0, 0
	var one [1]string
	var open [512]byte
	for d, counts := range f {
		if len(counts) == 0 {
			continue
		}
		page := append(append(append(open[:0], s.Base...), core.PathSearch...), '?')
		q, at, ok := alt.AppendCanonicalQueryOf(page, query.Dim(d))
		for _, c := range counts {
			if ok && c.Value != "" {
				b = append(params.AppendQueryEscape(append(b, q[:at]...), c.Value), q[at:]...)
			} else {
				one[0] = c.Value
				refined := alt
				refined.Filter[d] = one[:]
				b = refined.AppendCanonicalQuery(append(b, page...))
			}
			ends = append(ends, len(b))
			b = appendStationCount(b, c.Count)
			ends = append(ends, len(b))
		}
	}
	text := string(b)
	links = slices.Grow(links, n)
	k := 0
	for d, counts := range f {
		if len(counts) == 0 {
			continue
		}
		first := len(links)
		for _, c := range counts {
			start := 0
			if k > 0 {
				start = ends[2*k-1]
			}
			l := internalLink(c.Label, text[start:ends[2*k]])
			l.Note = text[ends[2*k]:ends[2*k+1]]
			links = append(links, l)
			k++
		}
		blocks = append(blocks, Block{Heading: narrowHeadings[d], Links: links[first:len(links):len(links)]})
	}
	return blocks, links
}

// narrowHeadings head each facet's block of refinements.
var narrowHeadings = func() (h [query.NumDims]string) {
	for d := range h {
		h[d] = "Narrow by " + cmp.Or(dim.Rows[d].Dir.One, query.Dim(d).Name())
	}
	return h
}()

// appendStationCount appends stationCount(n).
func appendStationCount(b []byte, n int) []byte {
	if n == 1 {
		return append(b, "1 station"...)
	}
	return append(strconv.AppendInt(b, int64(n), 10), " stations"...)
}

// nearbyStations is how many stations a station page lists near it.
const nearbyStations = 5

// nearBlock lists the stations nearest to r with their distances, headed
// with how far the farthest of them is, and links the search around its
// position within that distance, nearest first; an empty block when r has
// none. The stations are read as the indexer stored them (query.Index's
// Nearby); the block's text (each station's note, the heading, the
// search's label and address) is written into one string (nearText).
func (s *Server) nearBlock(ix core.Index, r *format.Record) (Block, error) {
	if !r.Geo.Known {
		return Block{}, nil
	}
	near, err := ix.Nearby(r, nearbyStations)
	if err != nil || len(near) == 0 {
		return Block{}, err
	}
	t := s.nearText(r, near)
	n := len(near)
	links := make([]Link, n, n+1)
	for i := range near {
		links[i] = internalLink(near[i].Station.Name, t.piece(n+3+i))
		links[i].Note = t.piece(i)
	}
	links = append(links, internalLink(t.piece(n+1), t.piece(n+2)))
	return Block{Heading: t.piece(n), Links: links}, nil
}

// pieces are strings cut from one: piece i ends at ends[i].
type pieces struct {
	text string
	ends [2*nearbyStations + 3]int
}

func (p *pieces) piece(i int) string {
	start := 0
	if i > 0 {
		start = p.ends[i-1]
	}
	return p.text[start:p.ends[i]]
}

// nearText is the text of r's block of nearby stations, in one string:
// each station's distance and note, then the heading ("Nearest stations,
// 120 m to 3.4 km away"), the label of the search around r ("All stations
// within 10 km") and its address; then each station's address.
func (s *Server) nearText(r *format.Record, near []query.NearStation) pieces {
	var stack [2048]byte
	b := stack[:0]
	var t pieces
	for i := range near {
		b = appendNote(append(appendDistance(b, near[i].DistanceKm), " · "...), &near[i].Station)
		t.ends[i] = len(b)
	}
	n := len(near)
	b = appendDistance(append(b, "Nearest stations, "...), near[0].DistanceKm)
	b = appendDistance(append(b[:len(b)-len(" away")], " to "...), near[n-1].DistanceKm)
	t.ends[n] = len(b)
	radius := nearRadius(near[n-1].DistanceKm)
	b = appendKilometres(append(b, "All stations within "...), radius)
	t.ends[n+1] = len(b)
	around := params.SearchParams{Limit: core.DefaultLimit}
	around.Near = &params.Point{Lat: r.Geo.LatDeg(), Lon: r.Geo.LonDeg()}
	around.RadiusKm, around.Sort = radius, params.SortDistance
	b = around.AppendCanonicalQuery(append(append(append(b, s.Base...), core.PathSearch...), '?')) // searchPageURL
	t.ends[n+2] = len(b)
	for i := range near {
		b = appendStationURL(b, s.Base, near[i].Station.ID, "")
		t.ends[n+3+i] = len(b)
	}
	t.text = string(b)
	return t
}

// nearRadius is the radius of the search around a station that finds its
// nearest stations, the farthest farKm away: the search's default, or the
// distance rounded up to a whole kilometre, within the radius's bounds.
func nearRadius(farKm float64) float64 {
	return min(max(params.DefaultRadiusKm, math.Ceil(farKm)), params.MaxRadiusKm)
}

// distanceText is a distance as people read it: metres below a
// kilometre, one decimal below 10 km, whole kilometres beyond (kilometres).
// One string, built in a stack buffer.
func distanceText(km float64) string {
	var buf [32]byte
	return string(appendDistance(buf[:0], km))
}

// appendDistance appends distanceText(km).
func appendDistance(b []byte, km float64) []byte {
	switch {
	case km < 1:
		b = append(strconv.AppendInt(b, int64(km*1000+0.5), 10), " m"...)
	case km < 10:
		b = append(strconv.AppendFloat(b, km, 'f', 1, 64), " km"...)
	default:
		b = appendKilometres(b, km)
	}
	return append(b, " away"...)
}

// kilometres is a distance of 10 km or more in whole kilometres, its
// thousands separated by commas: "1,344 km".
func kilometres(km float64) string {
	var buf [32]byte
	return string(appendKilometres(buf[:0], km))
}

func appendKilometres(b []byte, km float64) []byte {
	var digits [24]byte
	d := strconv.AppendInt(digits[:0], int64(km+0.5), 10)
	for i, c := range d {
		if i > 0 && (len(d)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, c)
	}
	return append(b, " km"...)
}

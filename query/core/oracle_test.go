package core

import (
	"encoding/json"
	"slices"
	"sync"

	"stationdex/internal/format"
	qoracle "stationdex/oracle"
)

// oracle adapts the linear-scan oracle (package oracle) to Query.
type oracle struct {
	*qoracle.Oracle
	// facetCounts holds the facet counts answered so far (facetKey to
	// []qoracle.FacetCount): the real-snapshot tests ask the same request
	// and facet for each facet limit, way and kind, and each answer is a
	// scan of every station.
	facetCounts sync.Map
}

func newOracle(recs []format.Record) *oracle { return &oracle{Oracle: qoracle.New(recs)} }

type facetKey struct {
	request  string // the request as JSON: every field, maps in key order
	facet    string
	distinct bool
}

// Facets is the oracle's Facets, each request and facet counted once.
func (o *oracle) Facets(q qoracle.Request, facet string) []qoracle.FacetCount {
	return o.countFacets(q, facet, false)
}

// DistinctFacets is the oracle's DistinctFacets, each request and facet
// counted once.
func (o *oracle) DistinctFacets(q qoracle.Request, facet string) []qoracle.FacetCount {
	return o.countFacets(q, facet, true)
}

func (o *oracle) countFacets(q qoracle.Request, facet string, distinct bool) []qoracle.FacetCount {
	count := o.Oracle.Facets
	if distinct {
		count = o.Oracle.DistinctFacets
	}
	request, err := json.Marshal(q)
	if err != nil { // a bound JSON cannot write (NaN): counted every time
		return count(q, facet)
	}
	key := facetKey{string(request), facet, distinct}
	if counts, ok := o.facetCounts.Load(key); ok {
		return slices.Clone(counts.([]qoracle.FacetCount))
	}
	counts := count(q, facet)
	o.facetCounts.Store(key, counts)
	return slices.Clone(counts)
}

func (o *oracle) search(q Query) []format.UUID {
	if q.Distinct {
		return o.Distinct(o.Search(request(q)))
	}
	return o.Search(request(q))
}

// request is the oracle's form of q.
func request(q Query) qoracle.Request {
	f := q.Filter
	r := qoracle.Request{Q: q.Q, Country: one(f, DimCountry), Language: one(f, DimLanguage), Genre: one(f, DimGenre),
		Location: one(f, DimLocation), HTTPS: one(f, DimHTTPS), Flags: flags(f), Codecs: f[DimCodec],
		BitrateMin: q.BitrateMin, BitrateMax: q.BitrateMax}
	if q.Near != nil {
		r.Near = &qoracle.Near{Lat: q.Near.Lat, Lon: q.Near.Lon, RadiusKm: q.Near.RadiusKm}
	}
	return r
}

// flags is the oracle's form of f's filters on the dimensions read from a
// flag of the source record.
func flags(f Filters) map[string]string {
	m := map[string]string{}
	for d := range NumDims {
		if Dims[d].Flag.Field != "" && len(f[d]) > 0 {
			m[d.Name()] = f[d][0]
		}
	}
	return m
}

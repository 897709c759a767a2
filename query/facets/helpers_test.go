package facets

import (
	"encoding/json"
	"os"
	"slices"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	qoracle "stationdex/oracle"
	"stationdex/query/core"
	"stationdex/query/internal/testindex"
	"stationdex/query/spell"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if real.ix != nil {
		real.ix.Close()
	}
	testindex.Cleanup()
	os.Exit(code)
}

type station = testindex.Station

func ndjson(stations []station) string { return testindex.NDJSON(stations) }

func buildIndex(tb testing.TB, text string) string { tb.Helper(); return testindex.Build(tb, text) }

func openIndex(tb testing.TB, path string) *core.Index {
	tb.Helper()
	ix, err := core.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	return ix
}

func reseal(tx *bolt.Tx) error { return format.Reseal(tx) }

func copyFile(t *testing.T, src string) string { t.Helper(); return testindex.CopyFile(t, src) }

// search is Search in package query: Run with the facet counts and the
// suggestions.
func search(ix *core.Index, q core.Query) (core.Result, error) {
	res, _, err := ix.Run(q, nil, Count, spell.Suggest)
	return res, err
}

// real is the real snapshot's index, opened once per test binary, and
// its oracle.
var real struct {
	once   sync.Once
	ix     *core.Index
	oracle *oracle
	recs   []format.Record
	err    error
}

// realIndex is the real snapshot's index and its oracle; it skips (fails
// under CI=true) when the snapshot is absent.
func realIndex(tb testing.TB) (*core.Index, *oracle) {
	tb.Helper()
	path, recs, _ := testindex.Real(tb)
	real.once.Do(func() {
		real.recs, real.oracle = recs, &oracle{Oracle: qoracle.New(recs)}
		real.ix, real.err = core.Open(path)
	})
	if real.err != nil {
		tb.Fatal(real.err)
	}
	return real.ix, real.oracle
}

// oracle adapts the linear-scan oracle (package oracle) to core.Query.
type oracle struct {
	*qoracle.Oracle
	// facetCounts holds the facet counts answered so far (the request as
	// JSON and the facet, to []qoracle.FacetCount): the tests ask the same
	// ones for each facet limit, and each answer is a scan of every
	// station.
	facetCounts sync.Map
}

type facetKey struct{ request, facet string }

// Facets is the oracle's Facets, each request and facet counted once.
func (o *oracle) Facets(q qoracle.Request, facet string) []qoracle.FacetCount {
	request, err := json.Marshal(q)
	if err != nil { // a bound JSON cannot write (NaN): counted every time
		return o.Oracle.Facets(q, facet)
	}
	key := facetKey{string(request), facet}
	if counts, ok := o.facetCounts.Load(key); ok {
		return slices.Clone(counts.([]qoracle.FacetCount))
	}
	counts := o.Oracle.Facets(q, facet)
	o.facetCounts.Store(key, counts)
	return slices.Clone(counts)
}

func (o *oracle) search(q core.Query) []format.UUID {
	if q.Distinct {
		return o.Distinct(o.Search(request(q)))
	}
	return o.Search(request(q))
}

// request is the oracle's form of q.
func request(q core.Query) qoracle.Request {
	f := q.Filter
	r := qoracle.Request{Q: q.Q, Country: one(f, core.DimCountry), Language: one(f, core.DimLanguage), Genre: one(f, core.DimGenre),
		Location: one(f, core.DimLocation), HTTPS: one(f, core.DimHTTPS), Codecs: f[core.DimCodec],
		BitrateMin: q.BitrateMin, BitrateMax: q.BitrateMax}
	if q.Near != nil {
		r.Near = &qoracle.Near{Lat: q.Near.Lat, Lon: q.Near.Lon, RadiusKm: q.Near.RadiusKm}
	}
	return r
}

// filters is the Filters of a country, language and genre ("" for none)
// and any codecs: the shape most tests write.
func filters(country, language, genre string, codecs ...string) core.Filters {
	var f core.Filters
	for d, v := range map[core.Dim]string{core.DimCountry: country, core.DimLanguage: language, core.DimGenre: genre} {
		if v != "" {
			f[d] = []string{v}
		}
	}
	if len(codecs) > 0 {
		f[core.DimCodec] = codecs
	}
	return f
}

// threeFacets are the facets the memo holds.
var threeFacets = core.DimsOf(core.DimCountry, core.DimLanguage, core.DimGenre)

// one is the value of a single-valued filter, or "".
func one(f core.Filters, d core.Dim) string {
	if len(f[d]) == 0 {
		return ""
	}
	return f[d][0]
}

// dimOfFacet is the dimension of an oracle facet name.
func dimOfFacet(name string) core.Dim {
	for d := range core.NumDims {
		if d.Name() == name {
			return d
		}
	}
	panic("no dimension " + name)
}

// oracleTop keeps the k best values that a filter can name.
func oracleTop(all []qoracle.FacetCount, facet string, k int) []qoracle.FacetCount {
	var out []qoracle.FacetCount
	for _, c := range all {
		if (facet == qoracle.FacetGenre || facet == qoracle.FacetLocation) && !core.Filterable(dimOfFacet(facet), c.Value) {
			continue
		}
		if out = append(out, c); len(out) == k {
			break
		}
	}
	return out
}

func sameCounts(got []core.FacetCount, want []qoracle.FacetCount) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i].Value != want[i].Value || got[i].Count != want[i].Count || got[i].Label == "" {
			return false
		}
	}
	return true
}

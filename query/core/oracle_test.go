package core

import (
	"stationdex/internal/format"
	qoracle "stationdex/oracle"
)

// oracle adapts the linear-scan oracle (package oracle) to Query.
type oracle struct{ *qoracle.Oracle }

func newOracle(recs []format.Record) *oracle { return &oracle{qoracle.New(recs)} }

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

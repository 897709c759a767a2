package query

import (
	"stationdex/indexer/format"
	qoracle "stationdex/query/oracle"
)

// oracle adapts the linear-scan oracle (package query/oracle) to Query.
type oracle struct{ *qoracle.Oracle }

func newOracle(recs []format.Record) *oracle { return &oracle{qoracle.New(recs)} }

func (o *oracle) search(q Query) []format.UUID {
	return o.Search(qoracle.Request{Q: q.Q, Country: q.Country, Language: q.Language, Genre: q.Genre})
}

package engines

import (
	"fmt"

	"stationdex/bench/internal/mix"
	"stationdex/query"
)

// Stationdex is our engine, opened on an index file.
type Stationdex struct{ Ix *query.Index }

// OpenStationdex opens an index file built by `stationdex index`.
func OpenStationdex(path string) (e *Stationdex, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("query.Open: %v", p)
		}
	}()
	ix, err := query.Open(path)
	if err != nil {
		return nil, err
	}
	return &Stationdex{Ix: ix}, nil
}

func (e *Stationdex) Name() string { return "stationdex" }

// Query converts a mix query to the engine's.
func Query(q mix.Query) query.Query {
	out := query.Query{Q: q.Q, Limit: q.Limit, Offset: q.Offset}
	for d, v := range [...]string{query.DimCountry: q.Country, query.DimLanguage: q.Language, query.DimGenre: q.Genre} {
		if v != "" {
			out.Filter[d] = []string{v}
		}
	}
	return out
}

func (e *Stationdex) Search(q mix.Query, ids bool) (int, []string, error) {
	res, err := e.Ix.Search(Query(q))
	if err != nil {
		return 0, nil, err
	}
	var page []string
	if ids {
		for i := range res.Stations {
			page = append(page, res.Stations[i].ID.String())
		}
	}
	return res.Total, page, nil
}

func (e *Stationdex) Close() error { return e.Ix.Close() }

package engines

import (
	"fmt"

	"stationdex/bench/internal/mix"
)

// Row is one result as a peer's HTTP front returns it.
type Row struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	CountryCode string `json:"country_code,omitempty"`
	Country     string `json:"country"`
	Location    string `json:"location,omitempty"`
	Languages   string `json:"languages"`
	Genres      string `json:"genres"`
	Bitrate     int    `json:"bitrate_kbps,omitempty"`
	Homepage    string `json:"official_url,omitempty"`
	Stream      string `json:"stream_url,omitempty"`
}

// Pager is a peer that can return the records of a page.
type Pager interface {
	Page(q mix.Query) (total int, rows []Row, err error)
}

// Page runs q and returns the page's rows.
func (e *SQLite) Page(q mix.Query) (int, []Row, error) {
	k := QueryKeysOf(q)
	if q.Q != "" && len(k.Words) == 0 {
		return 0, []Row{}, nil
	}
	where, args := e.where(k)
	cnt, err := e.stmt("SELECT count(*) FROM st" + where)
	if err != nil {
		return 0, nil, err
	}
	var total int
	if err := cnt.QueryRow(args...).Scan(&total); err != nil {
		return 0, nil, fmt.Errorf("sqlite count: %w", err)
	}
	order := " ORDER BY rn"
	if len(k.Words) > 0 {
		order = " ORDER BY CASE WHEN namekey = ? THEN 0 WHEN rn IN (SELECT rowid FROM fts WHERE fts MATCH ?) THEN 1 ELSE 2 END, rn"
		args = append(args, k.Key, "name : ("+ftsExpr(k.Words)+")")
	}
	st, err := e.stmt("SELECT id, name, cc, country, location, languages, genres, bitrate, homepage, stream FROM st" + where + order + " LIMIT ? OFFSET ?")
	if err != nil {
		return 0, nil, err
	}
	rs, err := st.Query(append(args, q.Limit, q.Offset)...)
	if err != nil {
		return 0, nil, err
	}
	defer rs.Close()
	rows := []Row{}
	for rs.Next() {
		var r Row
		if err := rs.Scan(&r.ID, &r.Name, &r.CountryCode, &r.Country, &r.Location, &r.Languages, &r.Genres, &r.Bitrate, &r.Homepage, &r.Stream); err != nil {
			return 0, nil, err
		}
		rows = append(rows, r)
	}
	return total, rows, rs.Err()
}

// Page runs q and returns the page's stored fields.
func (e *Bleve) Page(q mix.Query) (int, []Row, error) {
	req, ok := e.request(q)
	if !ok {
		return 0, []Row{}, nil
	}
	res, err := e.ix.Search(req)
	if err != nil {
		return 0, nil, err
	}
	rows := make([]Row, 0, len(res.Hits))
	for _, h := range res.Hits {
		str := func(k string) string { v, _ := h.Fields[k].(string); return v }
		rows = append(rows, Row{ID: str("id"), Name: str("dname"), Country: str("country"), Location: str("location"),
			Languages: str("languages"), Genres: str("genres"), Stream: str("stream")})
	}
	return int(res.Total), rows, nil
}

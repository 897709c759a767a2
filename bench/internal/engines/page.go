package engines

import (
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
	total, rs, err := e.query(q, "id, name, cc, country, location, languages, genres, bitrate, homepage, stream")
	if err != nil {
		return 0, nil, err
	}
	if rs == nil {
		return 0, []Row{}, nil
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

// Command peerhttp puts a peer engine (SQLite FTS5 or Bleve) behind the
// simplest Go HTTP front that answers our search parameters, so the suite
// can load it with the same wrk mix as our server: GET /api/stations with
// q, country, language, genre, limit, offset, answered with
// {"total":N,"limit":L,"offset":O,"results":[...]} via encoding/json. No
// validation, URLs, caching headers or metrics: a lower bound on what the
// peer would cost as a service.
//
//	peerhttp -engine sqlite -data stations.ndjson -addr 127.0.0.1:18090 -dir /tmp/x
package main

import (
	"encoding/json"
	"flag"
	"log"
	"net/http"
	"os"
	"strconv"

	"stationdex/bench/internal/engines"
	"stationdex/bench/internal/mix"
)

func main() {
	engine := flag.String("engine", "sqlite", "sqlite or bleve")
	data := flag.String("data", "", "NDJSON dump to load")
	addr := flag.String("addr", "127.0.0.1:18090", "listen address (loopback)")
	dir := flag.String("dir", "", "directory for the peer's files (created)")
	flag.Parse()
	if *data == "" || *dir == "" {
		log.Fatal("peerhttp: -data and -dir are required")
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		log.Fatal(err)
	}
	recs, err := engines.Records(*data)
	if err != nil {
		log.Fatal(err)
	}
	var p engines.Pager
	switch *engine {
	case "sqlite":
		p, err = engines.NewSQLite(*dir, recs)
	case "bleve":
		p, err = engines.NewBleve(*dir, recs)
	default:
		log.Fatalf("peerhttp: unknown engine %q", *engine)
	}
	if err != nil {
		log.Fatal(err)
	}
	recs = nil
	http.HandleFunc("/api/stations", func(w http.ResponseWriter, r *http.Request) {
		v := r.URL.Query()
		limit, _ := strconv.Atoi(v.Get("limit"))
		offset, _ := strconv.Atoi(v.Get("offset"))
		if limit < 1 || limit > 50 {
			limit = 20
		}
		q := mix.Query{Q: v.Get("q"), Country: v.Get("country"), Language: v.Get("language"), Genre: v.Get("genre"), Limit: limit, Offset: offset}
		total, rows, err := p.Page(q)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(struct {
			Total   int           `json:"total"`
			Limit   int           `json:"limit"`
			Offset  int           `json:"offset"`
			Results []engines.Row `json:"results"`
		}{total, limit, offset, rows})
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}

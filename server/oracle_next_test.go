package server

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sync"
	"testing"

	"stationdex/indexer/realdata"
	"stationdex/internal/format"
	"stationdex/oracle"
)

// realOracle is the linear-scan oracle over the cleaned records of the real
// snapshot, read independently of the index the server answers from.
var realOracle = sync.OnceValues(func() (*oracle.Oracle, error) {
	recs, err := oracle.ReadRecords(realdata.Path())
	return oracle.New(recs), err
})

// TestOracleNextWalk follows `next` from the first page until it is null,
// over the HTTP API on the real snapshot, and compares every id, in order,
// and every page's total with the linear-scan oracle. The walk covers the
// pages the API can reach (offsets up to 5000).
func TestOracleNextWalk(t *testing.T) {
	t.Parallel() // one of the long tests, run beside each other (server_test.go)
	ix := realIx(t)
	o, err := realOracle()
	if err != nil {
		t.Fatal(err)
	}
	s := serverAt(t, ix, testBase)
	for _, q := range nextWalkQueries {
		t.Run(fmt.Sprintf("%+v", q), func(t *testing.T) {
			want := o.Search(oracle.Request{Q: q.q, Country: q.country, Language: q.language, Genre: q.genre})
			got := walkNext(t, s, q, len(want))
			if n := reachable(len(want), q.limit); len(got) != n || !slices.Equal(got, want[:n]) {
				t.Fatalf("walked %d ids, want the oracle's first %d of %d; first difference at %d",
					len(got), n, len(want), firstDifference(got, want))
			}
		})
	}
}

type walkQuery struct {
	q, country, language, genre string
	limit                       int
}

var nextWalkQueries = []walkQuery{
	{q: "jazz", limit: 50}, {q: "radio", limit: 50}, {q: "a", limit: 50}, {q: "ra", limit: 37},
	{q: "rádio comercial", limit: 20}, {q: "o3", limit: 10}, {q: "классик", limit: 50},
	{q: "радио", limit: 50}, {q: "北京", limit: 50}, {q: "ελληνικα", limit: 50}, {q: "fm 80s", limit: 50},
	{country: "de", limit: 50}, {language: "ger", limit: 50}, {language: "German", genre: "rock", limit: 13},
	{genre: "Jazz", limit: 50}, {q: "news", country: "us", limit: 50}, {q: "pop", language: "es", limit: 50},
	{q: "classic rock", country: "GB", genre: "rock", limit: 7}, {q: "zzzzqx", limit: 50},
	{country: "zz", limit: 50}, {language: "no such language", limit: 50},
}

// walkNext collects the ids of every page, checking each page's envelope.
func walkNext(t *testing.T, s *Server, q walkQuery, total int) []format.UUID {
	t.Helper()
	v := url.Values{"limit": {fmt.Sprint(q.limit)}}
	for k, val := range map[string]string{"q": q.q, "country": q.country, "language": q.language, "genre": q.genre} {
		if val != "" {
			v.Set(k, val)
		}
	}
	target := "/api/stations?" + v.Encode()
	var ids []format.UUID
	for pages := 0; target != ""; pages++ {
		if pages > 5000/q.limit+1 {
			t.Fatalf("more pages than offsets up to 5000 allow")
		}
		page := getPage(t, s, target)
		if page.Total != total {
			t.Fatalf("%s: total %d, oracle %d", target, page.Total, total)
		}
		for _, st := range page.Results {
			id, err := format.ParseUUID(st.ID)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		target = ""
		if page.Next != nil {
			target = local(t, testBase, *page.Next)
		}
	}
	return ids
}

type walkPage struct {
	Total   int     `json:"total"`
	Next    *string `json:"next"`
	Results []struct {
		ID string `json:"id"`
	} `json:"results"`
}

func getPage(t *testing.T, s *Server, target string) walkPage {
	t.Helper()
	rec := serve(s, "GET", target)
	if rec.Code != 200 {
		t.Fatalf("GET %s: %d %s", target, rec.Code, rec.Body)
	}
	var page walkPage
	if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	return page
}

// reachable is how many of total results a walk of pages of limit sees:
// pages start at every multiple of limit up to offset 5000.
func reachable(total, limit int) int {
	return min(total, (5000/limit)*limit+limit)
}

func firstDifference(a, b []format.UUID) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

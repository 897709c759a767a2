package core

import (
	"bytes"
	"testing"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
)

// spliceBases are base URLs a server may splice into stored stations: the
// indexer's default, a path prefix, characters a JSON string escapes
// (& < > " \), non-ASCII and U+2028.
var spliceBases = []string{
	"http://127.0.0.1:8080", "https://radio.example.org/dex", "https://a.example/x&y<z>/\"q\"\\",
	"https://b.example/ü/\u2028",
}

// TestStationJSONIsAppendJSONDemo: for every demo station, the stored JSON
// that the API sends (StationJSON, and SearchJSON over every page of every
// demo benchmark search) with any base URL spliced in is byte for byte
// what AppendJSON gives for the decoded record under that base URL.
func TestStationJSONIsAppendJSONDemo(t *testing.T) {
	ix, err := demoBenchIndex()
	if err != nil {
		t.Fatal(err)
	}
	if n := requireStoredJSONEveryStation(t, ix); n < 40 {
		t.Fatalf("only %d demo stations", n)
	}
	for _, tt := range demoBenchQueries {
		q := tt.q
		q.Facets, q.Suggest = 0, true
		for q.Offset = 0; ; q.Offset += q.Limit {
			if !requireSearchJSON(t, ix, q) {
				break
			}
		}
	}
}

// TestStationJSONIsAppendJSONReal is the same on the real snapshot: every
// station, and the first pages of a few searches.
func TestStationJSONIsAppendJSONReal(t *testing.T) {
	ix, _ := realIndex(t)
	n := requireStoredJSONEveryStation(t, ix)
	if n != ix.Meta().Stations {
		t.Fatalf("%d stations checked of %d", n, ix.Meta().Stations)
	}
	t.Logf("%d stations, %d base URLs each", n, len(spliceBases))
	for _, q := range []Query{
		{Limit: 50}, {Limit: 50, Offset: 5000}, {Q: "radio", Limit: 50, Offset: 100},
		{Q: "jazz", Filter: filters("us", "", ""), Limit: 50}, {Filter: filters("", "", "pop"), Limit: 37, Offset: 3},
		{Q: "北京", Limit: 50}, {Q: "zzzzqx", Limit: 10},
	} {
		requireSearchJSON(t, ix, q)
	}
}

// requireStoredJSONEveryStation walks the stations bucket, decodes every
// record and compares StationJSON of its id with AppendJSON; it returns
// the number of stations.
func requireStoredJSONEveryStation(t *testing.T, ix *Index) int {
	t.Helper()
	var recs []format.Record
	err := ix.View(func(tx *bolt.Tx) error {
		return tx.Bucket(format.BucketStations).ForEach(func(_, block []byte) error {
			n, err := format.BlockLen(block)
			if err != nil {
				return err
			}
			for slot := range n {
				v, err := format.BlockRecord(block, slot)
				if err != nil {
					return err
				}
				var r format.Record
				if _, err := format.DecodeOwned(bytes.Clone(v), &r, nil); err != nil {
					return err
				}
				recs = append(recs, r)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	var stored, got, want []byte
	for i := range recs {
		r := &recs[i]
		if stored, err = ix.StationJSON(r.ID, stored[:0]); err != nil {
			t.Fatalf("station %s: %v", r.ID, err)
		}
		for _, base := range spliceBases {
			got = stationjson.Splice(got[:0], stored, stationjson.EscapeBase(base))
			st := stationjson.New(base, r)
			want = st.AppendJSON(want[:0])
			if !bytes.Equal(got, want) {
				t.Fatalf("station %s, base %q:\nstored, spliced:\n%s\nAppendJSON:\n%s", r.ID, base, got, want)
			}
		}
	}
	return len(recs)
}

// requireSearchJSON compares SearchJSON's page, spliced, with Search's
// records encoded, and the rest of both results; it reports whether the
// page had stations.
func requireSearchJSON(t *testing.T, ix *Index, q Query) bool {
	t.Helper()
	res, err := search(ix, q)
	if err != nil {
		t.Fatal(err)
	}
	jres, stored, err := searchJSON(ix, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	if jres.Stations != nil || jres.Total != res.Total || len(jres.Suggestions) != len(res.Suggestions) {
		t.Fatalf("%+v: SearchJSON total %d, %d records, %d suggestions; Search total %d, %d suggestions",
			q, jres.Total, len(jres.Stations), len(jres.Suggestions), res.Total, len(res.Suggestions))
	}
	for _, base := range spliceBases {
		var want []byte
		for i := range res.Stations {
			if i > 0 {
				want = append(want, ',')
			}
			st := stationjson.New(base, &res.Stations[i])
			want = st.AppendJSON(want)
		}
		if got := stationjson.Splice(nil, stored, stationjson.EscapeBase(base)); !bytes.Equal(got, want) {
			t.Fatalf("%+v, base %q:\nSearchJSON, spliced:\n%s\nSearch, encoded:\n%s", q, base, got, want)
		}
	}
	return len(res.Stations) > 0
}

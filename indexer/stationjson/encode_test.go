package stationjson_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"stationdex/indexer"
	"stationdex/indexer/demo"
	"stationdex/indexer/format"
	"stationdex/indexer/stationjson"
)

// TestAppendJSON: every demo station (markup, control characters, bidi
// controls, 990-character tags, absent optional fields) encodes to exactly
// the bytes encoding/json gives.
func TestAppendJSON(t *testing.T) {
	n := 0
	_, err := indexer.ReadRecords(t.Context(), func(r *format.Record) error {
		st := stationjson.New("https://radio.example/dex", r)
		requireSameJSON(t, &st)
		n++
		return nil
	}, indexer.Input{Name: "demo", R: bytes.NewReader(demo.NDJSON)})
	if err != nil || n < 40 {
		t.Fatalf("%d demo stations checked, err %v", n, err)
	}
}

func requireSameJSON(t *testing.T, st *stationjson.Station) {
	t.Helper()
	want, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.AppendJSON(nil); !bytes.Equal(got, want) {
		t.Fatalf("AppendJSON:\n%s\nencoding/json:\n%s", got, want)
	}
}

// FuzzAppendJSON: any text, valid UTF-8 or not, in any string field
// encodes as encoding/json encodes it.
func FuzzAppendJSON(f *testing.F) {
	for _, s := range []string{"", "plain", "<script>&amp;</script>", "\x00\x1f\x7f\"\\", "\u2028\u2029", "\xff\xfe", "Ö3 北京 \u202e"} {
		f.Add(s, uint32(128), int32(52520008), int32(-13404954))
	}
	f.Fuzz(func(t *testing.T, s string, kbps uint32, lat, lon int32) {
		var bitrate *uint32
		if kbps != 0 {
			bitrate = &kbps
		}
		st := stationjson.Station{ID: s, Name: s, Location: s, Languages: []string{s, s}, Genres: []string{},
			BitrateKbps: bitrate, OfficialURL: stationjson.Nullable(s), CountryURL: s, PageTitle: s}
		requireSameJSON(t, &st)
		if g, ok := format.GeoFromDegrees(float64(lat)/1e6, float64(lon)/1e6); ok {
			r := format.Record{Name: s, Geo: g}
			st = stationjson.New("https://radio.example", &r)
			requireSameJSON(t, &st)
		}
	})
}

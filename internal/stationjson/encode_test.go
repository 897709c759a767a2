package stationjson_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"stationdex/indexer"
	"stationdex/indexer/demo"
	"stationdex/internal/format"
	"stationdex/internal/stationjson"
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

// TestStoredJSON: every demo station's stored form, with any of several
// base URLs spliced in (characters JSON escapes, a path, non-ASCII),
// gives the bytes AppendJSON gives for the station under that base URL.
func TestStoredJSON(t *testing.T) {
	n := 0
	_, err := indexer.ReadRecords(t.Context(), func(r *format.Record) error {
		for _, base := range testBases {
			requireSplicedJSON(t, r, base)
		}
		n++
		return nil
	}, indexer.Input{Name: "demo", R: bytes.NewReader(demo.NDJSON)})
	if err != nil || n < 40 {
		t.Fatalf("%d demo stations checked, err %v", n, err)
	}
}

var testBases = []string{
	"http://127.0.0.1:8080", "https://radio.example/dex", "https://a.example/x&y<z>/\"q\"",
	"https://b.example/ü/\u2028", "",
}

func requireSplicedJSON(t *testing.T, r *format.Record, base string) {
	t.Helper()
	st := stationjson.New(base, r)
	want := st.AppendJSON(nil)
	stored := stationjson.AppendStored(nil, r)
	if got := stationjson.Splice(nil, stored, stationjson.EscapeBase(base)); !bytes.Equal(got, want) {
		t.Fatalf("base %q: stored and spliced:\n%s\nAppendJSON:\n%s", base, got, want)
	}
	if !json.Valid(bytes.ReplaceAll(stored, []byte{format.BaseURLMark}, nil)) {
		t.Fatalf("stored form without its marks is not JSON: %q", stored)
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
		// The stored form with s as the base URL spliced in: every URL
		// field present, s anywhere in the text, the mark byte included.
		r := format.Record{Name: s, CountryCode: "DE", Location: s + "x", Languages: []string{s, "de"}, Genres: []string{"jazz", s}}
		requireSplicedJSON(t, &r, s)
	})
}

// storedDigest pins what AppendStored writes for the demo snapshot to the
// format version: indexes store these bytes and servers send them as they
// are, so a change to them needs a new format.Version (else a server would
// send the old shape from an older file of the same version). When this
// fails on purpose, bump format.Version and set both values here.
const (
	storedDigestVersion = 19
	storedDigest        = "b33da0581578d390e3a7a51a7a098e3cc6310518df50bf99cf8c28f5a85aab82"
)

func TestStoredJSONPinnedToFormatVersion(t *testing.T) {
	h := sha256.New()
	var buf []byte
	_, err := indexer.ReadRecords(t.Context(), func(r *format.Record) error {
		buf = stationjson.AppendStored(buf[:0], r)
		h.Write(buf)
		return nil
	}, indexer.Input{Name: "demo", R: bytes.NewReader(demo.NDJSON)})
	if err != nil {
		t.Fatal(err)
	}
	got := hex.EncodeToString(h.Sum(nil))
	if got != storedDigest || format.Version != storedDigestVersion {
		t.Fatalf("stored JSON of the demo stations: digest %s under format %d, pinned %q under format %d: "+
			"if the JSON changed, bump format.Version and pin the new digest with it", got, format.Version, storedDigest, storedDigestVersion)
	}
}

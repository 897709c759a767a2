package server

import (
	"encoding/json"
	"strings"
	"testing"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
)

func mustUUID(t *testing.T, s string) format.UUID {
	t.Helper()
	id, err := format.ParseUUID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestStationSparseRecord: a record with nothing but the required fields
// renders nulls and empty lists where the spec says so, never a missing
// required field.
func TestStationSparseRecord(t *testing.T) {
	rec := format.Record{ID: mustUUID(t, "3E6B23EA-80DC-45BB-A3B9-8E9B3F7687C4"), Name: "Bare"}
	got, err := json.Marshal(stationjson.New("https://x.example", &rec))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"3e6b23ea-80dc-45bb-a3b9-8e9b3f7687c4","name":"Bare",` +
		`"page_url":"https://x.example/stations/3e6b23ea-80dc-45bb-a3b9-8e9b3f7687c4/",` +
		`"listen_url":"https://x.example/stations/3e6b23ea-80dc-45bb-a3b9-8e9b3f7687c4/listen/",` +
		`"country":"","country_code":"","languages":[],"genres":[],"bitrate_kbps":null,"codec":null,"geo":null,"official_url":null,` +
		`"language_codes":[],"language_urls":[],"genre_urls":[],"location_url":null,` +
		`"page_title":"Bare — radio station | stationdex"}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestStationFullRecord(t *testing.T) {
	rec := format.Record{
		ID: mustUUID(t, "cbbf6759-8124-405d-a884-3bd8732946bd"), Name: "Rádio <Comercial>",
		CountryCode: "PT", Country: "Portugal", Location: "Lisboa / Centro",
		Languages: []string{"Portuguese", " \u200b "}, LanguageCodes: []string{"pt"},
		Genres: []string{"80's", "R&B/Soul", "..", "100%"}, BitrateKbps: 128,
		OfficialURL: "https://comercial.example.pt/",
	}
	s := stationjson.New("https://x.example/dex", &rec)
	check := func(what, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %q, want %q", what, got, want)
		}
	}
	check("country_url", s.CountryURL, "https://x.example/dex/countries/pt/")
	check("location_url", *s.LocationURL, "https://x.example/dex/locations/lisboa%20%2F%20centro/")
	check("language_urls", strings.Join(s.LanguageURLs, " "), "https://x.example/dex/languages/portuguese/")
	check("genre_urls", strings.Join(s.GenreURLs, " "),
		"https://x.example/dex/genres/80s/ https://x.example/dex/genres/r&b%2Fsoul/ https://x.example/dex/genres/100%25/")
	check("official_url", *s.OfficialURL, "https://comercial.example.pt/")
	check("page_title", s.PageTitle, "Rádio <Comercial> — Portugal | stationdex")
	if s.BitrateKbps == nil || *s.BitrateKbps != 128 {
		t.Errorf("bitrate %v", s.BitrateKbps)
	}
}

// TestStationInvalidUTF8: bytes that are not UTF-8 never reach the output.
func TestStationInvalidUTF8(t *testing.T) {
	rec := format.Record{Name: "bad \xff name", Genres: []string{"\xc3"}}
	out, err := json.Marshal(stationjson.New("https://x.example", &rec))
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(out) || strings.Contains(string(out), "\xff") {
		t.Errorf("output %q", out)
	}
}

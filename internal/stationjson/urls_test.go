package stationjson_test

import (
	"testing"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
)

// TestStationURLs: a station's addresses are its page under the base URL,
// with what lies under the page appended, whatever the base.
func TestStationURLs(t *testing.T) {
	id, err := format.ParseUUID("DB93A00F-9191-46ab-9ec9-000000000001")
	if err != nil {
		t.Fatal(err)
	}
	for _, base := range []string{"", "https://radio.example", "http://127.0.0.1:8080/dex"} {
		page := base + "/stations/db93a00f-9191-46ab-9ec9-000000000001/"
		for _, c := range []struct{ got, want string }{
			{stationjson.StationURL(base, id), page},
			{stationjson.ListenURL(base, id), page + "listen/"},
			{stationjson.StationFileURL(base, id, ""), page},
			{stationjson.StationFileURL(base, id, "listen.m3u"), page + "listen.m3u"},
		} {
			if c.got != c.want {
				t.Errorf("base %q: %q, want %q", base, c.got, c.want)
			}
		}
	}
}

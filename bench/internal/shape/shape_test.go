package shape

import (
	"fmt"
	"testing"

	"stationdex/bench/internal/raw"
)

func station(i int, geo bool) raw.Station {
	lat, lon := 52.5, 13.4
	s := raw.Station{Name: fmt.Sprintf("Radio %d", i%7), CountryCode: []string{"de", "US"}[i%2], Language: "german,english", Tags: "pop,Rock", Codec: "MP3", Bitrate: 128}
	if geo {
		s.GeoLat, s.GeoLong = &lat, &lon
	}
	return s
}

func TestCompare(t *testing.T) {
	a, b, c := New(), New(), New()
	for i := range 1000 {
		s := station(i, i%5 == 0)
		a.Add(&s)
		b.Add(&s)
		s.GeoLat, s.Codec = nil, "UNKNOWN" // c: no positions, no codecs
		c.Add(&s)
	}
	if f := Failed(Compare(a, b, 10)); len(f) != 0 {
		t.Fatalf("a set against itself: %+v", f)
	}
	f := Failed(Compare(a, c, 10))
	if len(f) != 2 || f[0].What != "known codec" || f[1].What != "coordinates" {
		t.Fatalf("codecs and positions dropped, failed lines: %+v", f)
	}
	if a.Geo != 200 || a.Country["DE"] != 500 || a.Genre["rock"] != 1000 || a.Tokens["radio"] != 1000 {
		t.Errorf("counts: geo %d, DE %d, rock %d, radio %d", a.Geo, a.Country["DE"], a.Genre["rock"], a.Tokens["radio"])
	}
	zero := 0.0
	s := station(1, false)
	s.GeoLat, s.GeoLong = &zero, &zero
	d := New()
	d.Add(&s)
	if d.Geo != 0 {
		t.Error("(0, 0) counted as a position")
	}
}

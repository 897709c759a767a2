package server

import (
	"math"
	"net/url"
	"reflect"
	"slices"
	"testing"

	"stationdex/internal/format"
	"stationdex/query"
	"stationdex/server/params"
)

// FuzzFilterParams fuzzes the values of the filter and facet parameters one by
// one (FuzzSearchParams mutates whole query strings, which rarely reach a
// well-formed near or codec list). Whatever the values, the parser either
// refuses them with a 400 or returns filters that keep every rule the
// engine relies on, and whose canonical form reads back the same.
//
//	go test ./server -run '^$' -fuzz FuzzFilterParams -fuzztime 30s
func FuzzFilterParams(f *testing.F) {
	for _, s := range []struct{ codec, bmin, bmax, near, radius, facets, limit string }{
		{"mp3,aac", "64", "320", "52.52,13.405", "25", "country,language,genre", "10"},
		{"AAC%2B", "", "", "-33.87,151.21", "", "genre", ""},
		{"aac+", "0", "10001", "90.0000000000000001,180", "0.1", "genre,genre", "51"},
		{"MP3,mp3", "128", "64", "-0,-0", "20000.0", "country,", "0"},
		{"", "1", "10000", "1e3,5", "-5", "Country", "01"},
		{"opus,flac,ogg", "", "", ",", "0.09", "", ""},
		{"mp3", "", "", "10,10", "0.05", "", ""},
		{"flac", "", "", "-90.5,0", "", "language", "50"},
	} {
		f.Add(s.codec, s.bmin, s.bmax, s.near, s.radius, s.facets, s.limit)
	}
	f.Fuzz(func(t *testing.T, codec, bmin, bmax, near, radius, facets, limit string) {
		v := url.Values{}
		for name, value := range map[string]string{
			"codec": codec, "bitrate_min": bmin, "bitrate_max": bmax, "near": near,
			"radius_km": radius, "facets": facets, "facet_limit": limit,
		} {
			if value != "" {
				v.Set(name, value)
			}
		}
		raw := v.Encode()
		p, err := params.ParseSearchParams(raw)
		if err != nil {
			checkParamError(t, raw, err)
			return
		}
		checkFilters(t, raw, p)
		back, err := params.ParseSearchParams(p.CanonicalQuery())
		if err != nil || !reflect.DeepEqual(back, p) {
			t.Fatalf("%q: canonical %q parses to %+v, %v; want %+v", raw, p.CanonicalQuery(), back, err, p)
		}
	})
}

// checkFilters holds the rules parsed filters keep.
func checkFilters(t *testing.T, raw string, d params.SearchParams) {
	t.Helper()
	codecs := d.Filter[query.DimCodec]
	for i, c := range codecs {
		if !slices.Contains(format.Codecs, c) || i > 0 && slices.Index(format.Codecs, codecs[i-1]) >= slices.Index(format.Codecs, c) {
			t.Fatalf("%q: codecs %q not distinct known codecs in canonical order", raw, codecs)
		}
	}
	for _, b := range [...]int{d.BitrateMin, d.BitrateMax} {
		if b < 0 || b > params.MaxBitrate {
			t.Fatalf("%q: bitrate bound %d", raw, b)
		}
	}
	if d.BitrateMin > 0 && d.BitrateMax > 0 && d.BitrateMin > d.BitrateMax {
		t.Fatalf("%q: bitrate_min %d above bitrate_max %d", raw, d.BitrateMin, d.BitrateMax)
	}
	switch {
	case d.Near == nil && d.RadiusKm != 0:
		t.Fatalf("%q: radius %v without near", raw, d.RadiusKm)
	case d.Near != nil && !inRange(d.Near.Lat, -90, 90):
		t.Fatalf("%q: latitude %v", raw, d.Near.Lat)
	case d.Near != nil && !inRange(d.Near.Lon, -180, 180):
		t.Fatalf("%q: longitude %v", raw, d.Near.Lon)
	case d.Near != nil && !inRange(d.RadiusKm, params.MinRadiusKm, params.MaxRadiusKm):
		t.Fatalf("%q: radius %v", raw, d.RadiusKm)
	}
	if d.Facets.Any() != (d.FacetLimit != 0) || d.FacetLimit < 0 || d.FacetLimit > query.MaxFacetLimit {
		t.Fatalf("%q: facets %+v with facet_limit %d", raw, d.Facets, d.FacetLimit)
	}
}

func inRange(f, lo, hi float64) bool { return !math.IsNaN(f) && f >= lo && f <= hi }

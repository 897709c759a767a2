package pageparts

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"stationdex/internal/format"
	"stationdex/query/core"
	"stationdex/query/internal/testindex"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testindex.Cleanup()
	os.Exit(code)
}

func openIndex(tb testing.TB, path string) *core.Index {
	tb.Helper()
	ix, err := core.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = ix.Close() })
	return ix
}

// sameNearby fails unless the stored nearest stations of rec are the
// search's, station for station and distance for distance (to the bit),
// for one station and for a page's.
func sameNearby(t *testing.T, ix *core.Index, rec *format.Record) {
	t.Helper()
	for _, k := range []int{1, format.NearbyPerStation} {
		stored, err := Nearby(ix, rec, k)
		if err != nil {
			t.Fatal(err)
		}
		searched, err := ix.Nearby(rec, k)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := nearText(stored), nearText(searched); got != want {
			t.Fatalf("station %s (%q), k %d: stored %s, the search finds %s", rec.ID, rec.Name, k, got, want)
		}
	}
}

func nearText(ns []core.NearStation) string {
	var b strings.Builder
	for _, n := range ns {
		fmt.Fprintf(&b, "[%s %q %b] ", n.Station.ID, n.Station.Name, n.DistanceKm)
	}
	return b.String()
}

// TestNearbyIsTheSearchOnRealData: on the real snapshot (the committed
// sample without it), every station's stored nearest stations are what
// the search around it finds (query/core's Nearby), the oracle of the
// page's block: every station with coordinates.
func TestNearbyIsTheSearchOnRealData(t *testing.T) {
	path, recs, _ := testindex.Real(t)
	ix := openIndex(t, path)
	var geo []format.UUID
	for i := range recs {
		if recs[i].Geo.Known {
			geo = append(geo, recs[i].ID)
		}
	}
	if len(geo) < 100 {
		t.Fatalf("%d stations with coordinates in the snapshot", len(geo))
	}
	start := time.Now()
	for _, id := range geo {
		rec, err := ix.Station(id)
		if err != nil {
			t.Fatal(err)
		}
		sameNearby(t, ix, &rec)
	}
	t.Logf("%d stations with coordinates compared in %v", len(geo), time.Since(start))
}

// TestNearbyTiesAndStrays: stations that share one position (more than
// a page lists), ties in distance, stations without coordinates and a
// lone station far from the others read what the search finds.
func TestNearbyTiesAndStrays(t *testing.T) {
	var text strings.Builder
	add := func(n int, lat, lon any) {
		rec := map[string]any{
			"stationuuid": testindex.Station{N: n}.UUID().String(), "name": fmt.Sprintf("Station %03d", n),
			"url": fmt.Sprintf("https://stream.example.org/%d", n), "lastchecktime": "2025-01-01 00:00:00",
			"geo_lat": lat, "geo_long": lon,
		}
		b, _ := json.Marshal(rec)
		text.Write(append(b, '\n'))
	}
	for n := range 9 {
		add(n, 48.2082, 16.3738) // one position, nine stations
	}
	add(20, 48.2082, 16.3838) // east and west of it, at one distance
	add(21, 48.2082, 16.3638)
	add(22, nil, nil) // no coordinates
	add(23, -45.0, 170.0)
	ix := openIndex(t, testindex.Build(t, text.String()))
	var with int
	for _, n := range []int{0, 4, 8, 20, 21, 22, 23} {
		rec, err := ix.Station(testindex.Station{N: n}.UUID())
		if err != nil {
			t.Fatal(err)
		}
		sameNearby(t, ix, &rec)
		near, err := Nearby(ix, &rec, format.NearbyPerStation)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Geo.Known {
			with++
			if len(near) != format.NearbyPerStation {
				t.Errorf("station %d: %d nearby stations, want %d", n, len(near), format.NearbyPerStation)
			}
		} else if near != nil {
			t.Errorf("station %d without coordinates: %d nearby stations", n, len(near))
		}
	}
	if with != 6 {
		t.Fatalf("%d stations with coordinates read, want 6", with)
	}
}

// BenchmarkNearby reads the nearest stations of the real snapshot's
// stations with coordinates as a station page does (stored) and as it
// did before the nearby bucket (searched: query/core's Nearby).
//
//	go test ./query/pageparts -run '^$' -bench Nearby -benchmem -count 6 | benchstat -col /way
func BenchmarkNearby(b *testing.B) {
	path, recs, _ := testindex.Real(b)
	ix := openIndex(b, path)
	var geo []format.Record
	for i := range recs {
		if recs[i].Geo.Known && len(geo) < 2000 {
			rec, err := ix.Station(recs[i].ID)
			if err != nil {
				b.Fatal(err)
			}
			geo = append(geo, rec)
		}
	}
	for _, way := range []struct {
		name   string
		nearby func(*format.Record, int) ([]core.NearStation, error)
	}{
		{"stored", func(r *format.Record, k int) ([]core.NearStation, error) { return Nearby(ix, r, k) }},
		{"searched", ix.Nearby},
	} {
		b.Run("way="+way.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := way.nearby(&geo[i%len(geo)], format.NearbyPerStation); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

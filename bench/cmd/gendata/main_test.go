package main

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"stationdex/bench/internal/raw"
	"stationdex/bench/internal/shape"
	"stationdex/indexer"
	"stationdex/indexer/realdata"
	"stationdex/internal/format"
)

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestUUIDDeterministicAndDistinct(t *testing.T) {
	seen := map[string]bool{}
	for k := 0; k < 1000; k++ {
		a, b := uuid(1, k, "station"), uuid(1, k, "change")
		if a != uuid(1, k, "station") {
			t.Fatal("not deterministic")
		}
		if !uuidRE.MatchString(a) || !uuidRE.MatchString(b) {
			t.Fatalf("not a canonical v4 UUID: %s %s", a, b)
		}
		if seen[a] || seen[b] || a == b {
			t.Fatalf("collision at %d", k)
		}
		seen[a], seen[b] = true, true
	}
	if uuid(1, 5, "station") == uuid(2, 5, "station") {
		t.Error("seed does not change ids")
	}
}

func TestNewNameDeterministic(t *testing.T) {
	tpl := &template{name: []string{"Radio", "Jazz", "Berlin"}}
	pool := []string{"Welle", "Kultur", "FM", "Klassik"}
	a := newName(rand.New(rand.NewPCG(1, 2)), tpl, pool)
	b := newName(rand.New(rand.NewPCG(1, 2)), tpl, pool)
	if a != b || a == "" {
		t.Fatalf("newName: %q vs %q", a, b)
	}
}

// TestGeneratedKeepsRealDistributions generates 60,000 stations beyond the
// snapshot and compares them with it: known codec, bitrate and coordinate
// shares, the top countries, languages and genres, and the top name words
// (shape.Compare, within its tolerances). It also reads the generated
// stations with the indexer's own reader, which must see their codecs,
// bitrates and positions.
func TestGeneratedKeepsRealDistributions(t *testing.T) {
	path, out, real := writeGenerated(t, extra)
	realP, err := shape.OfFile(path, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	genP, err := shape.OfFile(out, real, 0)
	if err != nil {
		t.Fatal(err)
	}
	if genP.Stations != extra {
		t.Fatalf("%d generated stations, want %d", genP.Stations, extra)
	}
	for _, l := range shape.Compare(realP, genP, 10) {
		t.Logf("%s: %.2f%% real, %.2f%% generated", l.What, l.Real, l.Generated)
		if !l.OK {
			t.Errorf("%s: %.2f%% real, %.2f%% generated (tolerance %.1f points)", l.What, l.Real, l.Generated, l.Tolerance)
		}
	}
	var n, codec, bitrate, geo int
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = indexer.ReadRecords(context.Background(), func(r *format.Record) error {
		n++
		if r.Codec != "" {
			codec++
		}
		if r.BitrateKbps > 0 {
			bitrate++
		}
		if r.Geo.Known {
			geo++
		}
		return nil
	}, indexer.Input{Name: out, R: f})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what      string
		got, want float64
	}{{"codec", float64(codec) / float64(n), 0.96}, {"bitrate", float64(bitrate) / float64(n), 0.79}, {"coordinates", float64(geo) / float64(n), 0.16}} {
		if c.got < c.want-0.02 || c.got > c.want+0.02 {
			t.Errorf("the indexer reads %s on %.1f%% of %d generated-set records, want about %.0f%%", c.what, 100*c.got, n, 100*c.want)
		}
	}
}

func TestJitter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tpl := range []template{{geo: true, lat: 52.52, lon: 13.405}, {geo: true, lat: 89.99, lon: 179.99}, {geo: true, lat: -33.9, lon: -180}} {
		moved := 0
		for range 1000 {
			lat, lon := jitter(rng, &tpl)
			if lat < -90 || lat > 90 || lon < -180 || lon > 180 {
				t.Fatalf("%+v: jittered out of range to %v,%v", tpl, lat, lon)
			}
			if math.Abs(lat-tpl.lat) > 0.046 {
				t.Fatalf("%+v: latitude moved to %v", tpl, lat)
			}
			if lat != tpl.lat || lon != tpl.lon {
				moved++
			}
		}
		if moved < 990 {
			t.Errorf("%+v: only %d of 1000 copies moved", tpl, moved)
		}
	}
	if lat, lon := jitter(rng, &template{}); lat != 0 || lon != 0 {
		t.Error("a template without a position got one")
	}
}

// extra is how many stations the generated-set tests write past the
// snapshot's.
const extra = 40_000

// writeGenerated writes the snapshot and n generated stations after it (seed
// 1) to a temporary file: the snapshot's path, the file's, and how many
// of its lines are the snapshot's.
func writeGenerated(t *testing.T, n int) (snapshot, out string, real int) {
	t.Helper()
	snapshot = realdata.Need(t)
	lines, tpls, err := load(snapshot)
	if err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(t.TempDir(), "gen.ndjson")
	if err := write(out, len(lines)+n, 1, lines, tpls); err != nil {
		t.Fatal(err)
	}
	return snapshot, out, len(lines)
}

// TestGeneratedSharesStreamsAsTheSnapshot holds the generated stations'
// share of entries whose stream address another entry has near the
// snapshot's: copies of one template have addresses of their own, and
// some stations are submitted again, so a 5M set groups its entries about
// as the directory does (not all of them, nor none).
func TestGeneratedSharesStreamsAsTheSnapshot(t *testing.T) {
	path, out, real := writeGenerated(t, extra)
	realShare, err := sharedStreamShare(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	genShare, err := sharedStreamShare(out, real)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("entries sharing a stream address: %.1f%% of the snapshot, %.1f%% of %d generated", 100*realShare, 100*genShare, extra)
	if genShare < realShare-0.06 || genShare > realShare+0.08 {
		t.Errorf("%.1f%% of generated entries share a stream address, the snapshot %.1f%%", 100*genShare, 100*realShare)
	}
}

// sharedStreamShare is the share of the stations after the first skip
// lines of path whose url another of them has, compared as written.
func sharedStreamShare(path string, skip int) (float64, error) {
	var urls []string
	line := 0
	err := raw.EachLine(path, func(b []byte) error {
		if line++; line <= skip {
			return nil
		}
		var s struct {
			URL string `json:"url"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		urls = append(urls, s.URL)
		return nil
	})
	count := map[string]int{}
	for _, u := range urls {
		count[u]++
	}
	shared := 0
	for _, u := range urls {
		if count[u] > 1 {
			shared++
		}
	}
	return float64(shared) / float64(max(len(urls), 1)), err
}

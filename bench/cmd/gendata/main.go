// Command gendata writes a deterministic data set of n stations in Radio
// Browser NDJSON format (so `stationdex index` reads it) from the real
// snapshot.
//
// n > snapshot size: the snapshot's own stations come first, unchanged; every
// further station copies a template drawn uniformly from the snapshot (so
// countries, languages, tags and their correlations keep their
// distributions), gets new ids derived from a seeded hash of its number, a
// new name made by recombining real name words of the template's country,
// and stream and home addresses of its own (the template's with a host
// label added). Some are submitted again, as in the snapshot: a further
// station may repeat a recent one (name, addresses, position) under new
// ids, so about as many entries share a stream as in the snapshot.
// n <= snapshot size: a seeded uniform sample of the snapshot, unchanged.
//
// The same snapshot, n and seed give the same bytes.
//
//	go run ./cmd/gendata -n 1000000 -o work/data/stations-1m.ndjson
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"stationdex/indexer/realdata"
	"strconv"
	"strings"

	"stationdex/bench/internal/raw"
)

// template is one real station: its fields as raw JSON, keys sorted.
type template struct {
	keys   []string
	vals   []json.RawMessage
	name   []string // words of the cleaned name
	cc     string
	offset int // index of the station's own line in the snapshot
	// geo: the template has a usable position (both coordinates, in
	// range, not the source's (0, 0) for unknown).
	geo      bool
	lat, lon float64
}

func main() {
	data := flag.String("data", realdata.Path(), "real snapshot (default: ../shared/data beside the repository, or $"+realdata.EnvPath+")")
	n := flag.Int("n", 1000000, "stations to write")
	out := flag.String("o", "", "output NDJSON file (required)")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *out == "" || *n < 1 {
		log.Fatal("gendata: -o and -n >= 1 are required")
	}
	if _, err := os.Stat(*data); err != nil {
		// the default is found from the working directory: a binary run
		// outside the checkout finds no snapshot there
		log.Fatalf("gendata: no snapshot to draw from (%v): pass -data FILE, or run inside the checkout", err)
	}
	lines, tpls, err := load(*data)
	if err != nil {
		log.Fatal(err)
	}
	if err := write(*out, *n, *seed, lines, tpls); err != nil {
		log.Fatal(err)
	}
}

func load(path string) ([][]byte, []template, error) {
	var lines [][]byte
	var tpls []template
	err := raw.EachLine(path, func(line []byte) error {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			return fmt.Errorf("line %d: %w", len(lines)+1, err)
		}
		var s raw.Station
		if err := json.Unmarshal(line, &s); err != nil {
			return fmt.Errorf("line %d: %w", len(lines)+1, err)
		}
		t := template{cc: strings.ToUpper(s.CountryCode), name: strings.Fields(raw.CleanName(s.Name)), offset: len(lines)}
		if s.GeoLat != nil && s.GeoLong != nil && math.Abs(*s.GeoLat) <= 90 && math.Abs(*s.GeoLong) <= 180 && (*s.GeoLat != 0 || *s.GeoLong != 0) {
			t.geo, t.lat, t.lon = true, *s.GeoLat, *s.GeoLong
		}
		for k := range m {
			t.keys = append(t.keys, k)
		}
		sort.Strings(t.keys)
		for _, k := range t.keys {
			t.vals = append(t.vals, m[k])
		}
		lines = append(lines, slices.Clone(line))
		tpls = append(tpls, t)
		return nil
	})
	return lines, tpls, err
}

// pools maps a country code to every name word of its stations (with
// repetition, so frequent words stay frequent).
func pools(tpls []template) map[string][]string {
	p := map[string][]string{}
	for _, t := range tpls {
		p[t.cc] = append(p[t.cc], t.name...)
	}
	return p
}

func write(path string, n int, seed uint64, lines [][]byte, tpls []template) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 4<<20)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	if n <= len(lines) {
		for _, i := range sample(rng, len(lines), n) {
			w.Write(lines[i])
			w.WriteByte('\n')
		}
	} else {
		for _, l := range lines {
			w.Write(l)
			w.WriteByte('\n')
		}
		words := pools(tpls)
		var buf []byte
		var recent [recentStations]generated
		for k := len(lines); k < n; k++ {
			g := &recent[k%recentStations]
			if done := k - len(lines); done > 0 && rng.Float64() < resubmitted {
				*g = recent[(k-1-rng.IntN(min(done, recentStations)))%recentStations]
			} else {
				t := rng.IntN(len(tpls))
				g.tpl, g.own = t, k
				g.name = newName(rng, &tpls[t], words[tpls[t].cc])
				g.lat, g.lon = jitter(rng, &tpls[t])
			}
			buf = appendStation(buf[:0], &tpls[g.tpl], g, seed, k)
			w.Write(buf)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// generated is what a generated station repeats when it is submitted
// again: its template, name, position and the number its addresses carry.
type generated struct {
	tpl, own int
	name     string
	lat, lon float64
}

// resubmitted is the share of generated stations that repeat one of the
// recentStations before them: each station is then repeated about 0.16
// times, and about a quarter of the generated entries share a stream
// with another (25.2% of 40,000 in TestGeneratedSharesStreamsAsTheSnapshot),
// as 22-27% of the snapshot's do (its README: 11,711 entries share a
// stream; groups of both relations hold 27%).
const (
	resubmitted    = 0.14
	recentStations = 4096
)

// sample returns k distinct indexes below n in ascending order.
func sample(rng *rand.Rand, n, k int) []int {
	idx := rng.Perm(n)[:k]
	sort.Ints(idx)
	return idx
}

// newName keeps the template's word count (sometimes one more) and replaces
// each word with even odds by a word of the same country's names.
func newName(rng *rand.Rand, t *template, pool []string) string {
	words := slices.Clone(t.name)
	if len(words) == 0 || rng.IntN(4) == 0 {
		words = append(words, pool[rng.IntN(len(pool))])
	}
	for i := range words {
		if rng.IntN(2) == 0 {
			words[i] = pool[rng.IntN(len(pool))]
		}
	}
	return strings.Join(words, " ")
}

// uuid derives a version-4-shaped UUID from the seed, the station number and
// a domain label, so ids are new, stable and distinct per field.
func uuid(seed uint64, k int, domain string) string {
	var in [16]byte
	binary.BigEndian.PutUint64(in[:8], seed)
	binary.BigEndian.PutUint64(in[8:], uint64(k))
	h := sha256.Sum256(append(in[:], domain...))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	var b [36]byte
	hex.Encode(b[0:8], h[0:4])
	hex.Encode(b[9:13], h[4:6])
	hex.Encode(b[14:18], h[6:8])
	hex.Encode(b[19:23], h[8:10])
	hex.Encode(b[24:36], h[10:16])
	b[8], b[13], b[18], b[23] = '-', '-', '-', '-'
	return string(b[:])
}

// jitter moves a template's position by up to about 5 km, so that copies
// of a station do not all sit on one point (which would make distance
// searches unrealistically clustered), staying in range.
func jitter(rng *rand.Rand, t *template) (lat, lon float64) {
	if !t.geo {
		return 0, 0
	}
	lat = min(max(t.lat+(rng.Float64()-0.5)*0.09, -89.999999), 89.999999)
	lon = t.lon + (rng.Float64()-0.5)*0.09/max(math.Cos(lat*math.Pi/180), 0.1)
	if lon > 180 {
		lon -= 360
	} else if lon < -180 {
		lon += 360
	}
	return math.Round(lat*1e6) / 1e6, math.Round(lon*1e6) / 1e6
}

// appendStation writes one generated station: the template's fields with
// new ids, the new name, the addresses made its own (appendOwnAddress) and,
// where the template has a position, the jittered one (geo_lat/geo_long as
// numbers, as the source sends them).
func appendStation(dst []byte, t *template, g *generated, seed uint64, k int) []byte {
	dst = append(dst, '{')
	for i, key := range t.keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, key...)
		dst = append(dst, '"', ':')
		switch key {
		case "stationuuid":
			dst = append(dst, '"')
			dst = append(dst, uuid(seed, k, "station")...)
			dst = append(dst, '"')
		case "changeuuid":
			dst = append(dst, '"')
			dst = append(dst, uuid(seed, k, "change")...)
			dst = append(dst, '"')
		case "name":
			q, _ := json.Marshal(g.name)
			dst = append(dst, q...)
		case "url", "url_resolved", "homepage":
			dst = appendOwnAddress(dst, t.vals[i], g.own)
		case "geo_lat", "geo_long":
			if !t.geo {
				dst = append(dst, t.vals[i]...)
			} else if key == "geo_lat" {
				dst = strconv.AppendFloat(dst, g.lat, 'f', -1, 64)
			} else {
				dst = strconv.AppendFloat(dst, g.lon, 'f', -1, 64)
			}
		default:
			dst = append(dst, t.vals[i]...)
		}
	}
	return append(dst, '}', '\n')
}

// appendOwnAddress appends the template's address (a JSON value) as the
// generated station's own: a host label g<own>- put before its host, so
// that copies of one template are not one stream. A value that is not a
// string with a scheme and host is copied as it is.
func appendOwnAddress(dst []byte, v json.RawMessage, own int) []byte {
	var a string
	if json.Unmarshal(v, &a) != nil {
		return append(dst, v...)
	}
	scheme, rest, ok := strings.Cut(a, "://")
	if !ok || rest == "" || strings.ContainsAny(rest[:1], "/?#[@") {
		return append(dst, v...)
	}
	q, _ := json.Marshal(scheme + "://g" + strconv.Itoa(own) + "-" + rest)
	return append(dst, q...)
}

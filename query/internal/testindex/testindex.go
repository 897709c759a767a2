// Package testindex builds the index files the engine's packages test on:
// hand-made sets of stations written as the upstream directory's NDJSON,
// and the real snapshot, indexed once per test binary. It imports the
// indexer, so only tests import it (internal: nothing outside query/ may).
//
// File map:
//   - testindex.go: stations, their NDJSON, building and
//     copying index files, the real snapshot
//   - race.go, norace.go: whether the race detector is built in
package testindex

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"stationdex/indexer"
	"stationdex/indexer/realdata"
	"stationdex/internal/fold"
	"stationdex/internal/format"
	qoracle "stationdex/oracle"
)

// Station is one Radio Browser record for hand-built test sets; only the
// fields the indexer reads are set.
type Station struct {
	N                             int // becomes the UUID's last digits
	Name, CC, Country, State      string
	Language, LanguageCodes, Tags string
}

// UUID is the station's id.
func (s Station) UUID() format.UUID {
	u, err := format.ParseUUID(fmt.Sprintf("00000000-0000-4000-8000-%012d", s.N))
	if err != nil {
		panic(err)
	}
	return u
}

// JSON is the station as the upstream directory sends it.
func (s Station) JSON() string {
	b, _ := json.Marshal(map[string]any{
		"stationuuid": s.UUID().String(), "name": s.Name,
		"countrycode": s.CC, "country": s.Country, "state": s.State,
		"language": s.Language, "languagecodes": s.LanguageCodes, "tags": s.Tags,
		"bitrate": 128, "homepage": "https://example.org/", "url": "https://stream.example.org/" + s.Name,
		"lastchecktime": "2025-01-01 00:00:00",
	})
	return string(b)
}

// Small is a hand-made directory where every tier and filter rule has
// a station that shows it.
var Small = []Station{
	{N: 1, Name: "Jazz", CC: "US", Country: "The United States Of America", Language: "english", Tags: "jazz"},
	{N: 2, Name: "Jazz FM", CC: "GB", Country: "The United Kingdom", Language: "english", Tags: "jazz,smooth"},
	{N: 3, Name: "Smooth Radio", CC: "GB", Country: "The United Kingdom", Language: "english", Tags: "Jazz,soul"},
	{N: 4, Name: "Radio Jazzy", CC: "FR", Country: "France", Language: "french", Tags: "lounge"},
	{N: 5, Name: "Antenne Bayern", CC: "DE", Country: "Germany", State: "Bayern", Language: "german", Tags: "pop,radio"},
	{N: 6, Name: "Rádio Comercial", CC: "PT", Country: "Portugal", Language: "portuguese", Tags: "pop"},
	{N: 7, Name: "Ö3", CC: "AT", Country: "Austria", Language: "deutsch", Tags: "pop,hits"},
	{N: 8, Name: "北京音乐广播", CC: "CN", Country: "China", Language: "chinese", Tags: "music"},
	{N: 9, Name: "- Jazz", CC: "US", Country: "The United States Of America", Language: "english", Tags: "blues"},
	{N: 10, Name: "jazz", CC: "CA", Country: "Canada", Language: "english,french", Tags: ""},
	{N: 11, Name: "Radio Bremen", CC: "DE", Country: "Germany", State: "Bremen", Language: "german", LanguageCodes: "de", Tags: "news"},
	{N: 12, Name: "NDR 2", CC: "DE", Country: "Germany", State: "Bremen", Language: "", LanguageCodes: "DE", Tags: "pop"},
	{N: 13, Name: "Radio", CC: "", Country: "", Language: "", Tags: ""},
	{N: 14, Name: "Радио Рекорд", CC: "RU", Country: "The Russian Federation", Language: "russian", Tags: "dance"},
}

// NDJSON is the stations one JSON object a line.
func NDJSON(stations []Station) string {
	var b strings.Builder
	for _, s := range stations {
		b.WriteString(s.JSON())
		b.WriteByte('\n')
	}
	return b.String()
}

// RBAPIInput is a hand-made snapshot for the Radio Browser API's read
// path: every field of the source's station object, hostile text (markup,
// control characters, U+2028, a quote), a URL over the indexer's bound,
// one broken station, one with extended info, two sharing a stream URL.
func RBAPIInput(t *testing.T) (text string, records []map[string]any) {
	t.Helper()
	for i, name := range []string{"Alpha <script>", "beta\t\"quoted\"\u2028", "Gamma", "Delta", "Épsilon"} {
		url := fmt.Sprintf("http://stream.example/%d", i)
		if i == 3 {
			url = "http://stream.example/1" // shared with beta
		}
		r := map[string]any{
			"changeuuid": fmt.Sprintf("10000000-0000-4000-8000-%012d", i), "stationuuid": fmt.Sprintf("00000000-0000-4000-8000-%012d", i),
			"serveruuid": nil, "name": name, "url": url, "url_resolved": url + "?resolved",
			"homepage": "https://home.example/" + strings.Repeat("x", 3000*(i%2)), "favicon": "https://home.example/i.png",
			"tags": "rock,Pop & <b>", "country": "The Netherlands", "countrycode": "nl", "iso_3166_2": "NL-NH",
			"state": " Noord ", "language": "dutch,english", "languagecodes": "nl,en", "votes": 10 * i,
			"lastchangetime": "2025-02-01 00:00:00", "lastchangetime_iso8601": "2025-02-01T00:00:00Z", "codec": "MP3",
			"bitrate": 128000, "hls": i % 2, "lastcheckok": 1 - i%2*(i/3), "lastchecktime": "2025-02-02 00:00:00",
			"lastchecktime_iso8601": nil, "lastcheckoktime": "", "lastcheckoktime_iso8601": "2025-02-02T00:00:00Z",
			"lastlocalchecktime": "2025-02-02 00:00:00", "lastlocalchecktime_iso8601": "2025-02-02T00:00:00Z",
			"clicktimestamp": "", "clicktimestamp_iso8601": nil, "clickcount": 1000 - i, "clicktrend": -i, "ssl_error": 0,
			"geo_lat": 52.5, "geo_long": 4.75, "geo_distance": nil, "has_extended_info": i == 2,
		}
		if i == 4 {
			r["geo_long"] = nil
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		text += string(b) + "\n"
		records = append(records, r)
	}
	return text, records
}

// Snapshot is the snapshot time of the indexes built here.
var Snapshot = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// Build writes an index of the NDJSON text, with the Radio Browser API's
// section, into a temporary file.
func Build(tb testing.TB, text string) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "test.idx")
	in := indexer.Input{Name: "test.ndjson", R: strings.NewReader(text)}
	if _, err := indexer.Build(context.Background(), path, indexer.Options{SnapshotAt: Snapshot, Sections: format.SectionRBAPI}, in); err != nil {
		tb.Fatalf("build test index: %v", err)
	}
	return path
}

// ReadRecords loads the cleaned records of the input the way the indexer
// reads them, for an oracle.
func ReadRecords(tb testing.TB, in indexer.Input) []format.Record {
	tb.Helper()
	var recs []format.Record
	_, err := indexer.ReadRecords(context.Background(), func(r *format.Record) error {
		recs = append(recs, *r)
		return nil
	}, in)
	if err != nil {
		tb.Fatalf("read records: %v", err)
	}
	return recs
}

// CopyFile copies src into a temporary file.
func CopyFile(t *testing.T, src string) string {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	dst := filepath.Join(t.TempDir(), "copy.idx")
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

// real is the real snapshot, indexed and read once per test binary.
var real struct {
	once  sync.Once
	dir   string
	path  string
	recs  []format.Record
	build time.Duration
	err   error
}

// Real is the path of the real snapshot's index (with the Radio Browser
// API's section), its records as the oracle reads them and how long the
// build took; it skips (fails under CI=true) when the snapshot is absent.
// The file stays until Cleanup.
func Real(tb testing.TB) (path string, recs []format.Record, build time.Duration) {
	tb.Helper()
	if Race {
		// Built with the race detector, indexing and scanning the real
		// snapshot takes minutes; these tests run without it (make
		// test-unit) and nothing in them is concurrent.
		tb.Skip("real-snapshot tests run without -race")
	}
	realdata.Need(tb)
	real.once.Do(loadReal)
	if real.err != nil {
		tb.Fatal(real.err)
	}
	return real.path, real.recs, real.build
}

func loadReal() {
	if real.dir, real.err = os.MkdirTemp("", "stationdex-testindex-"); real.err != nil {
		return
	}
	real.path = filepath.Join(real.dir, "real.idx")
	start := time.Now()
	if real.err = BuildReal(real.path); real.err != nil {
		return
	}
	real.build = time.Since(start)
	real.recs, real.err = qoracle.ReadRecords(realdata.Path())
}

// BuildReal indexes the real snapshot into path, with the Radio Browser
// API's section.
func BuildReal(path string) error {
	f, err := os.Open(realdata.Path())
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = indexer.Build(context.Background(), path, indexer.Options{Sections: format.SectionRBAPI}, indexer.Input{Name: realdata.FileName, R: f})
	return err
}

// Cleanup removes the real snapshot's index, if built; TestMain calls it.
func Cleanup() {
	if real.dir != "" {
		os.RemoveAll(real.dir)
	}
}

// SampledWords draws query words from the records themselves, every
// stride-th record: a whole name word, a 1-3 rune prefix of it, a genre
// word and a two-word name query.
func SampledWords(recs []format.Record, samples int) []string {
	var out []string
	stride := max(1, len(recs)/samples)
	for i := 0; i < len(recs); i += stride {
		r := &recs[i]
		toks := fold.Tokens(r.Name)
		if len(toks) == 0 {
			continue
		}
		out = append(out, toks[0], runePrefix(toks[len(toks)-1], 1+i%3))
		if len(toks) > 1 {
			out = append(out, toks[0]+" "+toks[1])
		}
		if len(r.Genres) > 0 {
			out = append(out, r.Genres[0])
		}
	}
	return out
}

func runePrefix(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// Typos derives misspelt queries from real words: a letter dropped,
// doubled, swapped with the next or replaced, and two-word queries with
// one word misspelt.
func Typos(words []string) []string {
	var out []string
	for i, w := range words {
		r := []rune(w)
		if len(r) < 4 {
			continue
		}
		p := 1 + i%(len(r)-2)
		switch i % 4 {
		case 0:
			out = append(out, string(slices.Delete(slices.Clone(r), p, p+1)))
		case 1:
			out = append(out, string(slices.Insert(slices.Clone(r), p, r[p])))
		case 2:
			s := slices.Clone(r)
			s[p], s[p+1] = s[p+1], s[p]
			out = append(out, string(s))
		default:
			s := slices.Clone(r)
			s[p] = 'q'
			out = append(out, string(s)+" radio")
		}
	}
	return append(out, "jazzz", "rdio", "clasical", "bbc rdio", "deutschlandfunc", "antene bayern", "zzzzzzzzq")
}

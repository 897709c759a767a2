// Package shape measures the distributions of a station data set that the
// engine's costs depend on (name words, countries, languages, genres, and
// how many stations have a known codec, a bitrate and a position), so the
// suite can show that a generated data set keeps the real snapshot's.
package shape

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"stationdex/bench/internal/raw"
	"stationdex/internal/fold"
)

// Profile counts what a data set has. Shares are of Stations.
type Profile struct {
	Stations int
	Codec    int // a codec the indexer keeps (MP3, AAC, AAC+, OGG, FLAC, OPUS)
	Bitrate  int // 1..10000 kbps
	Geo      int // both coordinates, in range, not (0, 0)
	Tokens   map[string]int
	Country  map[string]int
	Language map[string]int
	Genre    map[string]int
}

// New returns an empty profile.
func New() *Profile {
	return &Profile{Tokens: map[string]int{}, Country: map[string]int{}, Language: map[string]int{}, Genre: map[string]int{}}
}

var knownCodecs = map[string]bool{"MP3": true, "AAC": true, "AAC+": true, "OGG": true, "FLAC": true, "OPUS": true}

// Add counts one station (each name token, language and tag once).
func (p *Profile) Add(s *raw.Station) {
	p.Stations++
	codec, _, _ := strings.Cut(s.Codec, ",")
	if knownCodecs[strings.ToUpper(strings.TrimSpace(codec))] {
		p.Codec++
	}
	if s.Bitrate > 0 && s.Bitrate <= 10000 {
		p.Bitrate++
	}
	if s.GeoLat != nil && s.GeoLong != nil && math.Abs(*s.GeoLat) <= 90 && math.Abs(*s.GeoLong) <= 180 && (*s.GeoLat != 0 || *s.GeoLong != 0) {
		p.Geo++
	}
	countOnce(p.Tokens, fold.Tokens(s.Name))
	if cc := strings.ToUpper(strings.TrimSpace(s.CountryCode)); cc != "" {
		p.Country[cc]++
	}
	countOnce(p.Language, lower(raw.SplitList(s.Language)))
	countOnce(p.Genre, lower(raw.SplitList(s.Tags)))
}

func lower(v []string) []string {
	for i := range v {
		v[i] = strings.ToLower(v[i])
	}
	return v
}

func countOnce(m map[string]int, keys []string) {
	slices.Sort(keys)
	for i, k := range keys {
		if i == 0 || k != keys[i-1] {
			m[k]++
		}
	}
}

// Line is one compared share, in percent of the stations.
type Line struct {
	What      string  `json:"what"`
	Real      float64 `json:"real_pct"`
	Generated float64 `json:"generated_pct"`
	Tolerance float64 `json:"tolerance_pp"`
	OK        bool    `json:"ok"`
}

// Tolerances in percentage points: the field shares and facet values are
// copied from real templates, so only sampling noise separates them; name
// words are recombined within a country, which moves the most frequent
// ones a little.
const (
	FieldTolerance = 2.0
	FacetTolerance = 1.5
	TokenTolerance = 4.0
)

// Compare lines up gen against real: the three field shares, then the
// real set's top values of each facet and its top name words.
func Compare(real, gen *Profile, top int) []Line {
	pct := func(n, of int) float64 { return 100 * float64(n) / float64(max(of, 1)) }
	line := func(what string, r, g int, tol float64) Line {
		l := Line{What: what, Real: pct(r, real.Stations), Generated: pct(g, gen.Stations), Tolerance: tol}
		l.OK = math.Abs(l.Real-l.Generated) <= tol
		return l
	}
	out := []Line{
		line("known codec", real.Codec, gen.Codec, FieldTolerance),
		line("bitrate", real.Bitrate, gen.Bitrate, FieldTolerance),
		line("coordinates", real.Geo, gen.Geo, FieldTolerance),
	}
	for _, f := range []struct {
		name   string
		r, g   map[string]int
		n, tol float64
	}{
		{"country", real.Country, gen.Country, float64(top), FacetTolerance},
		{"language", real.Language, gen.Language, float64(top), FacetTolerance},
		{"genre", real.Genre, gen.Genre, float64(top), FacetTolerance},
		{"name word", real.Tokens, gen.Tokens, float64(2 * top), TokenTolerance},
	} {
		for _, k := range Top(f.r, int(f.n)) {
			out = append(out, line(fmt.Sprintf("%s %q", f.name, k), f.r[k], f.g[k], f.tol))
		}
	}
	return out
}

// Top returns the n most frequent keys, ties by key.
func Top(m map[string]int, n int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	return keys[:min(n, len(keys))]
}

// Failed lists the lines out of tolerance.
func Failed(lines []Line) []Line {
	var out []Line
	for _, l := range lines {
		if !l.OK {
			out = append(out, l)
		}
	}
	return out
}

// OfFile profiles the stations of an NDJSON dump after the first skip
// lines, at most limit of them (0: all).
func OfFile(path string, skip, limit int) (*Profile, error) {
	p := New()
	line := 0
	errStop := fmt.Errorf("enough")
	err := raw.EachLine(path, func(b []byte) error {
		line++
		if line <= skip {
			return nil
		}
		if limit > 0 && p.Stations >= limit {
			return errStop
		}
		var s raw.Station
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("%s line %d: %w", path, line, err)
		}
		p.Add(&s)
		return nil
	})
	if err != nil && err != errStop {
		return nil, err
	}
	return p, nil
}

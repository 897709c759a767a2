package traffic

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"stationdex/bench/internal/mix"
	"stationdex/bench/internal/raw"
	"stationdex/indexer/realdata"
	qoracle "stationdex/oracle"
)

var (
	realOnce sync.Once
	realSrc  *Source
	realErr  error
)

// real is the vocabulary of the real snapshot, read once for all tests.
func real(t *testing.T) *Source {
	t.Helper()
	path := realdata.Need(t)
	realOnce.Do(func() {
		var all []raw.Station
		if all, realErr = raw.ReadAll(path); realErr == nil {
			realSrc = NewSource(all)
		}
	})
	if realErr != nil {
		t.Fatal(realErr)
	}
	return realSrc
}

// tiny is a hand-made vocabulary, for tests that need no snapshot.
func tiny() *Source {
	var all []raw.Station
	words := []string{"Jazz", "Klassik", "Welle", "Rock", "Antenne", "Kultur", "Bayern", "Nord", "Sud", "Pop"}
	for i := range 200 {
		all = append(all, raw.Station{
			Name:        fmt.Sprintf("Radio %s %s", words[i%len(words)], words[(i/3)%len(words)]),
			CountryCode: []string{"DE", "AT", "FR", "US"}[i%4],
			Language:    []string{"german", "french", "english"}[i%3],
			Tags:        []string{"pop,rock", "jazz", "news,talk"}[i%3],
		})
	}
	return NewSource(all)
}

func TestColdDeterministic(t *testing.T) {
	src := tiny()
	a, err := Cold(src, 7, 300, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Cold(src, 7, 300, nil)
	if !slices.Equal(a, b) {
		t.Fatal("same seed, different searches")
	}
	c, _ := Cold(src, 8, 300, nil)
	if slices.Equal(a, c) {
		t.Fatal("another seed, the same searches")
	}
}

func TestColdTooFewFails(t *testing.T) {
	// Misspellings are endless, so the kinds that find stations are
	// what run out.
	if _, err := NewHot(tiny(), 1, 20_000, 10, 1.1); err == nil {
		t.Fatal("a tiny vocabulary gave 20,000 distinct searches")
	}
}

// TestColdReal: the real snapshot yields at least 30,000 distinct searches
// (paths), every kind represented near its weight, every parameter within
// the API's limits.
func TestColdReal(t *testing.T) {
	const n = coldRealN
	qs, err := coldReal(t)
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	kinds := map[string]int{}
	for _, q := range qs {
		paths[q.Path()] = true
		kinds[q.Class]++
		if q.Limit < 1 || q.Limit > 50 || q.Offset < 0 || q.Offset > 5000 || len([]rune(q.Q)) > 120 || q.Q+q.Country+q.Language+q.Genre == "" {
			t.Fatalf("%+v: outside the API's limits or empty", q)
		}
		if u, err := url.Parse(q.Path()); err != nil || u.Query().Get("q") != q.Q || u.Query().Get("genre") != q.Genre {
			t.Fatalf("%+v: path %s does not round-trip", q, q.Path())
		}
	}
	if len(paths) < 30_000 || len(paths) != n {
		t.Fatalf("%d distinct paths of %d searches, want %d (>= 30,000)", len(paths), len(qs), n)
	}
	for _, k := range ColdKinds {
		// Repeats are dropped, so kinds with a small vocabulary (single
		// words, prefixes) end below their weight: within half of it.
		// The sample's vocabulary is a fraction of the full snapshot's,
		// so there the small kinds fall further and the others take
		// their place: each kind is still drawn, in a measurable share.
		share := float64(kinds[k.Name]) / n * 100
		if !realdata.Full() && share < 1 {
			t.Errorf("kind %s: %.1f%% of the searches on the sample, want at least 1%%", k.Name, share)
		}
		if realdata.Full() && (share < float64(k.Weight)/2 || share > float64(k.Weight)*1.5) {
			t.Errorf("kind %s: %.1f%% of the searches, weight %d%%", k.Name, share, k.Weight)
		}
	}
}

// TestHotZipf: about 1,000 distinct searches; request counts by rank follow
// k^-s (slope of log count over log rank near -s over the top 100 ranks,
// rank 1 about 2^s times rank 2); the sequence is deterministic.
func TestHotZipf(t *testing.T) {
	const distinct, requests, s = 1000, 300_000, 1.1
	h, err := NewHot(real(t), 3, distinct, requests, s)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(Paths(h.Queries)); got != distinct {
		t.Fatalf("%d distinct searches, want %d", got, distinct)
	}
	uniq := map[string]bool{}
	for _, p := range Paths(h.Queries) {
		uniq[p] = true
	}
	if len(uniq) != distinct {
		t.Fatalf("%d distinct paths among %d searches", len(uniq), distinct)
	}
	count := make([]float64, distinct)
	for _, k := range h.Seq {
		count[k]++
	}
	seen := 0
	for _, c := range count {
		if c > 0 {
			seen++
		}
	}
	if seen < 950 {
		t.Errorf("only %d of %d searches requested in %d requests", seen, distinct, requests)
	}
	if r := count[0] / count[1]; math.Abs(r-math.Pow(2, s)) > 0.25 {
		t.Errorf("rank 1 / rank 2 = %.2f, want about %.2f", r, math.Pow(2, s))
	}
	if slope := logLogSlope(count[:100]); math.Abs(slope+s) > 0.08 {
		t.Errorf("log-log slope over the top 100 ranks %.3f, want about %.2f", slope, -s)
	}
	if top := sum(count[:10]) / requests; top < 0.3 || top > 0.5 {
		t.Errorf("top 10 searches take %.0f%% of requests; Zipf 1.1 over 1,000 gives about 40%%", top*100)
	}
	h2, _ := NewHot(real(t), 3, distinct, requests, s)
	if !slices.Equal(h.Seq, h2.Seq) || !slices.Equal(h.Queries, h2.Queries) {
		t.Error("same seed, different hot mix")
	}
	if _, err := NewHot(real(t), 3, distinct, 10, 1.0); err == nil {
		t.Error("s = 1 accepted (no Zipf law)")
	}
}

// TestSlopeDetectsUniform: the slope measure itself tells a flat law from Zipf.
func TestSlopeDetectsUniform(t *testing.T) {
	flat := make([]float64, 100)
	for i := range flat {
		flat[i] = 300
	}
	if s := logLogSlope(flat); math.Abs(s) > 1e-9 {
		t.Fatalf("flat counts: slope %v", s)
	}
	z := make([]float64, 100)
	for i := range z {
		z[i] = 1e6 * math.Pow(float64(i+1), -1.1)
	}
	if s := logLogSlope(z); math.Abs(s+1.1) > 1e-9 {
		t.Fatalf("exact Zipf 1.1: slope %v", s)
	}
}

func logLogSlope(count []float64) float64 {
	var sx, sy, sxx, sxy, n float64
	for i, c := range count {
		if c == 0 {
			continue
		}
		x, y := math.Log(float64(i+1)), math.Log(c)
		sx, sy, sxx, sxy, n = sx+x, sy+y, sxx+x*x, sxy+x*y, n+1
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// TestTypos: every typo is one or two edits (adjacent swap = one) from its
// real word, passes the zero check, and is deterministic.
func TestTypos(t *testing.T) {
	src := real(t)
	rejected := 0
	zero := func(q mix.Query) bool {
		if strings.HasPrefix(q.Q, "a") { // stands for "has results"
			rejected++
			return false
		}
		return true
	}
	ts, err := Typos(src, 5, 300, zero)
	if err != nil {
		t.Fatal(err)
	}
	if rejected == 0 {
		t.Fatal("the zero check was never consulted")
	}
	twoWords := 0
	for _, ty := range ts {
		if strings.HasPrefix(ty.Query.Q, "a") {
			t.Fatalf("%q returned although the zero check refused it", ty.Query.Q)
		}
		bad, from := strings.Fields(ty.Query.Q), strings.Fields(ty.From)
		if len(bad) != len(from) {
			t.Fatalf("%q from %q: word counts differ", ty.Query.Q, ty.From)
		}
		if len(bad) == 2 {
			twoWords++
			if bad[1] != from[1] {
				t.Fatalf("%q: second word changed from %q", ty.Query.Q, ty.From)
			}
		}
		if d := osa(bad[0], from[0]); d < 1 || d > 2 || d > ty.Edits {
			t.Fatalf("%q from %q: distance %d, %d edits", bad[0], from[0], d, ty.Edits)
		}
	}
	if twoWords == 0 || twoWords == len(ts) {
		t.Errorf("%d of %d typos have two words", twoWords, len(ts))
	}
	again, _ := Typos(src, 5, 300, zero)
	if !slices.Equal(ts, again) {
		t.Error("same seed, different typos")
	}
}

// osa is the oracle's optimal string alignment distance (Levenshtein plus
// adjacent swaps), written apart from both the generator and the engine.
func osa(a, b string) int { return qoracle.EditDistance(a, b) }

func TestOSA(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"jazz", "jazz", 0}, {"jazz", "jzaz", 1}, {"jazz", "jaz", 1}, {"radio", "raido", 1}, {"radio", "rdaoi", 2}, {"abc", "xyz", 3}} {
		if got := osa(c.a, c.b); got != c.d {
			t.Errorf("osa(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

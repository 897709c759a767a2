package indexer

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"stationdex/internal/format"
)

// syntheticInput streams n generated stations as NDJSON in Radio Browser's
// shape, about a kilobyte each like the real dump: names made of a few
// hundred words (so prefixes and tokens are shared), 40 countries, a dozen
// languages, a hundred tags, and every 97th record repeating an earlier
// UUID so that duplicates meet across spilled runs. It also reports the
// bytes it produced. The same n and seed give the same stream.
func syntheticInput(n int, seed uint64) (Input, *int64) {
	pr, pw := io.Pipe()
	size := new(int64)
	go func() {
		rng := rand.New(rand.NewPCG(seed, seed))
		var line bytes.Buffer
		var err error
		for i := 0; i < n && err == nil; i++ {
			line.Reset()
			writeSyntheticStation(&line, rng, i)
			*size += int64(line.Len())
			_, err = pw.Write(line.Bytes())
		}
		pw.CloseWithError(err)
	}()
	return Input{Name: "synthetic", R: pr}, size
}

var (
	synthWords = strings.Fields(`radio fm am hits rock jazz classic news talk sport music love city
		country gold smooth chill lounge dance club pop metal blues soul funk latin salsa
		reggae folk retro oldies kids christian gospel worship nova star sun moon sky ocean
		wave beat pulse vibe soul deep house techno trance ambient piano voice`)
	synthCountries = [][2]string{{"DE", "Germany"}, {"US", "The United States Of America"},
		{"FR", "France"}, {"BR", "Brazil"}, {"RU", "The Russian Federation"}, {"JP", "Japan"},
		{"GR", "Greece"}, {"ES", "Spain"}, {"IT", "Italy"}, {"IN", "India"}}
	synthLanguages = []string{"german", "english", "french", "portuguese", "russian",
		"japanese", "greek", "spanish", "italian", "hindi", "deutsch", ""}
)

func writeSyntheticStation(w *bytes.Buffer, rng *rand.Rand, i int) {
	id := i
	if i%97 == 96 {
		// A duplicate of an earlier station's UUID, one that is not
		// itself a duplicate.
		if id = rng.IntN(i); id%97 == 96 {
			id--
		}
	}
	var name strings.Builder
	for range 1 + rng.IntN(4) {
		name.WriteString(synthWords[rng.IntN(len(synthWords))])
		name.WriteByte(' ')
	}
	fmt.Fprintf(&name, "%d", rng.IntN(5000))
	c := synthCountries[rng.IntN(len(synthCountries))]
	tags := make([]string, rng.IntN(4))
	for j := range tags {
		tags[j] = fmt.Sprintf("%s%d", synthWords[rng.IntN(len(synthWords))], rng.IntN(2))
	}
	fmt.Fprintf(w, `{"changeuuid": "00000000-0000-4000-8000-000000000000", "stationuuid": "%08x-0000-4000-8000-%012x", `+
		`"name": %q, "url": "http://stream.example/%d", "url_resolved": "https://stream.example/%d/live.mp3", `+
		`"homepage": "https://station%d.example/", "favicon": "https://station%d.example/favicon-%s.png", `+
		`"tags": %q, "country": %q, "countrycode": %q, "iso_3166_2": null, "state": "region %d", `+
		`"language": %q, "languagecodes": "", "votes": %d, "lastchangetime": "2025-01-%02d 10:00:00", `+
		`"lastchangetime_iso8601": null, "codec": "MP3", "bitrate": %d, "hls": 0, "lastcheckok": 1, `+
		`"lastchecktime": "2025-02-%02d 11:00:00", "lastchecktime_iso8601": null, "clickcount": %d, `+
		`"clicktrend": 0, "ssl_error": 0, "geo_lat": null, "geo_long": null, "has_extended_info": false, `+
		`"description": %q}`+"\n",
		id, id, name.String(), id, id, id, id, strings.Repeat("x", rng.IntN(40)),
		strings.Join(tags, ","), c[1], c[0], rng.IntN(50),
		synthLanguages[rng.IntN(len(synthLanguages))], rng.IntN(1000), 1+rng.IntN(28),
		[]int{0, 64, 128, 192}[rng.IntN(4)], 1+rng.IntN(27), rng.IntN(100000),
		strings.Repeat("A station made up for the memory test. ", 1+rng.IntN(8)))
}

// TestBuildSpilledSameAsInMemory builds the same input twice: under the
// smallest memory budget, which spills every sorter to disk in many runs,
// and under one the input fits in. The two indexes must be identical in
// every bucket, duplicates settled the same way across runs.
func TestBuildSpilledSameAsInMemory(t *testing.T) {
	const n = 20000
	build := func(budget int) (string, string, Summary) {
		in, _ := syntheticInput(n, 1)
		var progress strings.Builder
		path := filepath.Join(t.TempDir(), "s.idx")
		sum, err := Build(context.Background(), path, Options{MemoryBudget: budget, Progress: &progress, Sections: format.SectionRBAPI}, in)
		if err != nil {
			t.Fatal(err)
		}
		return dumpIndex(t, path), progress.String(), sum
	}
	spilled, spillLog, sumSpilled := build(MinMemoryBudget)
	inMemory, memLog, sumInMemory := build(1 << 30)
	if !strings.Contains(spillLog, "spilled") {
		t.Fatalf("the small budget spilled nothing:\n%s", spillLog)
	}
	if strings.Contains(memLog, "spilled") {
		t.Fatalf("the large budget spilled:\n%s", memLog)
	}
	if names := phaseNames(sumSpilled.Phases); len(names) < 10 || !slices.Equal(names, phaseNames(sumInMemory.Phases)) {
		t.Errorf("phases %v and %v: want the same build steps", names, phaseNames(sumInMemory.Phases))
	}
	sumSpilled.Phases, sumInMemory.Phases = nil, nil // times differ
	if !reflect.DeepEqual(sumSpilled, sumInMemory) {
		t.Errorf("summaries differ: %+v and %+v", sumSpilled, sumInMemory)
	}
	if want := n / 97; sumSpilled.Skipped.DuplicateUUID != want {
		t.Errorf("%d duplicates skipped, want %d", sumSpilled.Skipped.DuplicateUUID, want)
	}
	if spilled != inMemory {
		t.Fatal("the spilled build differs from the in-memory build")
	}
}

// TestBuildMemoryBounded is the indexer's memory contract: with the
// smallest budget, a build of an input of over a hundred megabytes keeps a
// live heap of a fraction of it. What may grow with the input is 4 bytes
// per record (the renumbering table): under half a megabyte here.
func TestBuildMemoryBounded(t *testing.T) {
	const (
		n = 170000
		// 24 MiB until each record in the read pipeline's batches
		// carried its upstream object and name grams (upstream.go): 9
		// MiB more here alone, up to 12 under a parallel test run; the
		// input grew to stay over 4 times the bound. Built with
		// format.SectionRBAPI, the larger of the two kinds.
		maxLiveHeap = 38 << 20
	)
	in, size := syntheticInput(n, 2)
	path := filepath.Join(t.TempDir(), "m.idx")
	peak := watchHeap(t)
	sum, err := Build(context.Background(), path, Options{MemoryBudget: MinMemoryBudget, Sections: format.SectionRBAPI}, in)
	live, inUse := peak()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d stations from %d MB of input: peak live heap %d MiB, peak heap in use %d MiB",
		sum.Stations, *size>>20, live>>20, inUse>>20)
	if *size < 4*maxLiveHeap {
		t.Fatalf("the input (%d MB) is too small to show the bound", *size>>20)
	}
	if live > maxLiveHeap {
		t.Errorf("peak live heap %d MiB, want at most %d MiB", live>>20, maxLiveHeap>>20)
	}
}

func phaseNames(phases []Phase) []string {
	names := make([]string, len(phases))
	for i, p := range phases {
		names[i] = p.Name
	}
	return names
}

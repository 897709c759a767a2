package spell

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	qoracle "stationdex/oracle"
	"stationdex/query/internal/testindex"
)

// The dictionary's close-word walk, which skips prefixes, against a brute
// force over every word of the snapshot with the oracle's own distance:
// same words, same edits, for ASCII and non-ASCII probes alike.
func TestCloseWordsMatchBruteForceOnRealSnapshot(t *testing.T) {
	ix, o := realIndex(t)
	dict, err := Dictionary(ix)
	if err != nil {
		t.Fatal(err)
	}
	words := o.Words()
	got := make([]string, dict.Len())
	for i := range got {
		got[i] = dict.Word(i)
	}
	if !slices.Equal(got, words) {
		t.Fatalf("dictionary has %d words, the oracle's snapshot %d (or they differ)", len(got), len(words))
	}
	probes := closeWordProbes(words)
	matched := 0
	for _, p := range probes {
		var want []closeWord
		limit := int(MaxEdits(p))
		for _, w := range words {
			if w != p && abs(utf8.RuneCountInString(w)-utf8.RuneCountInString(p)) <= limit {
				if e := qoracle.EditDistance(p, w); e <= limit {
					want = append(want, closeWord{word: w, edits: e})
				}
			}
		}
		have := dict.within(p)
		for i := range have {
			have[i].stations, have[i].reach = 0, 0
		}
		if !slices.Equal(have, want) {
			t.Fatalf("%q: close words %v, brute force %v", p, have, want)
		}
		matched += len(want)
	}
	if matched < len(probes) {
		t.Fatalf("%d probes found only %d close words: the probes do not exercise the walk", len(probes), matched)
	}
	t.Logf("%d probes, %d close words, over %d words", len(probes), matched, len(words))
}

// closeWordProbes misspells every 1500th word, and every 40th of those
// with letters beyond ASCII, by the typos the suggestions test uses.
func closeWordProbes(words []string) []string {
	var ascii, other []string
	for i, w := range words {
		if strings.IndexFunc(w, func(r rune) bool { return r >= utf8.RuneSelf }) >= 0 {
			if i%40 == 0 {
				other = append(other, w)
			}
		} else if i%1500 == 0 {
			ascii = append(ascii, w)
		}
	}
	return append(testindex.Typos(append(ascii, other...)), "a", "zz", "radoi", "jazzz", "x")
}

func TestCloseWordsRanking(t *testing.T) {
	d := &dictionary{}
	var text string
	for _, e := range []struct {
		w string
		n uint32
	}{{"jaz", 5}, {"jazz", 90}, {"jazzy", 7}, {"jezz", 200}, {"razz", 1}, {"zzzz", 3}} {
		text += e.w
		d.ends = append(d.ends, uint32(len(text)))
		d.counts = append(d.counts, e.n)
		d.Reach = append(d.Reach, e.n)
	}
	d.text = text
	d.buildTrie()
	got := d.closeWords("jazz")
	want := []closeWord{{"jezz", 1, 200, 200}, {"jazzy", 1, 7, 7}, {"jaz", 1, 5, 5}, {"razz", 1, 1, 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("closeWords(jazz) = %v, want %v", got, want)
	}
	// A transposition is one edit: jzaz is one from jazz and (a deletion)
	// from jaz, two from jezz.
	want = []closeWord{{"jazz", 1, 90, 90}, {"jaz", 1, 5, 5}}
	if got := d.closeWords("jzaz"); !slices.Equal(got, want) {
		t.Fatalf("closeWords(jzaz) = %v, want %v", got, want)
	}
}

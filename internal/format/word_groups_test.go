package format

import (
	"errors"
	"slices"
	"sort"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// sliceCursor is a Cursor over sorted keys held in memory.
type sliceCursor struct {
	keys []string
	vals map[string][]byte
	i    int
}

func (c *sliceCursor) at() ([]byte, []byte) {
	if c.i >= len(c.keys) {
		return nil, nil
	}
	return []byte(c.keys[c.i]), c.vals[c.keys[c.i]]
}

func (c *sliceCursor) First() ([]byte, []byte) { c.i = 0; return c.at() }
func (c *sliceCursor) Next() ([]byte, []byte)  { c.i++; return c.at() }
func (c *sliceCursor) Seek(k []byte) ([]byte, []byte) {
	c.i = sort.SearchStrings(c.keys, string(k))
	return c.at()
}

// stationRange serialises the posting list of stations [from, to).
func stationRange(t *testing.T, from, to uint64) []byte {
	bm := roaring.New()
	bm.AddRange(from, to)
	b, err := bm.ToBytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func countedWords(t *testing.T, tokens, prefixes map[string][]byte) ([]string, error) {
	keys := make([]string, 0, len(tokens))
	for k := range tokens {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var words []string
	err := EachCountedWord(func() Cursor { return &sliceCursor{keys: keys, vals: tokens} },
		func(w []byte) []byte { return prefixes[string(w)] },
		func(word []byte, stations *roaring.Bitmap) error {
			if stations.GetCardinality() < WordGroupsMin {
				t.Errorf("%q yielded with %d stations", word, stations.GetCardinality())
			}
			words = append(words, string(word))
			return nil
		})
	return words, err
}

// TestEachCountedWord: the words are every prefix of a token, shortest
// first and each once, that finds enough stations as a reader finds them
// (a stored prefix list first, else the union of the tokens it begins).
func TestEachCountedWord(t *testing.T) {
	half := uint64(WordGroupsMin/2 + 1)
	tokens := map[string][]byte{
		"aa": stationRange(t, 0, half),      // neither finds enough alone,
		"ab": stationRange(t, half, 2*half), // "a" finds both
		"b":  stationRange(t, 0, 2*WordGroupsMin),
		"c1": stationRange(t, 0, 10), // few, but "c" has a stored list
		"dd": stationRange(t, 0, WordGroupsMin),
		"de": stationRange(t, 0, WordGroupsMin), // the same stations: "d" finds as many
		"é":  stationRange(t, 0, WordGroupsMin+5),
		"z":  stationRange(t, 0, WordGroupsMin-1),
	}
	prefixes := map[string][]byte{"c": stationRange(t, 100, 100+WordGroupsMin)}
	words, err := countedWords(t, tokens, prefixes)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a", "b", "c", "d", "dd", "de", "é"}
	if !slices.Equal(words, want) {
		t.Errorf("counted words %q, want %q", words, want)
	}
}

// TestEachCountedWordRefusesMissingPrefix: more tokens under a word than
// a reader unions, and no stored list, is a damaged index.
func TestEachCountedWordRefusesMissingPrefix(t *testing.T) {
	tokens := map[string][]byte{}
	for i := range PrefixFanout + 1 {
		tokens["e"+string(rune('a'+i))] = stationRange(t, 0, WordGroupsMin)
	}
	if _, err := countedWords(t, tokens, nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("EachCountedWord: %v, want ErrCorrupt", err)
	}
}

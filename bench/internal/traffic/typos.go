package traffic

import (
	"fmt"
	"math/rand/v2"
	"unicode"

	"stationdex/bench/internal/mix"
)

// Typo is a misspelt search: the real words it came from and how many
// edits each got.
type Typo struct {
	Query mix.Query
	From  string // the real words
	Edits int    // edits in all (1 or 2 per misspelt word)
}

// Typos returns n searches made from real name words by one or two edits
// (substitution, deletion, insertion, swap of adjacent letters) for which
// zero(q) holds (the caller checks that the search finds nothing; the
// misspelt word is also absent from the vocabulary). Words of
// at least 4 letters get one edit, words of at least 6 one or two. A third
// of the searches have two words, of which the first is misspelt and the
// second kept. Deterministic for a seed and the same zero answers.
func Typos(src *Source, seed uint64, n int, zero func(mix.Query) bool) ([]Typo, error) {
	g := &gen{src: src, rng: rand.New(rand.NewPCG(seed, 0x7e9))}
	seen := map[string]bool{}
	var out []Typo
	for tries := 0; len(out) < n; tries++ {
		if tries > 200*n {
			return nil, fmt.Errorf("traffic: only %d zero-result typos after %d draws (wanted %d)", len(out), tries, n)
		}
		s := g.station(func(s *station) bool { return s.hasWords && lettersOnly(s.words[0]) && len([]rune(s.words[0])) >= 4 })
		w := s.words[0]
		edits := 1
		if len([]rune(w)) >= 6 && g.rng.IntN(3) == 0 {
			edits = 2
		}
		bad, ok := g.misspell(w, edits)
		if !ok {
			continue
		}
		t := Typo{Query: mix.Query{Class: "typo", Q: bad, Limit: 20}, From: w, Edits: edits}
		if len(s.words) >= 2 && g.rng.IntN(3) == 0 {
			t.Query.Q += " " + s.words[1]
			t.From += " " + s.words[1]
		}
		// Two edits can undo each other or overlap into three (a swap
		// then a deletion of a swapped letter): keep what the server's
		// rule (edit distance with adjacent swaps) counts as 1 or 2.
		if d := distance(bad, w); d == 0 || d > edits || seen[t.Query.Q] || !zero(t.Query) {
			continue
		}
		seen[t.Query.Q] = true
		out = append(out, t)
	}
	return out, nil
}

func lettersOnly(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) || r > unicode.MaxLatin1 {
			return false
		}
	}
	return true
}

const alphabet = "abcdefghijklmnopqrstuvwxyz"

// edit applies one random edit to w (of at least 2 runes).
func (g *gen) edit(w string) string {
	r := []rune(w)
	i := g.rng.IntN(len(r))
	c := rune(alphabet[g.rng.IntN(len(alphabet))])
	switch g.rng.IntN(4) {
	case 0: // substitute
		if r[i] == c {
			c = rune(alphabet[(g.rng.IntN(len(alphabet)-1)+int(c-'a')+1)%len(alphabet)])
		}
		r[i] = c
	case 1: // delete
		r = append(r[:i], r[i+1:]...)
	case 2: // insert
		r = append(r[:i], append([]rune{c}, r[i:]...)...)
	default: // swap with the next letter
		if i == len(r)-1 {
			i--
		}
		if r[i] == r[i+1] {
			r[i] = c
		} else {
			r[i], r[i+1] = r[i+1], r[i]
		}
	}
	return string(r)
}

// distance is the edit distance with adjacent swaps counting as one
// (optimal string alignment), the measure of the suggestions.
func distance(a, b string) int {
	x, y := []rune(a), []rune(b)
	prev2, prev, cur := make([]int, len(y)+1), make([]int, len(y)+1), make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
}

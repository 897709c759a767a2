package spell

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/RoaringBitmap/roaring/v2"

	"stationdex/internal/format"
	"stationdex/query/core"
)

// Suggestion limits.
const (
	// MaxSuggestions is the number of suggestions a search returns.
	MaxSuggestions = 5
	// suggestWords is how many leading words of a query may be replaced;
	// further words stay as they are.
	suggestWords = 6
	// wordCandidates is how many close words each word is tried with: the
	// fewest edits first, then the most frequent.
	wordCandidates = 8
	// suggestCombinations bounds the word combinations counted per search.
	suggestCombinations = 512
)

// MaxEdits is the edit distance a word may be corrected by: 1 for words up
// to four letters, 2 beyond (a transposition is one edit).
func MaxEdits(word string) uint8 {
	if utf8.RuneCountInString(word) <= 4 {
		return 1
	}
	return 2
}

// wordOption is one word a query position may take, with its edits and
// the stations it matches (as a prefix, like any query word). A close
// word's set is read only when a combination needs it (setOf): alone, its
// total is its reach, which the index stores.
type wordOption struct {
	word  string
	edits int
	reach int             // stations it matches; -1: unknown until set is read
	set   *roaring.Bitmap // nil until read
}

// suggest computes the suggestions of a query without result. Each word
// position gets its own word (when it matches anything) and its closest
// dictionary words; combinations are counted with the filters by
// intersecting, depth first, so a prefix of positions that already
// matches nothing is not extended.
func Suggest(s *core.Search, q core.Query) ([]core.Suggestion, error) {
	f, filtered, err := s.Filtered(q, core.NoDim)
	if err != nil || filtered && f.Empty() {
		return nil, err
	}
	options, err := wordOptions(s, s.Work.Words)
	if err != nil {
		return nil, err
	}
	c := combiner{s: s, options: options, words: make([]string, len(options)), seen: map[string]bool{}, want: -1}
	if filtered {
		c.filter = s.Work.Settle(f).BM
	}
	if len(options) > 0 {
		c.search()
	}
	return c.best(), c.err
}

// wordOptions lists, per query word, the words it may be replaced by.
func wordOptions(s *core.Search, words []string) ([][]wordOption, error) {
	dict, err := Dictionary(s.Index)
	if err != nil {
		return nil, err
	}
	options := make([][]wordOption, len(words))
	for i, w := range words {
		own, err := s.WordSet(core.AllSpace, w)
		if err != nil {
			return nil, err
		}
		if !own.Empty() {
			options[i] = append(options[i], wordOption{word: w, reach: -1, set: s.Work.Settle(own).BM})
		}
		if i >= suggestWords {
			continue
		}
		for _, cw := range dict.closeWords(w) {
			options[i] = append(options[i], wordOption{word: cw.word, edits: cw.edits, reach: int(cw.reach)})
		}
	}
	return options, nil
}

type closeWord struct {
	word     string
	edits    int
	stations uint64 // with the word itself as a token: the rank of close words
	reach    uint32 // found by the word as a query word (see dictionary.reach)
}

// combiner walks the combinations of word options depth first.
type combiner struct {
	s       *core.Search
	options [][]wordOption
	filter  *roaring.Bitmap // nil: no filter
	words   []string
	seen    map[string]bool
	found   []core.Suggestion
	tried   int
	// want, when not -1, is the only number of edits counted
	want int
	err  error // reading a close word's set; ends the walk
	// view reads one posting list in place at a time (countWithin)
	view *roaring.Bitmap
}

// setOf reads the stations of option o once, as a bitmap that outlives
// the workspace's next scratch set.
func (c *combiner) setOf(o *wordOption) *roaring.Bitmap {
	if o.set == nil && c.err == nil {
		set, err := c.s.WordSet(core.AllSpace, o.word)
		if err != nil {
			c.err = err
			return nil
		}
		o.set = c.s.Work.Settle(set).BM
	}
	return o.set
}

// search counts the combinations. When there are few enough that the
// suggestCombinations bound cannot cut the walk, they are counted in
// order of edits, fewest first, and the walk stops once MaxSuggestions
// are found: suggestions are ranked by edits first, so none with more
// edits could enter. The found set up to those edits is the whole walk's,
// so the suggestions are the same; for the common typo beside a correct
// word ("raqio radio") this skips most of the intersections.
func (c *combiner) search() {
	combinations, most := 1, 0
	for _, opts := range c.options {
		combinations *= max(len(opts), 1)
		most += maxEditsOf(opts)
		if combinations > suggestCombinations {
			c.walk(0, nil, 0)
			return
		}
	}
	for c.want = 1; c.want <= most && len(c.found) < MaxSuggestions; c.want++ {
		c.walk(0, nil, 0)
	}
}

// best is the first MaxSuggestions found: fewest edits, most stations, q.
func (c *combiner) best() []core.Suggestion {
	slices.SortFunc(c.found, func(a, b core.Suggestion) int {
		return cmp.Or(cmp.Compare(a.Edits, b.Edits), cmp.Compare(b.Total, a.Total), strings.Compare(a.Q, b.Q))
	})
	return c.found[:min(len(c.found), MaxSuggestions)]
}

// maxEditsOf is the most edits of any option, 0 for none.
func maxEditsOf(opts []wordOption) int {
	most := 0
	for _, o := range opts {
		most = max(most, o.edits)
	}
	return most
}

// walk extends the combination of positions before i, whose stations are
// acc (nil before the first position) and edits so far. The last position
// is counted with AndCardinality, without materialising the intersection.
func (c *combiner) walk(i int, acc *roaring.Bitmap, edits int) {
	last := i == len(c.options)-1
	for j := range c.options[i] {
		o := &c.options[i][j]
		if c.tried >= suggestCombinations || c.err != nil {
			return
		}
		if c.want >= 0 && (edits+o.edits > c.want || last && edits+o.edits != c.want) {
			continue
		}
		c.tried++
		c.words[i] = o.word
		if last && (acc == nil || c.filter == nil) {
			if edits+o.edits > 0 { // else the query itself, which has no result
				c.add(c.lastTotal(acc, o), edits+o.edits)
			}
			continue
		}
		next := c.setOf(o)
		if next == nil {
			return
		}
		if acc != nil {
			next = roaring.And(acc, next)
		}
		if next.IsEmpty() {
			continue
		}
		if last {
			if edits+o.edits > 0 {
				c.add(int(next.AndCardinality(c.filter)), edits+o.edits)
			}
			continue
		}
		c.walk(i+1, next, edits+o.edits)
	}
}

// lastTotal counts the combination ending in o at the last position,
// with the stations acc of the positions before it (nil: none) or the
// filter (one of them at most): a close word alone by its reach, the
// others with AndCardinality, without materialising the intersection.
func (c *combiner) lastTotal(acc *roaring.Bitmap, o *wordOption) int {
	if acc == nil && c.filter == nil && o.reach >= 0 {
		return o.reach
	}
	if within := cmp.Or(acc, c.filter); o.set == nil && within != nil {
		if n, ok := c.countWithin(within, o.word); ok {
			return n
		}
	}
	set := c.setOf(o)
	switch {
	case set == nil:
		return 0
	case acc != nil:
		return int(acc.AndCardinality(set))
	case c.filter != nil:
		return int(set.AndCardinality(c.filter))
	default:
		return int(set.GetCardinality())
	}
}

// countWithin counts the stations of within that have a token starting
// with word, when the word stands for several tokens' lists: their union,
// which setOf would build, is not made. A prefix of a few short tokens
// ("101" at the end of a misspelt search) reads lists of hundreds of
// thousands of stations at 5M, and their union allocated about 2 MB a
// search page. Instead the stations of within that none of the lists
// holds are kept (a copy of within, itself an intersection of the
// positions before or the filter, usually small beside them), and the
// rest are the count. ok is false for a word of one list, read in place
// by setOf, and where within is the larger (a filter of a large country):
// the union then costs less than the copy.
func (c *combiner) countWithin(within *roaring.Bitmap, word string) (n int, ok bool) {
	lists, err := c.s.WordLists(core.AllSpace, word)
	if err != nil {
		c.err = err
		return 0, true
	}
	if len(lists) < 2 {
		return 0, false
	}
	size := 0
	for _, v := range lists {
		size += len(v)
	}
	if within.GetSerializedSizeInBytes() > uint64(size) {
		return 0, false
	}
	if c.view == nil {
		c.view = c.s.Work.Bitmap()
	}
	rest := within.Clone()
	for _, v := range lists {
		if _, err := c.view.FromBuffer(v); err != nil {
			c.err = fmt.Errorf("%w: posting list of %q: %v", format.ErrCorrupt, word, err)
			return 0, true
		}
		if rest.AndNot(c.view); rest.IsEmpty() {
			break
		}
	}
	return int(within.GetCardinality() - rest.GetCardinality()), true
}

// add records the combination in c.words with its total, when it finds
// something and was not seen.
func (c *combiner) add(total, edits int) {
	if total == 0 {
		return
	}
	q := strings.Join(c.words, " ")
	if c.seen[q] {
		return
	}
	c.seen[q] = true
	c.found = append(c.found, core.Suggestion{Q: q, Total: total, Edits: edits})
}

package spell

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/vellum"
	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	"stationdex/query/core"
)

// dictionary is the index's word list (the keys of the all_tokens FST the
// indexer writes, with their station counts), held in memory for typo
// correction: filed under the strings its words leave with one or two
// deletions (deleteIndex, deletes.go), which finds the close words of a
// query word in a few dozen lookups; and as a trie of runes, walked with
// the rows of an edit-distance table, one row per node, pruning a subtree
// as soon as its row is beyond the allowed distance, for the words the
// index does not cover. vellum's
// automaton search over the FST visits the same prefixes but costs several
// times more per step (a profile of a two-word typo put 70% of the
// suggestion time in its iterator), and its automaton is built per word.
type dictionary struct {
	text   string   // the words, concatenated in order
	ends   []uint32 // ends[i] is the end of word i in text
	counts []uint32 // station count of each word
	// reach is the stations each word finds as a query word (format:
	// KeyWordReach): a close word's total, when it alone is the search
	Reach []uint32
	nodes []trieNode
	// deletes finds the close words of all but very long query words
	// (nil past its bound: the walk answers all)
	deletes *deleteIndex
	// recent remembers the close words of recent query words: a
	// correct word beside a typo ("radio" in "raqio radio") is looked up
	// by search after search, and a common word has hundreds of close
	// words to check
	recent closeCache
	// scratch pools the lookupScratches of withinByDeletes
	scratch sync.Pool
}

// closeCache is a bounded map of query words to their close words, emptied
// when full. The lists are shared and never modified.
type closeCache struct {
	mu    sync.RWMutex
	words map[string][]closeWord
}

// closeCacheWords bounds closeCache: about a megabyte of short lists.
const closeCacheWords = 1 << 12

func (c *closeCache) get(w string) ([]closeWord, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	l, ok := c.words[w]
	return l, ok
}

func (c *closeCache) put(w string, l []closeWord) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.words == nil || len(c.words) >= closeCacheWords {
		c.words = make(map[string][]closeWord, closeCacheWords)
	}
	c.words[w] = l
}

// trieNode is one rune of the trie; node 0 is the root. A node's children
// are contiguous and in rune order, so a walk meets words in sorted order.
type trieNode struct {
	r           rune
	word        int32 // the word ending here, or -1
	first, kids uint32
}

// Dictionary is the index's word list, loaded on first use and kept in the
// index's derived values (Warm loads it in the background): on a loaded
// 2-core machine about 0.2 s for the real snapshot's words, most of it the
// delete index.
func Dictionary(ix *core.Index) (*dictionary, error) {
	v, err := ix.Derived("spell: dictionary", func(ix *core.Index) (any, error) {
		var d *dictionary
		err := ix.View(func(tx *bolt.Tx) error {
			var err error
			d, err = loadDictionary(tx.Bucket(format.BucketDictionary))
			return err
		})
		return d, err
	})
	d, _ := v.(*dictionary)
	return d, err
}

// loadDictionary copies the FST's keys out of the mapping. A damaged FST is
// reported as corrupt, never a panic: vellum trusts its input.
func loadDictionary(b *bolt.Bucket) (d *dictionary, err error) {
	defer func() {
		if r := recover(); r != nil {
			d, err = nil, fmt.Errorf("%w: dictionary: %v", format.ErrCorrupt, r)
		}
	}()
	var v []byte
	if b != nil {
		v = b.Get(format.KeyAllTokensFST)
	}
	if v == nil {
		return nil, fmt.Errorf("%w: no dictionary", format.ErrCorrupt)
	}
	fst, err := vellum.Load(v)
	if err != nil {
		return nil, fmt.Errorf("%w: dictionary: %v", format.ErrCorrupt, err)
	}
	var text []byte
	d = &dictionary{}
	it, err := fst.Iterator(nil, nil)
	for err == nil {
		k, n := it.Current()
		// The prefix skip needs strictly increasing keys; a real FST
		// iterates that way, a damaged one may not.
		if len(d.ends) > 0 && bytes.Compare(k, text[wordStart(d.ends):]) <= 0 {
			return nil, fmt.Errorf("%w: dictionary keys out of order at %q", format.ErrCorrupt, k)
		}
		text = append(text, k...)
		if int64(len(text)) > 1<<32-1 {
			return nil, fmt.Errorf("%w: dictionary over 4 GiB", format.ErrCorrupt)
		}
		d.ends = append(d.ends, uint32(len(text)))
		d.counts = append(d.counts, uint32(min(n, 1<<32-1)))
		err = it.Next()
	}
	if !errors.Is(err, vellum.ErrIteratorDone) {
		return nil, fmt.Errorf("%w: dictionary: %v", format.ErrCorrupt, err)
	}
	d.text = string(text)
	if d.Reach, err = loadReach(b.Get(format.KeyWordReach), len(d.ends)); err != nil {
		return nil, err
	}
	d.buildTrie()
	d.deletes = buildDeleteIndex(d)
	return d, nil
}

// loadReach copies the words' reach out of the mapping, one per word.
func loadReach(v []byte, words int) ([]uint32, error) {
	if len(v) != 4*words {
		return nil, fmt.Errorf("%w: dictionary reach of %d bytes for %d words", format.ErrCorrupt, len(v), words)
	}
	reach := make([]uint32, words)
	for i := range reach {
		reach[i] = binary.LittleEndian.Uint32(v[4*i:])
	}
	return reach, nil
}

// buildTrie lays the sorted words out as a trie, children of a node
// contiguous: each range of words sharing a prefix is split by the rune
// that follows it.
func (d *dictionary) buildTrie() {
	d.nodes = []trieNode{{word: -1}}
	d.addChildren(0, 0, d.Len(), 0)
}

// addChildren gives node the children of words [lo, hi), which share their
// first at bytes (the node's path).
func (d *dictionary) addChildren(node int, lo, hi, at int) {
	type group struct {
		r          rune
		lo, hi, at int
	}
	var groups []group
	for i := lo; i < hi; {
		w := d.Word(i)
		if len(w) == at {
			d.nodes[node].word = int32(i) // the prefix itself, first in order
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(w[at:])
		j := i + 1
		for j < hi && strings.HasPrefix(d.Word(j)[at:], w[at:at+size]) {
			j++
		}
		groups = append(groups, group{r, i, j, at + size})
		i = j
	}
	first := len(d.nodes)
	d.nodes[node].first, d.nodes[node].kids = uint32(first), uint32(len(groups))
	for _, g := range groups {
		d.nodes = append(d.nodes, trieNode{r: g.r, word: -1})
	}
	for k, g := range groups {
		d.addChildren(first+k, g.lo, g.hi, g.at)
	}
}

// wordStart is where the word after ends starts.
func wordStart(ends []uint32) int {
	if len(ends) == 0 {
		return 0
	}
	return int(ends[len(ends)-1])
}

func (d *dictionary) Len() int { return len(d.ends) }

// word is word i.
func (d *dictionary) Word(i int) string {
	sp := d.span(uint32(i))
	return d.text[sp[0]:sp[1]]
}

// closeWords is up to wordCandidates words within MaxEdits(w) of w (optimal
// string alignment: a transposition of neighbours is one edit), other than
// w itself: fewest edits, then most stations, then by word.
func (d *dictionary) closeWords(w string) []closeWord {
	if l, ok := d.recent.get(w); ok {
		return l
	}
	l := d.findCloseWords(w)
	d.recent.put(strings.Clone(w), l)
	return l
}

// findCloseWords is closeWords without the cache.
func (d *dictionary) findCloseWords(w string) []closeWord {
	var out []closeWord
	if d.deletes != nil && utf8.RuneCountInString(w) <= maxIndexedRunes-2 {
		out = d.withinByDeletes(w)
	} else {
		out = d.within(w)
	}
	return firstCloseWords(out, wordCandidates)
}

// firstCloseWords is a copy of the first n of out in closeWords' order,
// chosen without sorting all: a short word has hundreds within two edits.
func firstCloseWords(out []closeWord, n int) []closeWord {
	// The words are compared only when the rest ties: cmp.Or would
	// compare them every time, and a common word has a hundred close
	// words to rank.
	less := func(a, b closeWord) int {
		if a.edits != b.edits {
			return cmp.Compare(a.edits, b.edits)
		}
		if a.stations != b.stations {
			return cmp.Compare(b.stations, a.stations)
		}
		return strings.Compare(a.word, b.word)
	}
	first := make([]closeWord, 0, min(n, len(out)))
	for _, c := range out {
		if len(first) == n && less(c, first[n-1]) >= 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(first, c, less)
		if len(first) == n {
			first = first[:n-1]
		}
		first = slices.Insert(first, i, c)
	}
	return first // kept by the cache: not the whole candidate list
}

// within is every word within MaxEdits(w) of w other than w, in word order.
func (d *dictionary) within(w string) []closeWord {
	if utf8.RuneCountInString(w) > maxCorrectedRunes {
		return nil
	}
	wk := trieWalk{d: d, t: newEditTable(w), w: w}
	wk.walk(&d.nodes[0])
	return wk.out
}

// withinByDeletes is every word within MaxEdits(w) of w other than w,
// found through the delete index (any order), for a w of at most
// maxIndexedRunes-2 runes: a word within two edits of it is at most two
// runes longer, so it is indexed.
func (d *dictionary) withinByDeletes(w string) []closeWord {
	target := []rune(w)
	k := int(MaxEdits(w))
	var pat osaPattern // target has at most maxIndexedRunes-2 runes (findCloseWords)
	pat.reset(target)
	sc := d.lookupScratch()
	defer d.scratch.Put(sc)
	// The candidates met for the first time, then where each word is:
	// gathered in loops of independent loads, for the reason candidates
	// gives, before the words are read and checked.
	sc.ids = d.deletes.candidates(target, k, sc, sc.ids[:0])
	uniq := sc.ids[:0]
	for _, id := range sc.ids {
		if sc.checked.add(id) { // else met through another deletion
			uniq = append(uniq, id)
		}
	}
	spans := sc.spans[:0]
	for _, id := range uniq {
		spans = append(spans, d.span(id))
	}
	sc.ids, sc.spans = uniq, spans
	var out []closeWord
	for j, id := range uniq {
		s := d.text[spans[j][0]:spans[j][1]]
		if s == w || len(s) > 4*(len(target)+k) || len(s) < len(target)-k {
			continue // itself, or more runes apart than k edits bridge
		}
		if e := pat.distance(s); e <= k {
			out = append(out, closeWord{word: s, edits: e, stations: uint64(d.counts[id]), reach: d.Reach[id]})
		}
	}
	return out
}

// span is where word id is in d.text.
func (d *dictionary) span(id uint32) [2]uint32 {
	return [2]uint32{uint32(wordStart(d.ends[:id])), d.ends[id]}
}

// lookupScratch is the reusable state of one delete-index look-up: the
// candidates it has checked, a bit per word of the dictionary (a word is
// met through several of its deletions; sorting the candidates to drop
// the repeats cost a sixth of a look-up, clearing a bit per word, 4 KiB
// on the real snapshot, far less), and its buffers.
type lookupScratch struct {
	checked candidateSet
	hashes  []uint64    // of the query word's deletions
	first   []uint64    // the first slot of each
	ids     []uint32    // candidates
	spans   [][2]uint32 // where each candidate is in the text
	buf     []byte
}

// lookupScratch is a scratch from d's pool, its candidate set empty.
func (d *dictionary) lookupScratch() *lookupScratch {
	if sc, ok := d.scratch.Get().(*lookupScratch); ok {
		clear(sc.checked)
		return sc
	}
	return &lookupScratch{checked: make(candidateSet, (d.Len()+63)/64)}
}

// candidateSet is a set of word ids, a bit each.
type candidateSet []uint64

// add adds id, reporting whether it was not there yet.
func (c candidateSet) add(id uint32) bool {
	word, bit := id/64, uint64(1)<<(id%64)
	if c[word]&bit != 0 {
		return false
	}
	c[word] |= bit
	return true
}

// trieWalk finds the close words of w under a node.
type trieWalk struct {
	d   *dictionary
	t   *editTable
	w   string
	out []closeWord
}

func (wk *trieWalk) walk(node *trieNode) {
	for c := node.first; c < node.first+node.kids; c++ {
		child := &wk.d.nodes[c]
		if wk.t.push(child.r) {
			if e := wk.t.distance(); child.word >= 0 && e <= wk.t.max {
				if word := wk.d.Word(int(child.word)); word != wk.w {
					wk.out = append(wk.out, closeWord{word: word, edits: int(e), stations: uint64(wk.d.counts[child.word]), reach: wk.d.Reach[child.word]})
				}
			}
			if child.kids > 0 {
				wk.walk(child)
			}
		}
		wk.t.pop()
	}
}

// editTable is the dynamic-programming table of the optimal string
// alignment distance between target and a path of runes that grows and
// shrinks like a walk down a trie: row j holds the distances between the
// path's first j runes and every prefix of target. Cells are bytes, which
// hold any distance: target is at most maxCorrectedRunes long and the walk
// never goes deeper than len(target)+max+1 (the row's minimum is at least
// depth-len(target)).
type editTable struct {
	target []rune
	max    uint8
	width  int // len(target)+1
	path   []rune
	rows   []uint8 // row j at rows[j*width:]
}

// maxCorrectedRunes bounds the words the dictionary suggests corrections
// for: a longer word is left as it is.
const maxCorrectedRunes = 64

func newEditTable(w string) *editTable {
	t := &editTable{target: []rune(w), max: MaxEdits(w)}
	t.width = len(t.target) + 1
	for i := range t.width {
		t.rows = append(t.rows, uint8(i))
	}
	return t
}

// pop takes the path's last rune off.
func (t *editTable) pop() {
	t.path = t.path[:len(t.path)-1]
	t.rows = t.rows[:(len(t.path)+1)*t.width]
}

// push extends the path by r and reports whether some extension of the
// path can still be within max edits (the new row's minimum is within it;
// a transposition later never gets below that minimum). It is the walk's
// inner loop: a two-word typo pushes some 30,000 runes.
func (t *editTable) push(r rune) bool {
	j := len(t.path) + 1
	t.path = append(t.path, r)
	w := t.width
	t.rows = slices.Grow(t.rows, w)[:(j+1)*w]
	prev := t.rows[(j-1)*w : j*w : j*w]
	cur := t.rows[j*w : (j+1)*w : (j+1)*w]
	target := t.target[:w-1]
	cur[0] = uint8(j)
	best := cur[0]
	var before []uint8 // row j-2, for transpositions
	var last rune      // the path's rune before r
	if j > 1 {
		before = t.rows[(j-2)*w : (j-1)*w : (j-1)*w]
		last = t.path[j-2]
	}
	for i := 1; i < w; i++ {
		v := prev[i-1]
		if target[i-1] != r {
			v++
		}
		v = min(v, prev[i]+1, cur[i-1]+1)
		if i > 1 && before != nil && r == target[i-2] && last == target[i-1] {
			v = min(v, before[i-2]+1)
		}
		cur[i] = v
		best = min(best, v)
	}
	return best <= t.max
}

// distance is the distance between the whole path and the whole target.
func (t *editTable) distance() uint8 { return t.rows[len(t.rows)-1] }

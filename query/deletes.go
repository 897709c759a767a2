package query

import (
	"hash/maphash"
	"math/bits"
	"slices"
	"unicode/utf8"
)

// deleteIndex finds the dictionary words within two edits of a query word
// without walking the dictionary (the method of SymSpell): every word is
// filed under each string it leaves when at most two of its runes are
// deleted, and a query word looks up the strings its own deletions leave.
// Words within k edits (optimal string alignment: substitutions,
// insertions, deletions, transpositions of neighbours) share such a
// string with at most k deletions on each side, since every edit is
// undone by one deletion on one side or on both; so the candidates hold
// every close word, and each is then checked by its true distance. The
// result is exactly the trie walk's (TestCloseWordsByDeletesAsByWalk).
//
// A trie walk visits thousands of nodes per word; this is a few dozen
// binary searches. The strings are kept as 64-bit hashes only: a
// collision adds a candidate, which the distance check removes.
type deleteIndex struct {
	hashes []uint64 // sorted
	words  []uint32 // the word of each hash
	// starts[b] is the first hash whose top bits (bits of them) are b:
	// about one bucket per hash, so that a lookup is one probe of starts
	// and a hash or two, not a binary search
	starts []uint32
	bits   int
	seed   maphash.Seed
}

// Bounds of the delete index. Words longer than maxIndexedRunes are left
// out (a word of n runes leaves about n²/2 strings): they are within two
// edits only of query words longer than maxIndexedRunes-2, which the walk
// answers. maxDeletes bounds the index whatever the dictionary (the real
// snapshot's 33,404 words file about 1.1 million); past it the walk
// answers every word.
const (
	maxIndexedRunes = 26
	maxDeletes      = 1 << 24
)

// buildDeleteIndex files every word of d of at most maxIndexedRunes runes;
// nil when the dictionary would pass maxDeletes.
func buildDeleteIndex(d *dictionary) *deleteIndex {
	x := &deleteIndex{seed: maphash.MakeSeed()}
	type entry struct {
		h  uint64
		id uint32
	}
	var entries []entry
	var runes []rune
	var buf []byte
	for id := range d.len() {
		w := d.word(id)
		if utf8.RuneCountInString(w) > maxIndexedRunes {
			continue
		}
		runes = append(runes[:0], []rune(w)...)
		buf = eachDeletion(runes, 2, buf, func(s []byte) {
			entries = append(entries, entry{maphash.Bytes(x.seed, s), uint32(id)})
		})
		if len(entries) > maxDeletes {
			return nil
		}
	}
	slices.SortFunc(entries, func(a, b entry) int {
		if a.h != b.h {
			return cmpUint64(a.h, b.h)
		}
		return int(a.id) - int(b.id)
	})
	entries = slices.Compact(entries)
	x.hashes = make([]uint64, len(entries))
	x.words = make([]uint32, len(entries))
	x.bits = min(max(bits.Len(uint(len(entries))), 8), 24)
	x.starts = make([]uint32, 1<<x.bits+1)
	for i, e := range entries {
		x.hashes[i], x.words[i] = e.h, e.id
		x.starts[e.h>>(64-x.bits)+1] = uint32(i + 1)
	}
	for b := 1; b < len(x.starts); b++ {
		x.starts[b] = max(x.starts[b], x.starts[b-1]) // empty buckets start where the last ended
	}
	return x
}

func cmpUint64(a, b uint64) int {
	if a < b {
		return -1
	}
	return 1
}

// eachDeletion calls fn with r itself and every string r leaves when up to
// k of its runes (k at most 2) are deleted, UTF-8 encoded in buf (valid
// during the call); it returns buf for reuse. The same string may come
// more than once (deleting either of two equal neighbours).
func eachDeletion(r []rune, k int, buf []byte, fn func([]byte)) []byte {
	emit := func(skip1, skip2 int) {
		buf = buf[:0]
		for i, c := range r {
			if i != skip1 && i != skip2 {
				buf = utf8.AppendRune(buf, c)
			}
		}
		fn(buf)
	}
	emit(-1, -1)
	for i := range r {
		if k >= 1 {
			emit(i, -1)
		}
		for j := i + 1; k >= 2 && j < len(r); j++ {
			emit(i, j)
		}
	}
	return buf
}

// candidates calls fn with the id of every word filed under a string that
// w (as runes) leaves with up to k deletions, possibly more than once.
func (x *deleteIndex) candidates(w []rune, k int, buf []byte, fn func(id uint32)) []byte {
	return eachDeletion(w, k, buf, func(s []byte) {
		h := maphash.Bytes(x.seed, s)
		b := h >> (64 - x.bits)
		for i := int(x.starts[b]); i < int(x.starts[b+1]) && x.hashes[i] <= h; i++ {
			if x.hashes[i] == h {
				fn(x.words[i])
			}
		}
	})
}

// osaPattern is a word of at most maxPatternRunes runes prepared for
// distance: for each rune, the set of positions where the word has it, one
// bit each. Checking a typo's candidates was half the cost of finding its
// close words with a table of distances (banded to the bound); the bit
// vectors compute a column of that table in a few word operations.
type osaPattern struct {
	n     int
	ascii [utf8.RuneSelf]uint64
	other []runeBits // runes past ASCII, few in a word: searched in order
}

type runeBits struct {
	r    rune
	bits uint64
}

// maxPatternRunes is the longest word an osaPattern holds: a bit a rune.
const maxPatternRunes = 64

// reset prepares p for w, of at most maxPatternRunes runes.
func (p *osaPattern) reset(w []rune) {
	p.n = len(w)
	p.ascii = [utf8.RuneSelf]uint64{}
	p.other = p.other[:0]
	for i, r := range w {
		bit := uint64(1) << i
		if r < utf8.RuneSelf {
			p.ascii[r] |= bit
			continue
		}
		j := slices.IndexFunc(p.other, func(o runeBits) bool { return o.r == r })
		if j < 0 {
			j = len(p.other)
			p.other = append(p.other, runeBits{r: r})
		}
		p.other[j].bits |= bit
	}
}

func (p *osaPattern) bits(r rune) uint64 {
	if r < utf8.RuneSelf {
		return p.ascii[r]
	}
	for _, o := range p.other {
		if o.r == r {
			return o.bits
		}
	}
	return 0
}

// distance is the optimal string alignment distance between p's word and
// s (insertions, deletions, substitutions and transpositions of
// neighbours, no part edited twice), as the whole table would give it,
// by Hyyrö's bit-vector algorithm (2003): Myers' vertical and horizontal
// deltas of the table, one column per rune of s, with his extension for
// transpositions. Bits above the word's length carry garbage that never
// reaches the bit read.
func (p *osaPattern) distance(s string) int {
	if p.n == 0 {
		return utf8.RuneCountInString(s)
	}
	last := uint64(1) << (p.n - 1)
	vp, vn, d0, prev := ^uint64(0), uint64(0), uint64(0), uint64(0)
	dist := p.n
	for _, r := range s {
		pm := p.bits(r)
		tr := ((^d0 & pm) << 1) & prev // a transposition closes at this column
		d0 = ((((pm & vp) + vp) ^ vp) | pm | vn) | tr
		hp := vn | ^(d0 | vp)
		hn := d0 & vp
		if hp&last != 0 {
			dist++
		}
		if hn&last != 0 {
			dist--
		}
		hp = (hp << 1) | 1
		hn <<= 1
		vp = hn | ^(d0 | hp)
		vn = hp & d0
		prev = pm
	}
	return dist
}

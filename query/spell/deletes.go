package spell

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
// probes of one table. The strings are kept as hashes only: a collision
// adds a candidate, which the distance check removes.
//
// The table is open addressing with linear probing: a slot holds a
// string's fingerprint (the hash's high half) and one word that leaves it,
// at the hash's low bits or the first free slot after. A look-up reads the
// run of slots from there to the first empty one, most often within one
// cache line: on a typo never seen before, the probes are nearly all cache
// misses, and a sorted array of hashes with a table of bucket starts took
// two dependent misses per probe (and a third for the word) where this
// takes one.
type deleteIndex struct {
	slots []uint64 // fingerprint<<32 | word id; 0: empty
	mask  uint64   // len(slots)-1, a power of two less one
	seed  maphash.Seed
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
// nil when the dictionary would pass maxDeletes. The table has room for
// at least a third more slots than the strings filed (counted with their
// repeats, which are filed once), so runs stay short.
func buildDeleteIndex(d *dictionary) *deleteIndex {
	n := 0
	for id := range d.Len() {
		if r := utf8.RuneCountInString(d.Word(id)); r <= maxIndexedRunes {
			n += deletionCount(r, 2)
		}
		if n > maxDeletes {
			return nil
		}
	}
	size := 1 << bits.Len(uint(n+n/3))
	x := &deleteIndex{slots: make([]uint64, size), mask: uint64(size - 1), seed: maphash.MakeSeed()}
	var runes []rune
	var buf []byte
	for id := range d.Len() {
		w := d.Word(id)
		if utf8.RuneCountInString(w) > maxIndexedRunes {
			continue
		}
		runes = append(runes[:0], []rune(w)...)
		buf = eachDeletion(runes, 2, buf, func(s []byte) { x.file(maphash.Bytes(x.seed, s), uint32(id)) })
	}
	return x
}

// deletionCount is how many strings eachDeletion emits for a word of n
// runes with up to k (at most 2) deletions, repeats included.
func deletionCount(n, k int) int {
	c := 1
	if k >= 1 {
		c += n
	}
	if k >= 2 {
		c += n * (n - 1) / 2
	}
	return c
}

// fingerprint is the high half of h with its low bit set, so that no
// filled slot is 0.
func fingerprint(h uint64) uint64 { return h>>32 | 1 }

// file puts word id under the string of hash h, unless it is there.
func (x *deleteIndex) file(h uint64, id uint32) {
	e := fingerprint(h)<<32 | uint64(id)
	for i := h & x.mask; ; i = (i + 1) & x.mask {
		switch x.slots[i] {
		case 0:
			x.slots[i] = e
			return
		case e:
			return // the same string from the same word: deleting either of two equal runes
		}
	}
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

// candidates appends to ids the id of every word filed under a string
// that w (as runes) leaves with up to k deletions, possibly more than
// once. On a typo never seen before nearly every probe misses the cache:
// the strings are hashed first, and the first slot of each is loaded in
// a loop that does not branch on what it reads, so that the loads overlap
// rather than wait one after another; the runs are then read from there.
func (x *deleteIndex) candidates(w []rune, k int, sc *lookupScratch, ids []uint32) []uint32 {
	hs := sc.hashes[:0]
	sc.buf = eachDeletion(w, k, sc.buf, func(s []byte) { hs = append(hs, maphash.Bytes(x.seed, s)) })
	first := sc.first[:0]
	for _, h := range hs {
		first = append(first, x.slots[h&x.mask])
	}
	for j, h := range hs {
		fp := fingerprint(h)
		for i, e := h&x.mask, first[j]; e != 0; e = x.slots[i] {
			if e>>32 == fp {
				ids = append(ids, uint32(e))
			}
			i = (i + 1) & x.mask
		}
	}
	sc.hashes, sc.first = hs, first
	return ids
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

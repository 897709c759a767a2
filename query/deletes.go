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

// osaWithin is the optimal string alignment distance of a and b when it is
// at most max, and false otherwise; rows is scratch of at least
// 3*(len(b)+1) cells. Only the band of cells within max of the diagonal
// is computed (a cell off it is more than max edits away, and stands as
// max+1 where the band's edge reads it): five cells a row for two edits.
// Checking candidates is about 40% of finding a typo's close words; most
// words are short, so the band saves less than that suggests (6% of
// BenchmarkSuggest/close_words_found).
func osaWithin(a, b []rune, max int, rows []int) (int, bool) {
	if d := len(a) - len(b); d > max || -d > max {
		return 0, false
	}
	far := max + 1 // any distance past max
	w := len(b) + 1
	before, prev, cur := rows[:w], rows[w:2*w], rows[2*w:3*w]
	for j := range prev {
		prev[j] = min(j, far)
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := i-max, min(i+max, len(b))
		if lo <= 1 {
			lo, cur[0] = 1, min(i, far)
		} else {
			cur[lo-1] = far
		}
		best := cur[lo-1]
		for j := lo; j <= hi; j++ {
			v := prev[j-1]
			if a[i-1] != b[j-1] {
				v++
			}
			v = min(v, prev[j]+1, cur[j-1]+1)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, before[j-2]+1)
			}
			cur[j] = v
			best = min(best, v)
		}
		if hi < len(b) {
			cur[hi+1] = far // the next row's band reaches one further
		}
		if best > max {
			return 0, false
		}
		before, prev, cur = prev, cur, before
	}
	return prev[len(b)], prev[len(b)] <= max
}

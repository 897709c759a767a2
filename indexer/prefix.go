package indexer

import (
	"bytes"
	"unicode/utf8"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
)

// prefixSource yields a prefix bucket from its token bucket, which must be
// written already: one union bitmap for every prefix p, cut at a rune
// boundary, that more than format.PrefixFanout distinct tokens start with
// (p itself included), as the format requires.
//
// Tokens sharing a prefix are contiguous in key order, so each prefix is
// considered once, at its first token (the first whose predecessor does not
// start with it), and its tokens counted and unioned with cursors from
// there. Prefixes come out in bytewise order: a prefix first seen at a later
// token sorts after every earlier token, and a shorter prefix of one token
// before a longer one. Reading the bitmaps back from the file keeps no token
// list in memory.
type prefixSource struct {
	tokens []byte // name of the token bucket
	prev   []byte // the token before cur
	cur    []byte // the token whose prefixes are being considered
	end    int    // byte length of cur's last prefix considered
	// started: cur has been set once; after that, a nil cur is the end.
	started bool
	batch   []*roaring.Bitmap
}

// unionBatch bounds the token bitmaps mapped at once for one union.
const unionBatch = 256

func newPrefixSource(tokens []byte) *prefixSource {
	return &prefixSource{tokens: tokens}
}

func (p *prefixSource) next(tx *bolt.Tx) ([]byte, []byte, error) {
	if p.started && p.cur == nil {
		return nil, nil, nil
	}
	b := tx.Bucket(p.tokens)
	c := b.Cursor()
	if !p.started {
		k, _ := c.First()
		p.cur, p.started = bytes.Clone(k), true
	} else {
		c.Seek(p.cur) // resume where the last call returned
	}
	for p.cur != nil {
		for p.end < len(p.cur) {
			_, size := utf8.DecodeRune(p.cur[p.end:])
			p.end += size
			prefix := p.cur[:p.end]
			if p.prev != nil && bytes.HasPrefix(p.prev, prefix) {
				continue // considered at an earlier token
			}
			if !crowded(b, prefix) {
				break // longer prefixes of cur have even fewer tokens
			}
			v, err := p.union(b, prefix)
			return bytes.Clone(prefix), v, err
		}
		p.prev = p.cur
		k, _ := c.Next()
		p.cur, p.end = bytes.Clone(k), 0
	}
	return nil, nil, nil
}

// crowded reports whether more than format.PrefixFanout tokens of b start
// with prefix.
func crowded(b *bolt.Bucket, prefix []byte) bool {
	c := b.Cursor()
	n := 0
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if n++; n > format.PrefixFanout {
			return true
		}
	}
	return false
}

// union serialises the union of the bitmaps of every token of b that starts
// with prefix. The token bitmaps are mapped from the file, not copied.
func (p *prefixSource) union(b *bolt.Bucket, prefix []byte) ([]byte, error) {
	acc := roaring.New()
	c := b.Cursor()
	for k, v := c.Seek(prefix); ; k, v = c.Next() {
		end := k == nil || !bytes.HasPrefix(k, prefix)
		if !end {
			bm := roaring.New()
			if _, err := bm.FromBuffer(v); err != nil {
				return nil, err
			}
			p.batch = append(p.batch, bm)
		}
		if len(p.batch) == unionBatch || (end && len(p.batch) > 0) {
			acc.Or(roaring.FastOr(p.batch...))
			clear(p.batch)
			p.batch = p.batch[:0]
		}
		if end {
			break
		}
	}
	return encode(acc)
}

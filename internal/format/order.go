package format

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"strings"

	"stationdex/internal/fold"
)

// NameOrder is what record numbers are assigned by (see the package
// comment): the name key, then the folded name, then the UUID bytes, which
// make the order total. The indexer sorts by it and Check verifies it.
type NameOrder struct {
	Key    string // fold.Key(name)
	Folded string // fold.String(name)
	ID     UUID
}

// NameOrderOf is the position of a station's name in the order.
func NameOrderOf(name string, id UUID) NameOrder {
	o, _ := NameOrderTokens(nil, name, id)
	return o
}

// NameOrderTokens is NameOrderOf, with the name's tokens (fold.Tokens)
// appended to dst: the key is those tokens joined by spaces, so the name
// is folded once for both (folding is the costliest step of indexing a
// name).
func NameOrderTokens(dst []string, name string, id UUID) (NameOrder, []string) {
	folded := fold.String(name)
	start := len(dst)
	dst = fold.AppendFoldedTokens(dst, folded)
	return NameOrder{Key: strings.Join(dst[start:], " "), Folded: folded, ID: id}, dst
}

// Compare is -1, 0 or +1 as a sorts before, with, or after b.
func (a NameOrder) Compare(b NameOrder) int {
	return cmp.Or(strings.Compare(a.Key, b.Key), strings.Compare(a.Folded, b.Folded), bytes.Compare(a.ID[:], b.ID[:]))
}

// AppendKey appends a byte string that sorts, under bytes.Compare, exactly
// as o sorts under Compare, for sorters that only compare bytes (the
// indexer's external sort). Each string is written with its zero bytes
// escaped as 00 FF and ends in 00 01, which sorts below any continuation,
// so a string sorts before every longer string it is a prefix of.
func (o NameOrder) AppendKey(dst []byte) []byte {
	dst = appendOrderedString(dst, o.Key)
	dst = appendOrderedString(dst, o.Folded)
	return append(dst, o.ID[:]...)
}

func appendOrderedString(dst []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			break
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, 0, 0xFF)
		s = s[i+1:]
	}
	dst = append(dst, s...)
	return append(dst, 0, 1)
}

// The search's orders other than relevance and name (the record order):
// permutations of the record numbers in BucketSearchOrders, laid out as
// the Radio Browser API's orders are (upstream_orders.go):
//
//	search_orders SearchOrderKey(s, c) -> chunk c of the permutation of
//	            SearchSorts[s]: record numbers c*OrderChunkLen onward of
//	            it (fewer in the last chunk), each 4 bytes little-endian
//
// A permutation lists every record once, sorted by its SearchSortKey
// and then by record number, so that equal keys go by name: a total
// order, so that pages never overlap. The engine walks a permutation
// against a search's matches as it walks the record order for name.

// BucketSearchOrders holds the permutations (see above).
var BucketSearchOrders = []byte("search_orders")

// The stored orders, indexes of SearchSorts.
const (
	SortPopular = iota // the upstream's votes, then its clicks, most first
	SortBitrate        // highest first, unknown last
)

// SearchSorts names the stored orders as the search's sort parameter
// does.
var SearchSorts = [...]string{SortPopular: "popular", SortBitrate: "bitrate"}

// SearchOrderKey appends the key of chunk c of the permutation of
// SearchSorts[s] to dst.
func SearchOrderKey(dst []byte, s int, c uint32) []byte {
	return binary.BigEndian.AppendUint32(append(dst, byte(s)), c)
}

// Popularity is what the popular order sorts by: the upstream
// directory's votes, then its clicks, as of the snapshot (negative
// counts as 0).
type Popularity struct{ Votes, Clicks int64 }

// SearchSortKey is the key of a record in SearchSorts[s], smaller first:
// the popular order by votes, then clicks, most first; the bitrate order
// by bitrate, highest first, unknown (0) last.
func SearchSortKey(s int, p Popularity, bitrateKbps uint32) uint64 {
	if s == SortBitrate {
		return ^uint64(0) - uint64(bitrateKbps)
	}
	votes, clicks := uint64(min(max(p.Votes, 0), 1<<32-1)), uint64(min(max(p.Clicks, 0), 1<<32-1))
	return ^(votes<<32 | clicks)
}

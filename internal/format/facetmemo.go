package format

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"unicode/utf8"
)

// The facet memo (bucket facet_memo): the top values of the counted
// facets of the broadest sets a search can match as they are stored: one
// large posting list (a country, a language, a genre, one query word whose
// stations are one list), or the intersection of two. Their facets cost
// several times the search itself, which decodes only its page, and
// counting them once per snapshot at start-up took 10 s at 5M stations;
// the indexer counts them once, where it sweeps each list's records.
//
// What both sides must agree on is here: which buckets' lists are
// memoised (FacetMemoSources), which facets are counted
// (FacetMemoFacets), the sizes that qualify (FacetMemoMin and the pair
// bounds), the order of a facet's values (FacetOrder, which also numbers
// them) and the keys and values of the bucket:
//
//	MemoListKey(source, key)              -> AppendMemoEntry of that list
//	MemoPairKey(sourceA, keyA, sourceB, keyB) -> of the intersection
//	MemoUnionKey(prefix)                  -> of the union of the lists of
//	                                         BucketAllTokens whose keys
//	                                         start with prefix
//
// A source is an index into FacetMemoSources. A value id is the value's
// place among its facet bucket's keys in FacetOrder.
//
// A union is the set of a query word that has no list of its own in
// BucketAllPrefix: the few tokens (at most PrefixFanout) that start with
// it (mp3, aac, russi, alternative). It is memoised on the same terms as a
// list, once per set of tokens, under the longest prefix its tokens share
// (any word whose tokens they are names the same set).
//
// An entry holds the set's facets twice: counted in stations
// (FacetMemoFacets), and counted in groups (DistinctMemoFacets: every
// facet a search can count), as a distinct search counts them, a value
// counting the groups with an entry in the set that has it (see Groups).
// The search page asks for the latter by default, and counting them for a
// broad set read every grouped entry's values: tens of milliseconds at 5M
// stations.

// BucketFacetMemo holds the facet memo.
var BucketFacetMemo = []byte("facet_memo")

// FacetMemoSource is a bucket whose lists a search intersects as they are
// stored, and the facet its lists filter (an index into FacetMemoFacets;
// -1 for words' lists). Two lists of one facet are never intersected: a
// search has at most one list per filter dimension.
type FacetMemoSource struct {
	Bucket []byte
	Facet  int
}

// FacetMemoFacet is a facet the memo counts: its bucket, and the function
// its keys fold labels by (nil: not folded labels); of a folded facet only
// the Filterable keys are counted (no filter could name the others, so no
// link could count them).
type FacetMemoFacet struct {
	Bucket []byte
	Fold   func(label string) string
}

// The memoised buckets and the counted facets (country, language and
// genre: the facets a search asks for by default and the filters people
// use most).
var (
	FacetMemoSources = []FacetMemoSource{
		{BucketCountries, 0}, {BucketLangCodes, 1}, {BucketLangLabels, 1}, {BucketGenres, 2}, {BucketAllPrefix, -1},
	}
	FacetMemoFacets = []FacetMemoFacet{{BucketCountries, nil}, {BucketLangCodes, FacetKey}, {BucketGenres, GenreKey}}
	// DistinctMemoFacets begins with FacetMemoFacets.
	DistinctMemoFacets = append(FacetMemoFacets[:len(FacetMemoFacets):len(FacetMemoFacets)],
		FacetMemoFacet{BucketLocations, FacetKey}, FacetMemoFacet{BucketCodecs, nil}, FacetMemoFacet{BucketChecks, nil})
)

// Sizes. A list is memoised when it holds at least FacetMemoMin stations
// and not all of them: visiting the records of a few hundred stations
// scattered over the name order already costs as much as a search, and
// the share keeps the number of lists, and so the memo's size, about the
// same at any scale. A pair is memoised when its intersection holds at
// least FacetMemoPairShare times FacetMemoMin and is not one of its lists,
// among the FacetMemoPairLists largest lists, largest first (estimated on
// every n-th record, FacetMemoPairKeys times 65,536 of them),
// until FacetMemoPairBudget records have been counted. A word's list
// pairs only when the word has at least FacetMemoPairWordRunes runes and
// no word one rune longer holds FacetMemoPairCoverTenths tenths of its
// stations: a single letter, or a prefix on the way to a longer word
// ("radi", nearly all "radio"), is not what people search for beside
// another word.
const (
	FacetMemoShare           = 256
	FacetMemoFloor           = 256
	FacetMemoPairShare       = 2
	FacetMemoPairLists       = 256
	FacetMemoPairKeys        = 8
	FacetMemoPairBudget      = 1 << 27
	FacetMemoPairWordRunes   = 2
	FacetMemoPairCoverTenths = 9
	// FacetMemoListLimit and FacetMemoPairLimit are the values kept per
	// facet: a search's largest facet limit for a list, its default for
	// a pair (a larger limit for a pair is counted).
	FacetMemoListLimit = 50
	FacetMemoPairLimit = 10
)

// FacetMemoMin is the smallest list memoised among stations.
func FacetMemoMin(stations int) int { return max(FacetMemoFloor, stations/FacetMemoShare) }

// MaxFilterRunes is the longest language, genre or location filter value,
// in runes.
const MaxFilterRunes = 60

// Filterable reports whether a key of a facet folded by fold can be given
// back as a filter value: not empty, not too long, and its own key.
func Filterable(key string, fold func(string) string) bool {
	return key != "" && utf8.RuneCountInString(key) <= MaxFilterRunes && fold(key) == key
}

// FacetOrder orders a facet's values: most stations first, then by key.
// A facet's value ids are their places in this order.
func FacetOrder(aStations, bStations uint32, aKey, bKey string) int {
	return cmp.Or(cmp.Compare(bStations, aStations), cmp.Compare(aKey, bKey))
}

// Memo key kinds.
const (
	memoList  = 1
	memoPair  = 2
	memoUnion = 3
)

// MemoUnionKey is the key of the memo of the union of the lists of
// BucketAllTokens whose keys start with prefix.
func MemoUnionKey(prefix []byte) []byte {
	return append([]byte{memoUnion}, prefix...)
}

// MemoListKey is the key of the memo of list key of source.
func MemoListKey(source int, key []byte) []byte {
	return append([]byte{memoList, byte(source)}, key...)
}

// MemoPairKey is the key of the memo of the intersection of two lists.
func MemoPairKey(sourceA int, keyA []byte, sourceB int, keyB []byte) []byte {
	k := binary.AppendUvarint([]byte{memoPair, byte(sourceA)}, uint64(len(keyA)))
	k = append(k, keyA...)
	return append(append(k, byte(sourceB)), keyB...)
}

// MemoList is one list a memo key names: with Union, the union of the
// lists of BucketAllTokens whose keys start with Key (Source -1).
type MemoList struct {
	Source int
	Key    []byte
	Union  bool
}

// Bucket is the bucket of l's list, or of the lists of its union.
func (l MemoList) Bucket() []byte {
	if l.Union {
		return BucketAllTokens
	}
	return FacetMemoSources[l.Source].Bucket
}

// ParseMemoKey returns the one or two lists a memo key names.
func ParseMemoKey(k []byte) ([]MemoList, error) {
	bad := fmt.Errorf("%w: facet memo key %x", ErrCorrupt, k)
	if len(k) >= 2 && k[0] == memoUnion { // a word's prefix: never empty
		return []MemoList{{Source: -1, Key: k[1:], Union: true}}, nil
	}
	if len(k) < 2 || int(k[1]) >= len(FacetMemoSources) {
		return nil, bad
	}
	switch k[0] {
	case memoList:
		return []MemoList{{Source: int(k[1]), Key: k[2:]}}, nil
	case memoPair:
		n, w := binary.Uvarint(k[2:])
		rest := k[2+max(w, 0):]
		if w <= 0 || n >= uint64(len(rest)) || int(rest[n]) >= len(FacetMemoSources) {
			return nil, bad
		}
		return []MemoList{{Source: int(k[1]), Key: rest[:n]}, {Source: int(rest[n]), Key: rest[n+1:]}}, nil
	}
	return nil, bad
}

// MemoCount is a value id and its stations in a memoised set.
type MemoCount struct{ ID, N uint32 }

// MemoCounts is the memo of one set: its stations, the values kept per
// facet (Limit), and per counted facet its top values, most first (ties
// by key), at most Limit, none of them empty or unfilterable.
type MemoCounts struct {
	Stations int
	Limit    int
	Facets   [][]MemoCount // one per FacetMemoFacets
}

// AppendMemoCounts encodes m as uvarints: stations, limit, then per facet
// its length and its (id, count) pairs.
func AppendMemoCounts(dst []byte, m *MemoCounts) []byte {
	dst = binary.AppendUvarint(dst, uint64(m.Stations))
	dst = binary.AppendUvarint(dst, uint64(m.Limit))
	for _, f := range m.Facets {
		dst = binary.AppendUvarint(dst, uint64(len(f)))
		for _, c := range f {
			dst = binary.AppendUvarint(binary.AppendUvarint(dst, uint64(c.ID)), uint64(c.N))
		}
	}
	return dst
}

// ParseMemoCounts decodes what AppendMemoCounts wrote, for facets of
// values[f] values each: every id in range, counts not increasing and
// within the set.
func ParseMemoCounts(v []byte, values []int) (MemoCounts, error) {
	d := uvarints{v: v}
	m, err := d.memoCounts(values)
	if err == nil && len(d.v) > 0 {
		err = fmt.Errorf("%w: facet memo value of %d bytes", ErrCorrupt, len(v))
	}
	return m, err
}

// MemoEntry is a memo entry: the set's facets counted in stations
// (Stations: the set's) and in groups (Stations: the set's groups).
type MemoEntry struct {
	Plain, Distinct MemoCounts
}

// AppendMemoEntry encodes e: its plain counts, then its distinct ones.
func AppendMemoEntry(dst []byte, e *MemoEntry) []byte {
	return AppendMemoCounts(AppendMemoCounts(dst, &e.Plain), &e.Distinct)
}

// ParseMemoEntry decodes what AppendMemoEntry wrote, for the facets of
// FacetMemoFacets of values[f] values each and those of
// DistinctMemoFacets of distinctValues[f], as ParseMemoCounts checks
// them; the distinct part has the plain part's limit, and no more groups
// than the set has stations.
func ParseMemoEntry(v []byte, values, distinctValues []int) (MemoEntry, error) {
	d := uvarints{v: v}
	var e MemoEntry
	var err error
	if e.Plain, err = d.memoCounts(values); err != nil {
		return e, err
	}
	if e.Distinct, err = d.memoCounts(distinctValues); err != nil {
		return e, err
	}
	if len(d.v) > 0 || e.Distinct.Limit != e.Plain.Limit || e.Distinct.Stations > e.Plain.Stations {
		return e, fmt.Errorf("%w: facet memo value of %d bytes, limits %d and %d, %d groups of %d stations",
			ErrCorrupt, len(v), e.Plain.Limit, e.Distinct.Limit, e.Distinct.Stations, e.Plain.Stations)
	}
	return e, nil
}

// memoCounts reads one MemoCounts (see ParseMemoCounts).
func (d *uvarints) memoCounts(values []int) (MemoCounts, error) {
	m := MemoCounts{Stations: d.int(), Limit: d.int(), Facets: make([][]MemoCount, len(values))}
	for f := range m.Facets {
		n := d.int()
		if n > m.Limit || n > len(d.v)/2 || d.err {
			return m, fmt.Errorf("%w: facet memo of %d values, limit %d", ErrCorrupt, n, m.Limit)
		}
		m.Facets[f] = make([]MemoCount, n)
		for i := range n {
			c := MemoCount{ID: uint32(d.int()), N: uint32(d.int())}
			if d.err || int(c.ID) >= values[f] || c.N == 0 || int(c.N) > m.Stations || i > 0 && c.N > m.Facets[f][i-1].N {
				return m, fmt.Errorf("%w: facet memo count %v", ErrCorrupt, c)
			}
			m.Facets[f][i] = c
		}
	}
	if d.err {
		return m, fmt.Errorf("%w: facet memo value cut short", ErrCorrupt)
	}
	return m, nil
}

// uvarints reads uvarints until one fails.
type uvarints struct {
	v   []byte
	err bool
}

func (d *uvarints) int() int {
	n, w := binary.Uvarint(d.v)
	if w <= 0 || n > 1<<31 {
		d.err = true
		return 0
	}
	d.v = d.v[w:]
	return int(n)
}

package indexer

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/RoaringBitmap/roaring/v2"

	"stationdex/indexer/fold"
	"stationdex/indexer/format"
	"stationdex/indexer/iso"
)

// postings maps an index key to the record numbers filed under it. Record
// numbers are added in increasing order, so each list is sorted and a
// repeated add for the same station is caught by looking at the last
// element. Plain slices cost 4 bytes a posting while building; they become
// roaring bitmaps one at a time when written.
type postings map[string][]uint32

func (p postings) add(key string, n uint32) {
	if key == "" {
		return // bbolt has no empty keys; such a value cannot be looked up
	}
	l := p[key]
	if len(l) > 0 && l[len(l)-1] == n {
		return
	}
	p[key] = append(l, n)
}

// renumber maps every posting through final and re-sorts the lists. Only
// the lists are changed, so visiting the map in its random order is safe.
func (p postings) renumber(final []uint32) {
	for _, l := range p {
		for i, t := range l {
			l[i] = final[t]
		}
		slices.Sort(l)
	}
}

// sortedKeys lists the keys in bytewise order, the order bbolt stores them
// in and the only order in which the writer may visit a map.
func (p postings) sortedKeys() []string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// postingSet holds the posting lists of every bitmap bucket.
type postingSet struct {
	names      postings // name key -> stations
	nameTokens postings
	allTokens  postings
	countries  postings
	langLabels postings
	langCodes  postings
	genres     postings
	locations  postings

	countryNames map[string]string // ISO code -> English name, memoised
	tokens       []string          // scratch
}

func newPostingSet() *postingSet {
	return &postingSet{
		names: postings{}, nameTokens: postings{}, allTokens: postings{},
		countries: postings{}, langLabels: postings{}, langCodes: postings{},
		genres: postings{}, locations: postings{},
		countryNames: map[string]string{},
	}
}

// renumber moves every posting list from temporary to final numbers.
func (ps *postingSet) renumber(final []uint32) {
	for _, p := range []postings{ps.names, ps.nameTokens, ps.allTokens, ps.countries,
		ps.langLabels, ps.langCodes, ps.genres, ps.locations} {
		p.renumber(final)
	}
}

// addStation files record n under every key of every bucket. nameKey is
// fold.Key(rec.Name), already computed for sorting. Numbers must be added in
// increasing order.
func (ps *postingSet) addStation(n uint32, rec *format.Record, nameKey string) {
	ps.names.add(nameKey, n)
	ps.tokens = fold.AppendTokens(ps.tokens[:0], rec.Name)
	for _, t := range ps.tokens {
		ps.nameTokens.add(t, n)
	}
	ps.addFacets(n, rec)
	ps.addSearchable(n, rec)
}

func (ps *postingSet) addFacets(n uint32, rec *format.Record) {
	ps.countries.add(rec.CountryCode, n)
	ps.locations.add(format.FacetKey(rec.Location), n)
	for _, l := range rec.Languages {
		ps.langLabels.add(format.FacetKey(l), n)
	}
	for _, c := range rec.LanguageCodes {
		ps.langCodes.add(c, n)
	}
	for _, g := range rec.Genres {
		ps.genres.add(format.FacetKey(g), n)
	}
}

// addSearchable files n under the tokens of every field a query word may
// match: name, country label, ISO code and English country name, location,
// language labels and genres.
func (ps *postingSet) addSearchable(n uint32, rec *format.Record) {
	t := ps.tokens // already holds the name tokens
	t = fold.AppendTokens(t, rec.Country)
	t = fold.AppendTokens(t, strings.ToLower(rec.CountryCode))
	t = fold.AppendTokens(t, ps.countryName(rec.CountryCode))
	t = fold.AppendTokens(t, rec.Location)
	for _, l := range rec.Languages {
		t = fold.AppendTokens(t, l)
	}
	for _, g := range rec.Genres {
		t = fold.AppendTokens(t, g)
	}
	for _, tok := range t {
		ps.allTokens.add(tok, n)
	}
	ps.tokens = t
}

func (ps *postingSet) countryName(code string) string {
	if code == "" {
		return ""
	}
	name, ok := ps.countryNames[code]
	if !ok {
		name = iso.CountryName(code)
		ps.countryNames[code] = name
	}
	return name
}

// prefixRange is one prefix posting: prefix p and the range [lo, hi) of the
// sorted token list whose tokens start with p.
type prefixRange struct {
	prefix string
	lo, hi int
}

// prefixRanges finds every prefix p, cut at rune boundaries, that more than
// format.PrefixFanout distinct tokens start with (p itself included), as the
// format requires. tokens must be sorted and distinct. Tokens sharing a
// prefix are contiguous in sorted order, so each prefix is considered once,
// at its first token, and its range found by binary search; no map of all
// prefixes is needed. The result is in bytewise order of prefix: a prefix
// first seen at a later token sorts after every earlier token, and a
// shorter prefix of one token sorts before a longer one.
func prefixRanges(tokens []string) []prefixRange {
	var out []prefixRange
	for lo, tok := range tokens {
		for end := 0; end < len(tok); {
			_, size := utf8.DecodeRuneInString(tok[end:])
			end += size
			p := tok[:end]
			if lo > 0 && strings.HasPrefix(tokens[lo-1], p) {
				continue // counted at an earlier token
			}
			hi := lo + sort.Search(len(tokens)-lo, func(i int) bool {
				return !strings.HasPrefix(tokens[lo+i], p)
			})
			if hi-lo <= format.PrefixFanout {
				break // longer prefixes of tok have even fewer tokens
			}
			out = append(out, prefixRange{p, lo, hi})
		}
	}
	return out
}

// encodeBitmap serialises a sorted posting list as a roaring bitmap in its
// portable format.
func encodeBitmap(list []uint32) ([]byte, error) {
	bm := roaring.New()
	bm.AddMany(list)
	return encode(bm)
}

// encodeUnion serialises the union of the posting lists of keys.
func encodeUnion(p postings, keys []string) ([]byte, error) {
	bm := roaring.New()
	for _, k := range keys {
		bm.AddMany(p[k])
	}
	return encode(bm)
}

// minMeanRun is the mean run length from which a posting list is stored
// run-length encoded. Stations sharing a name are consecutive, so exact-name
// lists are a few long runs; a country or language is scattered over the
// name order, and run-encoding it (which roaring would choose whenever it is
// smaller) yields containers of thousands of one-value runs that are slow to
// combine at query time.
const minMeanRun = 8

func encode(bm *roaring.Bitmap) ([]byte, error) {
	if card := bm.GetCardinality(); card > 0 && card/uint64(runs(bm)) >= minMeanRun {
		bm.RunOptimize()
	}
	return bm.ToBytes()
}

// runs counts the maximal runs of consecutive values in bm.
func runs(bm *roaring.Bitmap) int {
	n, prev := 0, int64(-2)
	it := bm.Iterator()
	for it.HasNext() {
		v := int64(it.Next())
		if v != prev+1 {
			n++
		}
		prev = v
	}
	return n
}

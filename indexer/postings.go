package indexer

import (
	"bytes"
	"encoding/binary"
	"fmt"
	mathbits "math/bits"
	"slices"
	"strings"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/extsort"
	"stationdex/internal/dim"
	"stationdex/internal/fold"
	"stationdex/internal/format"
	"stationdex/internal/iso"
)

// The posting buckets built from records, numbered in the order they are
// written; the number is the first byte of a key in the postings sorter,
// so the merged postings come bucket by bucket in that order. The prefix
// buckets are not here: they are unions of token bitmaps, computed from
// the token buckets once those are written (see prefixSource).
const (
	bNames = iota
	bNameTokens
	bAllTokens
	bGenreSpellings // the genres' spellings, for their labels (genre_labels.go)
	bBitrates
	// The Radio Browser API's buckets (format.SectionRBAPI), written only
	// when the build has that section.
	bUpstreamFlags
	bUpstreamURLs
	bUpstreamCountries
	bNameGrams
	// firstFiling numbers the first bucket of the dimension table's
	// filings (dim.Rows), which follow in the table's order: a new
	// dimension's bucket is numbered and written without a line here.
	firstFiling

	firstCompatPosting = bUpstreamFlags
	// maxPostingBuckets bounds the buckets, fixed and filed, so that the
	// per-bucket tables are arrays.
	maxPostingBuckets = 32
)

// postingBucketNames names every posting bucket by its number, and
// filingBuckets numbers the bucket of each dimension's filings
// (dim.Rows[d].Filings[i]).
var postingBucketNames, filingBuckets = postingBuckets()

func postingBuckets() (names [][]byte, filings [dim.Count][]uint8) {
	names = [][]byte{
		bNames: format.BucketNames, bNameTokens: format.BucketNameTokens, bAllTokens: format.BucketAllTokens,
		bGenreSpellings: format.BucketGenreLabels, bBitrates: format.BucketBitrates,
		bUpstreamFlags: format.BucketRBAPIFlags, bUpstreamURLs: format.BucketRBAPIURLs,
		bUpstreamCountries: format.BucketRBAPICountries, bNameGrams: format.BucketNameGrams,
	}
	for d := range dim.Count {
		for _, f := range dim.Rows[d].Filings {
			b := slices.IndexFunc(names, func(name []byte) bool { return bytes.Equal(name, f.Bucket) })
			if b < 0 {
				b = len(names)
				names = append(names, f.Bucket)
			}
			filings[d] = append(filings[d], uint8(b))
		}
	}
	if len(names) > maxPostingBuckets {
		panic(fmt.Sprintf("indexer: %d posting buckets, more than maxPostingBuckets", len(names)))
	}
	return names, filings
}

// postingBucket is the number of the posting bucket named name.
func postingBucket(name []byte) int {
	return slices.IndexFunc(postingBucketNames, func(n []byte) bool { return bytes.Equal(n, name) })
}

// postingBuffer collects posting lists of temporary record numbers. Lists
// grow in maps until they reach the budget, then go to the postings sorter
// as one run: each key once, its numbers delta-encoded, which is several
// times smaller than the maps. Numbers are added in increasing order, so
// each list is sorted and a repeated add for the same station is caught by
// looking at the last element.
type postingBuffer struct {
	// lists maps each bucket's keys to their lists in held: one map
	// lookup per key filed, where a map of lists took a second to store
	// the grown list back.
	lists  [maxPostingBuckets]map[string]int32
	held   [][]uint32
	mem    int // estimated bytes held by lists
	budget int
	runs   *extsort.Sorter
	mu     *sync.Mutex // held while draining into runs, shared with other buffers

	key, val []byte // scratch
}

// postingFilers are the postings sorter and the posting buffers that fill
// it, one per decoding goroutine of the read pipeline (pipeline.go), each
// with its share of the budget: records are filed on every core, where
// one goroutine filing them all held up the read. A buffer drains into
// the sorter under mu, a run at a time. A key's lists then come from the
// runs of several buffers in no set order, which postingStream.group's
// union does not depend on.
type postingFilers struct {
	mu      sync.Mutex
	runs    *extsort.Sorter
	budget  int // of all buffers
	buffers []*postingBuffer
}

// split makes n buffers, one for each goroutine that files records.
func (p *postingFilers) split(n int) []*postingBuffer {
	for range n {
		p.buffers = append(p.buffers, newPostingBuffer(p.budget/n, p.runs, &p.mu))
	}
	return p.buffers
}

// drain moves what every buffer holds into the sorter, to be merged with
// its runs, and lets the buffers go. The filing goroutines must be done.
func (p *postingFilers) drain() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pb := range p.buffers {
		if err := pb.drain(); err != nil {
			return err
		}
	}
	p.buffers = nil
	return nil
}

func (p *postingFilers) close() { p.runs.Close() }

// mapEntryCost estimates what a new key costs in a map beyond its bytes:
// string and slice headers and the map's own slot.
const mapEntryCost = 64

func newPostingBuffer(budget int, runs *extsort.Sorter, mu *sync.Mutex) *postingBuffer {
	pb := &postingBuffer{budget: budget, runs: runs, mu: mu}
	for i := range pb.lists {
		pb.lists[i] = map[string]int32{}
	}
	return pb
}

func (pb *postingBuffer) add(b int, key string, t uint32) {
	if key == "" {
		return // bbolt has no empty keys; such a value cannot be looked up
	}
	i, ok := pb.lists[b][key]
	if !ok {
		pb.mem += len(key) + mapEntryCost
		i = int32(len(pb.held))
		pb.held = append(pb.held, nil)
		pb.lists[b][key] = i
	} else if l := pb.held[i]; l[len(l)-1] == t {
		return
	}
	l := pb.held[i]
	c := cap(l)
	l = append(l, t)
	pb.mem += 4 * (cap(l) - c)
	pb.held[i] = l
}

// addStation files temporary number t under keys, the station's keys
// (postingKeys). Numbers must be added in increasing order.
func (pb *postingBuffer) addStation(t uint32, keys []postingKey) error {
	for _, k := range keys {
		pb.add(int(k.bucket), k.key, t)
	}
	if pb.mem > pb.budget {
		return pb.flush()
	}
	return nil
}

// postingKey is one key a station is filed under.
type postingKey struct {
	bucket uint8
	key    string
}

// postingKeyer lists the posting keys of stations. Folding and tokenising
// depend on the station alone, so they run on the decoding goroutines (see
// pipeline.go), one postingKeyer each, and only the map updates stay on
// the builder's goroutine.
//
// Folding (fold.String) is the costliest part of filing a station, so it
// is done as seldom as possible: a name is folded once for both its name
// order and its tokens (nameOrder), and what the labels (country,
// location, languages, genres: a small vocabulary, repeated over many
// stations) are filed under is memoised.
type postingKeyer struct {
	countryNames map[string]string // ISO code -> English name, memoised
	labels       map[string]*labelKeys
	nameTokens   []string // the tokens of the name nameOrder last folded
	grams        []string // scratch of nameGramKeys
	// sections: the optional parts of the file whose keys and objects are
	// filed too (Options.Sections).
	sections format.Sections
	tokens   []string // scratch
	values   []string // scratch of a filing's values
}

// labelKeys is what a label is filed under: its facet key (format.FacetKey),
// as a genre its genre key (format.GenreKey) and the spelling key that
// counts it among the genre's spellings, and its tokens.
type labelKeys struct {
	facet, genre, spelling string
	tokens                 []string
}

// maxMemoLabels bounds postingKeyer.labels: past it, the memo starts
// afresh, so that an input of ever new labels costs no more than this.
const maxMemoLabels = 1 << 14

func newPostingKeyer() *postingKeyer {
	return &postingKeyer{countryNames: map[string]string{}, labels: map[string]*labelKeys{}}
}

// nameOrder is format.NameOrderOf(rec.Name, rec.ID), and keeps the name's
// tokens for postingKeys.
func (k *postingKeyer) nameOrder(rec *format.Record) format.NameOrder {
	var o format.NameOrder
	o, k.nameTokens = format.NameOrderTokens(k.nameTokens[:0], rec.Name, rec.ID)
	return o
}

// label returns the keys of label, memoised.
func (k *postingKeyer) label(label string) *labelKeys {
	if lk, ok := k.labels[label]; ok {
		return lk
	}
	if len(k.labels) == maxMemoLabels {
		clear(k.labels)
	}
	lk := &labelKeys{facet: format.FacetKey(label), tokens: fold.Tokens(label)}
	if genre := format.GenreKey(label); genre != "" {
		// The genre key is the spelling key's head: one string, not two.
		lk.spelling = spellingKey(genre, label)
		lk.genre = lk.spelling[:len(genre)]
	}
	k.labels[label] = lk
	return lk
}

// postingKeys appends every key of every bucket that rec is filed under,
// in the order postingBuffer.add is to get them. o is rec's name order,
// from k.nameOrder(rec), which was the last call on k.
func (k *postingKeyer) postingKeys(dst []postingKey, rec *format.Record, o format.NameOrder) []postingKey {
	dst = append(dst, postingKey{bNames, o.Key})
	dst = appendKeys(dst, bNameTokens, k.nameTokens)
	dst = k.appendFacets(dst, rec)
	return appendKeys(dst, bAllTokens, k.searchable(rec))
}

// appendKeys appends keys to dst, all in bucket b.
func appendKeys(dst []postingKey, b uint8, keys []string) []postingKey {
	for _, key := range keys {
		dst = append(dst, postingKey{b, key})
	}
	return dst
}

// appendFacets appends the keys of every filing of the dimension table
// (dim.Rows), and the bitrate's.
func (k *postingKeyer) appendFacets(dst []postingKey, rec *format.Record) []postingKey {
	for d := range dim.Count {
		for i, f := range dim.Rows[d].Filings {
			k.values = f.Values(rec, k.values[:0])
			for _, v := range k.values {
				dst = k.appendFiled(dst, filingBuckets[d][i], v, f.Fold)
			}
		}
	}
	if rec.BitrateKbps > 0 {
		dst = append(dst, postingKey{bBitrates, string(format.BitrateKey(rec.BitrateKbps))})
	}
	return dst
}

// appendFiled appends the key value is filed under in bucket b, folded as
// fold says (memoised); a genre's spelling is counted in its labels bucket.
func (k *postingKeyer) appendFiled(dst []postingKey, b uint8, value string, fold dim.Fold) []postingKey {
	switch fold {
	case dim.FacetFold:
		return append(dst, postingKey{b, k.label(value).facet})
	case dim.GenreFold:
		lk := k.label(value)
		return append(dst, postingKey{b, lk.genre}, postingKey{bGenreSpellings, lk.spelling})
	}
	return append(dst, postingKey{b, value})
}

// searchable lists the tokens of every field a query word may match:
// name, country label, ISO code and English country name, location,
// language labels and genres.
func (k *postingKeyer) searchable(rec *format.Record) []string {
	toks := append(k.tokens[:0], k.nameTokens...)
	toks = append(toks, k.label(rec.Country).tokens...)
	toks = append(toks, k.label(strings.ToLower(rec.CountryCode)).tokens...)
	toks = append(toks, k.label(k.countryName(rec.CountryCode)).tokens...)
	toks = append(toks, k.label(rec.Location).tokens...)
	for _, l := range rec.Languages {
		toks = append(toks, k.label(l).tokens...)
	}
	for _, g := range rec.Genres {
		toks = append(toks, k.label(g).tokens...)
	}
	k.tokens = toks
	return toks
}

func (k *postingKeyer) countryName(code string) string {
	if code == "" {
		return ""
	}
	name, ok := k.countryNames[code]
	if !ok {
		name = iso.CountryName(code)
		k.countryNames[code] = name
	}
	return name
}

// drain moves every list into the sorter and empties the maps; the
// caller holds pb.mu. Map order
// is random, but the sorter orders by key and each key occurs once per
// drain, so the result does not depend on it.
func (pb *postingBuffer) drain() error {
	for b, lists := range pb.lists {
		for key, i := range lists {
			l := pb.held[i]
			pb.key = append(append(pb.key[:0], byte(b)), key...)
			pb.val = pb.val[:0]
			prev := uint32(0)
			for _, t := range l {
				pb.val = binary.AppendUvarint(pb.val, uint64(t-prev))
				prev = t
			}
			if err := pb.runs.Add(pb.key, pb.val); err != nil {
				return err
			}
		}
		clear(lists)
	}
	clear(pb.held)
	pb.held, pb.mem = pb.held[:0], 0
	return nil
}

// flush drains the maps and writes what the sorter holds as a run, so
// that the sorter is empty while the maps fill again: left to write a run
// only when its own share was full, it held that share beside full maps,
// 2 MiB more at the peak under the smallest budget.
func (pb *postingBuffer) flush() error {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	if err := pb.drain(); err != nil {
		return err
	}
	return pb.runs.Flush()
}

// postingStream merges the postings sorter into one bitmap per key, in
// record numbers, bucket by bucket.
type postingStream struct {
	it      *extsort.Iterator
	final   []uint32
	keys    [maxPostingBuckets]int // distinct keys written, per bucket
	pending bool                   // it is on an entry not yet consumed
	scratch []uint32               // record numbers not yet added to the bitmap
	// dense holds a long list's record numbers as bits, one per record,
	// once it has more than scratchMax of them (see addList); lo and hi
	// bound the words set, and inDense says whether the key being read
	// is so held.
	dense   []uint64
	lo, hi  int
	inDense bool
}

// scratchMax is the most record numbers of a key gathered to be sorted;
// past it, the key's list is gathered as bits (dense), which a country or
// a language of millions of stations costs a pass over instead of a sort.
const scratchMax = 1 << 16

// source yields the pairs of bucket b: key -> serialised bitmap. It stops
// at the first key of a later bucket, which it leaves for that bucket's
// source.
func (s *postingStream) source(b int) kvSource {
	return func(*bolt.Tx) ([]byte, []byte, error) {
		for {
			key, bm, err := s.group(b)
			if key == nil || err != nil {
				return nil, nil, err
			}
			if bm.IsEmpty() {
				continue // only dropped duplicates had this key
			}
			s.keys[b]++
			v, err := encode(bm)
			return key, v, err
		}
	}
}

// group reads all entries of the next key of bucket b and returns the key
// and the union of their lists, renumbered; nil when the next key belongs
// to another bucket or there is none.
func (s *postingStream) group(b int) ([]byte, *roaring.Bitmap, error) {
	if !s.pending {
		if !s.it.Next() {
			return nil, nil, s.it.Err()
		}
		s.pending = true
	}
	k := s.it.Key()
	if int(k[0]) != b {
		return nil, nil, nil
	}
	key := bytes.Clone(k[1:])
	bm := roaring.New()
	for {
		if err := s.addList(bm, s.it.Value()); err != nil {
			return nil, nil, fmt.Errorf("postings %q: %w", key, err)
		}
		s.pending = s.it.Next()
		if !s.pending {
			if err := s.it.Err(); err != nil {
				return nil, nil, err
			}
			break
		}
		if k := s.it.Key(); int(k[0]) != b || !bytes.Equal(k[1:], key) {
			break
		}
	}
	if s.inDense {
		s.denseInto(bm)
	} else {
		s.sortInto(bm)
	}
	return key, bm, nil
}

// addList adds the record numbers of one delta-encoded list of temporary
// numbers to bm, leaving out dropped duplicates.
func (s *postingStream) addList(bm *roaring.Bitmap, list []byte) error {
	t := uint64(0)
	for len(list) > 0 {
		d, n := binary.Uvarint(list)
		if n <= 0 || t+d >= uint64(len(s.final)) {
			return fmt.Errorf("damaged posting list")
		}
		t += d
		list = list[n:]
		f := s.final[t]
		switch {
		case f == dropped:
		case s.inDense:
			s.setDense(f)
		default:
			s.scratch = append(s.scratch, f)
			if len(s.scratch) == scratchMax {
				s.toDense()
			}
		}
	}
	return nil
}

func (s *postingStream) sortInto(bm *roaring.Bitmap) {
	slices.Sort(s.scratch)
	bm.AddMany(s.scratch)
	s.scratch = s.scratch[:0]
}

// toDense moves the gathered record numbers into dense, and the rest of
// the key's list goes there too.
func (s *postingStream) toDense() {
	if s.dense == nil {
		s.dense = make([]uint64, (len(s.final)+63)/64)
	}
	s.inDense, s.lo, s.hi = true, len(s.dense), 0
	for _, f := range s.scratch {
		s.setDense(f)
	}
	s.scratch = s.scratch[:0]
}

func (s *postingStream) setDense(f uint32) {
	w := int(f / 64)
	s.dense[w] |= 1 << (f % 64)
	s.lo, s.hi = min(s.lo, w), max(s.hi, w)
}

// denseInto adds the record numbers of dense to bm in ascending order, as
// sortInto would have, and clears dense for the next key.
func (s *postingStream) denseInto(bm *roaring.Bitmap) {
	for w := s.lo; w <= s.hi; w++ {
		for bits := s.dense[w]; bits != 0; bits &= bits - 1 {
			s.scratch = append(s.scratch, uint32(w*64+mathbits.TrailingZeros64(bits)))
		}
		s.dense[w] = 0
		if len(s.scratch) >= scratchMax {
			bm.AddMany(s.scratch)
			s.scratch = s.scratch[:0]
		}
	}
	bm.AddMany(s.scratch)
	s.scratch, s.inDense = s.scratch[:0], false
}

// minMeanRun is the mean run length from which a posting list is stored
// run-length encoded. Stations sharing a name are consecutive, so exact-name
// lists are a few long runs; a country or language is scattered over the
// name order, and run-encoding it (which roaring would choose whenever it is
// smaller) yields containers of thousands of one-value runs that are slow to
// combine at query time.
const minMeanRun = 8

// encode serialises bm in roaring's portable format, run-length encoded
// only where minMeanRun says so, and not even then when its run
// containers would hold many short runs (format.MaxRunContainerBytes): a
// list of long runs with a scattered part (the names holding a digit,
// say) would otherwise be flattened by every search that reads it.
func encode(bm *roaring.Bitmap) ([]byte, error) {
	if card := bm.GetCardinality(); card > 0 && card/uint64(runs(bm)) >= minMeanRun {
		bm.RunOptimize()
		if format.ManyShortRuns(bm) {
			bm = withoutRuns(bm)
		}
	} else if bm.HasRunCompression() {
		bm = withoutRuns(bm)
	}
	return bm.ToBytes()
}

// withoutRuns copies bm into array and bitmap containers only. A union of
// token bitmaps (a prefix posting) inherits the run containers of the
// tokens it is made of, even where over the union runs no longer pay.
func withoutRuns(bm *roaring.Bitmap) *roaring.Bitmap {
	out := roaring.New()
	buf := make([]uint32, 4096)
	it := bm.ManyIterator()
	for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
		out.AddMany(buf[:n])
	}
	return out
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

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

// postingBuffer collects posting lists of temporary record numbers. Keys
// are numbered in maps, and each filing is appended, with its key's
// number, to one list in filing order (filed); until the budget is
// reached, when drain sorts the filings by key number and they go to the
// postings sorter as one run: each key once, its numbers delta-encoded,
// which is several times smaller than the buffer. Numbers are added in
// increasing order, so each key's numbers come out sorted, and a repeated
// add for the same station is dropped there, as the repeat of the number
// before it.
//
// One list of filings instead of a list per key: at 5M stations, most
// keys are rare (a name's words, a location), so appending to a key's own
// list read its slice header and then its last number, two cache misses
// one after the other on top of the map's, and 8.6 of the build's 249
// CPU-seconds; appending to filed touches memory already in the cache.
// Filing the postings of 1M generated stations took 3.8 CPU-seconds
// instead of 5.8 (addStation in stationdex index -cpuprofile).
type postingBuffer struct {
	// lists maps each bucket's keys to their numbers: the place of the
	// key in keys, the list drain visits them in.
	lists  [maxPostingBuckets]map[string]int32
	keys   []bucketKey
	filed  []filedPosting
	mem    int // estimated bytes held by the keys (see held)
	budget int
	runs   *extsort.Sorter
	mu     *sync.Mutex // held while draining into runs, shared with other buffers

	// drain's scratch: where each key's numbers start in sorted, and
	// the numbers in key order
	starts []int32
	sorted []uint32
	key    []byte
	val    []byte
}

// bucketKey is a key numbered in postingBuffer.lists.
type bucketKey struct {
	bucket uint8
	key    string
}

// filedPosting is one filing: a key's number and a temporary record number.
type filedPosting struct {
	key int32
	t   uint32
}

// filingCost is what a filing costs the budget: itself, and its place in
// drain's sorted numbers.
const filingCost = 8 + 4

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
		i = int32(len(pb.keys))
		pb.keys = append(pb.keys, bucketKey{uint8(b), key})
		pb.lists[b][key] = i
	}
	if len(pb.filed) == cap(pb.filed) {
		pb.growFiled()
	}
	pb.filed = append(pb.filed, filedPosting{i, t})
}

// growFiled makes room for more filings: twice as much, but no more than
// the budget holds, so that the buffer's capacity stays within it (past
// it, only the rest of a station's keys are added before the flush).
func (pb *postingBuffer) growFiled() {
	limit := max(pb.budget/filingCost, minFiled)
	more := min(max(cap(pb.filed), minFiled), limit-cap(pb.filed))
	pb.filed = slices.Grow(pb.filed, max(more, minFiled/8))
}

// minFiled is the least room for filings a buffer makes.
const minFiled = 1024

// held is the estimated memory the buffer holds: its keys and filings.
func (pb *postingBuffer) held() int { return pb.mem + len(pb.filed)*filingCost }

// addStation files temporary number t under keys, the station's keys
// (postingKeys). Numbers must be added in increasing order.
func (pb *postingBuffer) addStation(t uint32, keys []postingKey) error {
	for _, k := range keys {
		pb.add(int(k.bucket), k.key, t)
	}
	if pb.held() > pb.budget {
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

// drain moves every key's numbers into the sorter and empties the
// buffer; the caller holds pb.mu. The filings are sorted by key number
// (a counting sort, which keeps each key's numbers in filing order, that
// is increasing), and the keys visited in the order they were numbered;
// the sorter orders by key and each key occurs once per drain, so the
// result does not depend on that order.
func (pb *postingBuffer) drain() error {
	starts := slices.Grow(pb.starts[:0], len(pb.keys)+1)[:len(pb.keys)+1]
	clear(starts)
	for _, f := range pb.filed {
		starts[f.key+1]++
	}
	for i := 1; i < len(starts); i++ {
		starts[i] += starts[i-1]
	}
	sorted := slices.Grow(pb.sorted[:0], len(pb.filed))[:len(pb.filed)]
	for _, f := range pb.filed {
		sorted[starts[f.key]] = f.t
		starts[f.key]++
	}
	from := int32(0) // starts[i] is now where key i's numbers end
	for i, k := range pb.keys {
		pb.key = append(append(pb.key[:0], k.bucket), k.key...)
		pb.val = pb.val[:0]
		prev := uint32(0)
		for j, t := range sorted[from:starts[i]] {
			if j > 0 && t == prev {
				continue // the same station filed twice under the key
			}
			pb.val = binary.AppendUvarint(pb.val, uint64(t-prev))
			prev = t
		}
		from = starts[i]
		if err := pb.runs.Add(pb.key, pb.val); err != nil {
			return err
		}
	}
	for i := range pb.lists {
		clear(pb.lists[i])
	}
	clear(pb.keys) // the keys' strings may go
	pb.starts, pb.sorted = starts, sorted
	pb.keys, pb.filed, pb.mem = pb.keys[:0], pb.filed[:0], 0
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

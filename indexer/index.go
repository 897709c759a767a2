package indexer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"

	"stationdex/indexer/format"
)

// index is a build in memory: the encoded records, in input order, and the
// posting lists of every bitmap bucket. Records are numbered twice: by a
// temporary number in input order while reading, then, once all are read,
// by their final number in name order (finish). Keeping encoded records
// rather than format.Record values makes a record one slice into a shared
// chunk instead of a dozen small allocations.
type index struct {
	baseURL string   // of the stations' URLs in the data dumps
	recs    [][]byte // encoded records by temporary number
	chunk   []byte   // the chunk records are currently appended to
	sortKeys
	ps        *postingSet
	order     []uint32 // final number -> temporary number, after finish
	allTokens []string // sorted keys of ps.allTokens, after finish
	prefixes  []prefixRange
}

// recordChunk is the allocation unit of encoded records.
const recordChunk = 1 << 20

func newIndex() *index {
	return &index{ps: newPostingSet()}
}

// add files one cleaned record under its temporary number.
func (ix *index) add(rec *format.Record) {
	t := uint32(len(ix.recs))
	ix.recs = append(ix.recs, ix.store(rec))
	o := format.NameOrderOf(rec.Name, rec.ID)
	ix.keys = append(ix.keys, o.Key)
	ix.folded = append(ix.folded, o.Folded)
	ix.ps.addStation(t, rec, o.Key)
}

// store encodes rec into the current chunk and returns its bytes, which stay
// valid and unchanged for the life of the index.
func (ix *index) store(rec *format.Record) []byte {
	size := len(format.AppendRecord(ix.chunk[len(ix.chunk):], rec))
	if len(ix.chunk)+size > cap(ix.chunk) {
		ix.chunk = make([]byte, 0, max(recordChunk, size))
	}
	start := len(ix.chunk)
	ix.chunk = format.AppendRecord(ix.chunk, rec)
	return ix.chunk[start:len(ix.chunk):len(ix.chunk)]
}

// finish assigns the final record numbers and renumbers every posting list.
func (ix *index) finish() {
	ix.order = make([]uint32, len(ix.recs))
	for i := range ix.order {
		ix.order[i] = uint32(i)
	}
	slices.SortFunc(ix.order, ix.compare)
	ix.sortKeys = sortKeys{} // needed for sorting only
	final := make([]uint32, len(ix.order))
	for n, t := range ix.order {
		final[t] = uint32(n)
	}
	ix.ps.renumber(final)
	ix.allTokens = ix.ps.allTokens.sortedKeys()
	ix.prefixes = prefixRanges(ix.allTokens)
}

// sortKeys hold, by temporary number, what the name order compares.
type sortKeys struct {
	keys   []string // fold.Key(name)
	folded []string // fold.String(name)
}

// compare orders temporary numbers by format.NameOrder, the order that
// defines record numbers.
func (ix *index) compare(a, b uint32) int {
	return ix.nameOrder(a).Compare(ix.nameOrder(b))
}

func (ix *index) nameOrder(t uint32) format.NameOrder {
	return format.NameOrder{Key: ix.keys[t], Folded: ix.folded[t], ID: format.UUID(ix.id(t))}
}

// id is the UUID of the record with temporary number t: the codec puts it
// first.
func (ix *index) id(t uint32) []byte {
	return ix.recs[t][:len(format.UUID{})]
}

// meta describes the index for the meta bucket.
func (ix *index) meta(sum Summary, source string) format.Meta {
	return format.Meta{
		SchemaVersion: format.SchemaVersion,
		SnapshotAt:    sum.SnapshotAt,
		Source:        source,
		Stations:      len(ix.order),
		Tokens:        len(ix.ps.allTokens),
		Countries:     len(ix.ps.countries),
		Languages:     len(ix.ps.langLabels),
		Genres:        len(ix.ps.genres),
		Skipped:       sum.Skipped,
		BuiltBy:       builtBy(),
	}
}

// builtBy names the program, its module version and the Go version. It has
// no time and no VCS state, so that rebuilding gives the same contents.
func builtBy() string {
	mod := "stationdex"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path != "" {
		mod = bi.Main.Path
		if bi.Main.Version != "" {
			mod += "@" + bi.Main.Version
		}
	}
	return "stationdex-indexer " + mod + " " + runtime.Version()
}

// write writes the whole index to path through a temporary file.
func (ix *index) write(ctx context.Context, path string, meta format.Meta) error {
	f, err := createIndexFile(path)
	if err != nil {
		return err
	}
	for _, bucket := range ix.buckets(meta) {
		b := bucket()
		if err := f.putSorted(ctx, b.name, b.n, b.kv); err != nil {
			return f.fail(fmt.Errorf("write index: %w", err))
		}
	}
	return f.commit()
}

// bucketWriter is one bucket's contents as a sorted sequence.
type bucketWriter struct {
	name []byte
	n    int
	kv   kvFunc
}

// buckets lists the contents of every bucket in format.AllBuckets order.
// Each is prepared only when its turn comes, so that what one bucket needs
// while being written (sorted keys, the data dumps) is not held during the
// others.
func (ix *index) buckets(meta format.Meta) []func() bucketWriter {
	ps := ix.ps
	return []func() bucketWriter{
		func() bucketWriter { return ix.metaBucket(meta) },
		ix.stationsBucket,
		ix.idsBucket,
		func() bucketWriter { return postingBucket(format.BucketNames, ps.names, ps.names.sortedKeys()) },
		func() bucketWriter {
			return postingBucket(format.BucketNameTokens, ps.nameTokens, ps.nameTokens.sortedKeys())
		},
		func() bucketWriter { return prefixBucket(format.BucketNamePrefix, ps.nameTokens) },
		func() bucketWriter { return postingBucket(format.BucketAllTokens, ps.allTokens, ix.allTokens) },
		ix.allPrefixBucket,
		func() bucketWriter {
			return postingBucket(format.BucketCountries, ps.countries, ps.countries.sortedKeys())
		},
		func() bucketWriter {
			return postingBucket(format.BucketLangLabels, ps.langLabels, ps.langLabels.sortedKeys())
		},
		func() bucketWriter {
			return postingBucket(format.BucketLangCodes, ps.langCodes, ps.langCodes.sortedKeys())
		},
		func() bucketWriter { return postingBucket(format.BucketGenres, ps.genres, ps.genres.sortedKeys()) },
		func() bucketWriter {
			return postingBucket(format.BucketLocations, ps.locations, ps.locations.sortedKeys())
		},
		func() bucketWriter {
			ix.releasePostings() // all written by now; the dumps need only records
			return ix.filesBucket(ix.baseURL)
		},
	}
}

// releasePostings lets the garbage collector take the posting lists once
// their buckets are written.
func (ix *index) releasePostings() {
	*ix.ps = postingSet{}
	ix.allTokens, ix.prefixes = nil, nil
}

func (ix *index) metaBucket(meta format.Meta) bucketWriter {
	doc, err := json.Marshal(meta)
	kvs := [][2][]byte{ // ascending: format < meta < version
		{format.KeyFormat, []byte(format.Magic)},
		{format.KeyMeta, doc},
		{format.KeyVersion, []byte(strconv.Itoa(format.Version))},
	}
	return bucketWriter{format.BucketMeta, len(kvs), func(i int) ([]byte, []byte, error) {
		if err != nil {
			return nil, nil, fmt.Errorf("meta: %w", err)
		}
		return kvs[i][0], kvs[i][1], nil
	}}
}

// stationsBucket writes the records in record-number order, in blocks of
// format.RecordsPerBlock.
func (ix *index) stationsBucket() bucketWriter {
	n := len(ix.order)
	blocks := (n + format.RecordsPerBlock - 1) / format.RecordsPerBlock
	recs := make([][]byte, 0, format.RecordsPerBlock)
	return bucketWriter{format.BucketStations, blocks, func(b int) ([]byte, []byte, error) {
		recs = recs[:0]
		for i := b * format.RecordsPerBlock; i < min(n, (b+1)*format.RecordsPerBlock); i++ {
			recs = append(recs, ix.recs[ix.order[i]])
		}
		// A new buffer per block: bbolt keeps referring to a value until
		// its transaction commits.
		return format.BlockKey(uint32(b)), format.AppendBlock(nil, recs), nil
	}}
}

// idsBucket maps UUIDs, in byte order, to record numbers.
func (ix *index) idsBucket() bucketWriter {
	byID := make([]uint32, len(ix.order))
	for n := range byID {
		byID[n] = uint32(n)
	}
	slices.SortFunc(byID, func(a, b uint32) int {
		return bytes.Compare(ix.id(ix.order[a]), ix.id(ix.order[b]))
	})
	return bucketWriter{format.BucketIDs, len(byID), func(i int) ([]byte, []byte, error) {
		n := byID[i]
		return ix.id(ix.order[n]), format.RecordKey(n), nil
	}}
}

func postingBucket(name []byte, p postings, keys []string) bucketWriter {
	return bucketWriter{name, len(keys), func(i int) ([]byte, []byte, error) {
		v, err := encodeBitmap(p[keys[i]])
		return []byte(keys[i]), v, err
	}}
}

func (ix *index) allPrefixBucket() bucketWriter {
	return rangesBucket(format.BucketAllPrefix, ix.ps.allTokens, ix.allTokens, ix.prefixes)
}

func prefixBucket(name []byte, p postings) bucketWriter {
	keys := p.sortedKeys()
	return rangesBucket(name, p, keys, prefixRanges(keys))
}

// rangesBucket writes one union bitmap per prefix range of tokens.
func rangesBucket(name []byte, p postings, tokens []string, ranges []prefixRange) bucketWriter {
	return bucketWriter{name, len(ranges), func(i int) ([]byte, []byte, error) {
		r := ranges[i]
		v, err := encodeUnion(p, tokens[r.lo:r.hi])
		return []byte(r.prefix), v, err
	}}
}

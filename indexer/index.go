package indexer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"

	"stationdex/indexer/fold"
	"stationdex/indexer/format"
)

// index is a build in memory: the records in final order (record number n is
// recs[n]) and the posting lists of every bitmap bucket.
type index struct {
	recs      []format.Record
	nameKeys  []string // fold.Key of each record's name
	ps        *postingSet
	allTokens []string // sorted keys of ps.allTokens
	prefixes  []prefixRange
}

// newIndex sorts recs in place into presentation order and collects the
// postings.
func newIndex(recs []format.Record) *index {
	byName := newNameOrder(recs)
	sort.Sort(byName)
	ix := &index{recs: recs, nameKeys: byName.keys, ps: newPostingSet()}
	for n := range recs {
		ix.ps.addStation(uint32(n), &recs[n], ix.nameKeys[n])
	}
	ix.allTokens = ix.ps.allTokens.sortedKeys()
	ix.prefixes = prefixRanges(ix.allTokens)
	return ix
}

// nameOrder sorts records by (name key, folded name, UUID bytes), the order
// that defines record numbers. The last component makes it total.
type nameOrder struct {
	recs   []format.Record
	keys   []string
	folded []string
}

func newNameOrder(recs []format.Record) *nameOrder {
	o := &nameOrder{recs: recs, keys: make([]string, len(recs)), folded: make([]string, len(recs))}
	for i := range recs {
		o.keys[i] = fold.Key(recs[i].Name)
		o.folded[i] = fold.String(recs[i].Name)
	}
	return o
}

func (o *nameOrder) Len() int { return len(o.recs) }

func (o *nameOrder) Less(i, j int) bool {
	if o.keys[i] != o.keys[j] {
		return o.keys[i] < o.keys[j]
	}
	if o.folded[i] != o.folded[j] {
		return o.folded[i] < o.folded[j]
	}
	return bytes.Compare(o.recs[i].ID[:], o.recs[j].ID[:]) < 0
}

func (o *nameOrder) Swap(i, j int) {
	o.recs[i], o.recs[j] = o.recs[j], o.recs[i]
	o.keys[i], o.keys[j] = o.keys[j], o.keys[i]
	o.folded[i], o.folded[j] = o.folded[j], o.folded[i]
}

// meta describes the index for the meta bucket.
func (ix *index) meta(sum Summary, source string) format.Meta {
	return format.Meta{
		SchemaVersion: format.SchemaVersion,
		SnapshotAt:    sum.SnapshotAt,
		Source:        source,
		Stations:      len(ix.recs),
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
	for _, b := range ix.buckets(meta) {
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
func (ix *index) buckets(meta format.Meta) []bucketWriter {
	ps := ix.ps
	return []bucketWriter{
		ix.metaBucket(meta),
		ix.stationsBucket(),
		ix.idsBucket(),
		postingBucket(format.BucketNames, ps.names, ps.names.sortedKeys()),
		postingBucket(format.BucketNameTokens, ps.nameTokens, ps.nameTokens.sortedKeys()),
		prefixBucket(format.BucketNamePrefix, ps.nameTokens),
		postingBucket(format.BucketAllTokens, ps.allTokens, ix.allTokens),
		ix.allPrefixBucket(),
		postingBucket(format.BucketCountries, ps.countries, ps.countries.sortedKeys()),
		postingBucket(format.BucketLangLabels, ps.langLabels, ps.langLabels.sortedKeys()),
		postingBucket(format.BucketLangCodes, ps.langCodes, ps.langCodes.sortedKeys()),
		postingBucket(format.BucketGenres, ps.genres, ps.genres.sortedKeys()),
		postingBucket(format.BucketLocations, ps.locations, ps.locations.sortedKeys()),
	}
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

func (ix *index) stationsBucket() bucketWriter {
	return bucketWriter{format.BucketStations, len(ix.recs), func(i int) ([]byte, []byte, error) {
		return format.RecordKey(uint32(i)), format.AppendRecord(nil, &ix.recs[i]), nil
	}}
}

// idsBucket maps UUIDs, in byte order, to record numbers.
func (ix *index) idsBucket() bucketWriter {
	order := make([]uint32, len(ix.recs))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int {
		return bytes.Compare(ix.recs[a].ID[:], ix.recs[b].ID[:])
	})
	return bucketWriter{format.BucketIDs, len(order), func(i int) ([]byte, []byte, error) {
		n := order[i]
		id := ix.recs[n].ID
		return id[:], format.RecordKey(n), nil
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

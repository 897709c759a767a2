// Package check verifies a whole index file beyond what Open verifies:
// what `stationdex check` runs (see Check).
//
// File map:
//   - check.go: Check, the report, the walk of the steps, records, ids,
//     bitmaps, prefix fan-out, meta counts and stored files
//   - facet_memo.go: the facet memo is what the engine counts
//   - geo_dictionary.go: the geo cells, the typo dictionary and its reach
//   - nearby.go: each station's stored nearest stations are its nearest
//   - groups.go: groups, group_of, listed groups, word groups, genre labels
//   - rbapi.go: the Radio Browser API's section: its objects and orders
//   - search_orders.go: the search's stored orders (popular, bitrate)
package check

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/query/core"
)

// Report is what Check verified about an index file.
type Report struct {
	Path    string
	Version int
	Meta    format.Meta
	// Buckets: every bucket of format.AllBuckets, in that order, then
	// those of format.RBAPIBuckets if the index has them (Meta.RBAPI).
	Buckets []BucketCount
	Bitmaps int // posting lists deserialised and validated
	Records int // station records decoded
	Files   int // stored files whose size and digest match the manifest
}

// BucketCount is the number of keys in one bucket.
type BucketCount struct {
	Name string
	Keys int
}

// Check verifies a whole index file, beyond what Open verifies (the page
// tree and the checksums, which prove the file is as written): every record decodes, record numbers are dense
// and in name order, ids and stations agree, every station's stored JSON
// is its record's (checkStationJSON), the Radio Browser API's stored orders
// list every record once in order (checkRBAPIOrders), so do the search's
// (checkSearchOrders), every bitmap deserialises,
// passes roaring's Validate and holds only existing record numbers, prefix
// postings follow the PrefixFanout rule, the counts match the meta
// document, groups and group_of agree and follow the representative rule,
// listed_groups counts what group_of gives, every genre has one label
// that is a spelling of it (groups.go), every station's stored nearest
// stations are its nearest (nearby.go), and the stored files are
// whole and match their manifest.
// Errors wrap format.ErrNotIndex, format.ErrVersion, format.ErrCorrupt or
// the operating system's error.
func Check(path string) (Report, error) {
	ix, err := core.Open(path) // pages and checksums first (pagetree.Verify)
	if err != nil {
		return Report{}, err
	}
	defer func() { _ = ix.Close() }() // opened read-only: nothing to lose
	rep := Report{Path: path, Version: format.Version, Meta: ix.Meta()}
	err = ix.View(func(tx *bolt.Tx) error {
		c := &checker{ix: ix, tx: tx, rep: &rep, stations: uint32(ix.Meta().Stations)}
		return c.run()
	})
	if err != nil {
		return rep, fmt.Errorf("check index %s: %w", path, err)
	}
	return rep, nil
}

// checker walks one index inside a read transaction.
type checker struct {
	ix       *core.Index
	tx       *bolt.Tx
	rep      *Report
	stations uint32
	bm       roaring.Bitmap
	bitrates []uint32 // by record number (checkRecords)
}

func (c *checker) run() error {
	for _, step := range []func() error{
		c.countBuckets, c.checkRecords, c.checkStationJSON, c.checkRBAPIObjects, c.checkRBAPIOrders, c.checkSearchOrders, c.checkIDs, c.checkBitmaps,
		c.checkFanout, c.checkMetaCounts, c.checkGroups, c.checkListedGroups, c.checkWordGroups, c.checkGenreLabels,
		c.checkGeo, c.checkNearby, c.checkDictionary, c.checkReach, c.checkFacetMemo, c.checkFiles,
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

func (c *checker) countBuckets() error {
	for _, name := range c.buckets() {
		keys := c.tx.Bucket(name).Stats().KeyN
		c.rep.Buckets = append(c.rep.Buckets, BucketCount{Name: string(name), Keys: keys})
	}
	return nil
}

// buckets are the buckets the index has: format.AllBuckets, and
// format.RBAPIBuckets with the compatible data (Open verified either).
func (c *checker) buckets() [][]byte {
	if !c.ix.Has(format.SectionRBAPI) {
		return format.AllBuckets
	}
	return slices.Concat(format.AllBuckets, format.RBAPIBuckets)
}

func (c *checker) keys(bucket []byte) int {
	for _, b := range c.rep.Buckets {
		if b.Name == string(bucket) {
			return b.Keys
		}
	}
	return 0
}

// checkRecords decodes every record, block by block, and checks numbering,
// name order and the way back through the ids bucket.
func (c *checker) checkRecords() error {
	var prev format.NameOrder
	var want uint32
	cur := c.tx.Bucket(format.BucketStations).Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		b, err := format.ParseRecordKey(k)
		if err != nil {
			return err
		}
		if first, _ := format.BlockOf(want); b != first || want%format.RecordsPerBlock != 0 {
			return fmt.Errorf("%w: record block %d where block %d was due (after a short block?)", format.ErrCorrupt, b, first)
		}
		n, err := format.BlockLen(v)
		if err != nil {
			return fmt.Errorf("block %d: %w", b, err)
		}
		for slot := range n {
			if err := c.checkRecord(v, slot, want, &prev); err != nil {
				return err
			}
			want++
		}
	}
	c.rep.Records = int(want)
	if want != c.stations {
		return fmt.Errorf("%w: %d records, meta announces %d", format.ErrCorrupt, want, c.stations)
	}
	return nil
}

// checkRecord decodes record n from slot of its block and checks it comes
// after prev in name order and is found again through its id.
func (c *checker) checkRecord(block []byte, slot int, n uint32, prev *format.NameOrder) error {
	v, err := format.BlockRecord(block, slot)
	if err != nil {
		return fmt.Errorf("record %d: %w", n, err)
	}
	var r format.Record
	if err := format.DecodeRecord(v, &r); err != nil {
		return fmt.Errorf("record %d: %w", n, err)
	}
	if back := c.tx.Bucket(format.BucketIDs).Get(r.ID[:]); !bytes.Equal(back, format.RecordKey(n)) {
		return fmt.Errorf("%w: record %d (%s) has ids entry %x", format.ErrCorrupt, n, r.ID, back)
	}
	key := format.NameOrderOf(r.Name, r.ID)
	if n > 0 && prev.Compare(key) >= 0 {
		return fmt.Errorf("%w: record %d (%q) is not after record %d in name order", format.ErrCorrupt, n, r.Name, n-1)
	}
	*prev = key
	c.bitrates = append(c.bitrates, r.BitrateKbps)
	return nil
}

// checkIDs: with every record found through its own id, equal counts and
// well-formed entries make ids and stations a bijection.
func (c *checker) checkIDs() error {
	if n := c.keys(format.BucketIDs); n != int(c.stations) {
		return fmt.Errorf("%w: %d ids for %d stations", format.ErrCorrupt, n, c.stations)
	}
	return c.tx.Bucket(format.BucketIDs).ForEach(func(k, v []byte) error {
		if len(k) != len(format.UUID{}) || len(v) != 4 {
			return fmt.Errorf("%w: ids entry %x -> %x", format.ErrCorrupt, k, v)
		}
		return nil
	})
}

func (c *checker) checkBitmaps() error {
	postings := format.PostingBuckets
	if c.ix.Has(format.SectionRBAPI) {
		postings = slices.Concat(postings, format.RBAPIPostingBuckets)
	}
	for _, name := range postings {
		err := c.tx.Bucket(name).ForEach(func(k, v []byte) error {
			if err := c.checkBitmap(v); err != nil {
				return fmt.Errorf("%w: bucket %s, key %q: %v", format.ErrCorrupt, name, k, err)
			}
			c.rep.Bitmaps++
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *checker) checkBitmap(v []byte) error {
	defer c.bm.Clear() // drop references into the mapping
	n, err := c.bm.FromBuffer(v)
	if err != nil {
		return err
	}
	if n != int64(len(v)) {
		return fmt.Errorf("%d trailing bytes", int64(len(v))-n)
	}
	if err := c.bm.Validate(); err != nil {
		return err
	}
	if c.bm.IsEmpty() {
		return fmt.Errorf("empty posting list")
	}
	if max := c.bm.Maximum(); max >= c.stations {
		return fmt.Errorf("record number %d, only %d stations", max, c.stations)
	}
	return nil
}

// checkFanout verifies the promise readers rely on: a prefix with more
// than PrefixFanout tokens has an entry in the prefix bucket. Tokens are
// sorted, so the prefixes shared by more than PrefixFanout tokens are
// exactly the prefixes of the common prefix of tokens i and i+PrefixFanout.
func (c *checker) checkFanout() error {
	for _, ns := range []core.Namespace{core.NameSpace, core.AllSpace} {
		if err := c.checkFanoutIn(ns); err != nil {
			return err
		}
	}
	return nil
}

func (c *checker) checkFanoutIn(ns core.Namespace) error {
	prefixes := c.tx.Bucket(ns.Prefix)
	window := make([][]byte, 0, format.PrefixFanout+1)
	cur := c.tx.Bucket(ns.Tokens).Cursor()
	for k, _ := cur.First(); k != nil; k, _ = cur.Next() {
		window = append(window, k) // bbolt keys stay valid for the transaction
		if len(window) <= format.PrefixFanout {
			continue
		}
		shared := commonPrefix(window[0], window[format.PrefixFanout])
		for p := range runePrefixes(shared) {
			if prefixes.Get(p) == nil {
				return fmt.Errorf("%w: %d or more tokens of %s start with %q but %s has no entry",
					format.ErrCorrupt, format.PrefixFanout+1, ns.Tokens, p, ns.Prefix)
			}
		}
		window = append(window[:0], window[1:]...)
	}
	return nil
}

func commonPrefix(a, b []byte) []byte {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(a) && !utf8.RuneStart(a[n]) {
		n-- // prefixes are cut at rune boundaries
	}
	return a[:n]
}

// runePrefixes yields the non-empty prefixes of s cut at rune boundaries.
func runePrefixes(s []byte) func(func([]byte) bool) {
	return func(yield func([]byte) bool) {
		for i := 1; i <= len(s); i++ {
			if (i == len(s) || utf8.RuneStart(s[i])) && !yield(s[:i]) {
				return
			}
		}
	}
}

func (c *checker) checkMetaCounts() error {
	m := c.rep.Meta
	for _, want := range []struct {
		what   string
		bucket []byte
		meta   int
	}{
		{"tokens", format.BucketAllTokens, m.Tokens},
		{"countries", format.BucketCountries, m.Countries},
		{"languages", format.BucketLangLabels, m.Languages},
		{"genres", format.BucketGenres, m.Genres},
	} {
		if got := c.keys(want.bucket); got != want.meta {
			return fmt.Errorf("%w: meta counts %d %s, bucket %s has %d", format.ErrCorrupt, want.meta, want.what, want.bucket, got)
		}
	}
	return nil
}

// checkFiles verifies the stored data dumps against their manifest: every
// key of the files bucket is a chunk of the manifest or of a file it lists,
// and every listed file is there whole, with its size and digest.
func (c *checker) checkFiles() error {
	files := c.tx.Bucket(format.BucketFiles) // Open saw every bucket of format.AllBuckets
	m, err := core.ReadManifest(files)
	if errors.Is(err, core.ErrNoFile) {
		return fmt.Errorf("%w: files manifest missing", format.ErrCorrupt)
	}
	if err != nil {
		return err
	}
	if err := checkFileKeys(files, &m); err != nil {
		return err
	}
	for _, f := range m.Files {
		if err := checkFile(files, f); err != nil {
			return err
		}
		c.rep.Files++
	}
	return nil
}

// checkFileKeys walks every key of the files bucket. Reading a file visits
// only its own keys, so this is what finds keys no reader would ever meet:
// malformed keys, files the manifest does not list, chunks past a gap.
func checkFileKeys(files *bolt.Bucket, m *format.FilesManifest) error {
	listed := map[string]bool{format.FileManifest: true}
	for _, f := range m.Files {
		listed[f.Key] = true
	}
	// Names hold no zero byte, so the chunks of one file are contiguous
	// in key order: a name once left does not come back.
	var name string
	var next uint32
	cur := files.Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		n, i, err := format.ParseFileChunkKey(k)
		if err != nil {
			return err
		}
		switch {
		case !listed[n]:
			return fmt.Errorf("%w: files key %q: file %q is not in the manifest", format.ErrCorrupt, k, n)
		case v == nil:
			return fmt.Errorf("%w: files key %q is a bucket", format.ErrCorrupt, k)
		case len(v) > format.FileChunkSize:
			return fmt.Errorf("%w: files key %q: chunk of %d bytes, at most %d allowed", format.ErrCorrupt, k, len(v), format.FileChunkSize)
		}
		if n != name {
			name, next = n, 0
		}
		if i != next {
			return fmt.Errorf("%w: files key %q: chunk %d of %q where chunk %d was due", format.ErrCorrupt, k, i, n, next)
		}
		next++
	}
	return nil
}

// checkFile verifies one listed file's size and digest, hashing chunk by
// chunk: a dump is hundreds of megabytes and is never held whole.
func checkFile(files *bolt.Bucket, f format.FileInfo) error {
	r, err := core.FileChunks(files, f.Key)
	if errors.Is(err, core.ErrNoFile) {
		return fmt.Errorf("%w: file %q missing", format.ErrCorrupt, f.Key)
	}
	if err != nil {
		return err
	}
	if size := r.Size(); size != f.GzipSize {
		return fmt.Errorf("%w: file %q: %d bytes, manifest says %d", format.ErrCorrupt, f.Key, size, f.GzipSize)
	}
	h := sha256.New()
	for _, chunk := range r.Chunks {
		h.Write(chunk) // a hash.Hash never returns an error
	}
	if hex.EncodeToString(h.Sum(nil)) != f.GzipSHA256 {
		return fmt.Errorf("%w: file %q: sha256 differs from the manifest", format.ErrCorrupt, f.Key)
	}
	return nil
}

// checkStationJSON: the station_json bucket has a block for every record
// block, of the same length, and every stored station is exactly
// stationjson.AppendStored of its record. So it is valid JSON of the
// right station (the record was checked against its id), and an index
// whose stored JSON a newer encoder would write differently (a stale
// index) fails here rather than serving the old shape.
func (c *checker) checkStationJSON() error {
	if j, r := c.keys(format.BucketStationJSON), c.keys(format.BucketStations); j != r {
		return fmt.Errorf("%w: %d station JSON blocks for %d record blocks", format.ErrCorrupt, j, r)
	}
	records := c.tx.Bucket(format.BucketStations)
	cur := c.tx.Bucket(format.BucketStationJSON).Cursor()
	var r format.Record
	var want []byte
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		b, err := format.ParseRecordKey(k)
		if err != nil {
			return err
		}
		recs := records.Get(k)
		if recs == nil {
			return fmt.Errorf("%w: station JSON block %d has no record block", format.ErrCorrupt, b)
		}
		n, err := format.BlockLen(v)
		if err != nil {
			return fmt.Errorf("station JSON block %d: %w", b, err)
		}
		if m, err := format.BlockLen(recs); err != nil || m != n {
			return fmt.Errorf("%w: station JSON block %d holds %d stations, its record block %d", format.ErrCorrupt, b, n, m)
		}
		for slot := range n {
			num := b*format.RecordsPerBlock + uint32(slot)
			js, err := format.BlockRecord(v, slot)
			if err != nil {
				return fmt.Errorf("station JSON %d: %w", num, err)
			}
			rec, err := format.BlockRecord(recs, slot)
			if err != nil {
				return fmt.Errorf("record %d: %w", num, err)
			}
			if err := format.DecodeRecord(rec, &r); err != nil {
				return fmt.Errorf("record %d: %w", num, err)
			}
			want = stationjson.AppendStored(want[:0], &r)
			if !bytes.Equal(js, want) {
				return fmt.Errorf("%w: station %d (%s): stored JSON is not its record's", format.ErrCorrupt, num, r.ID)
			}
		}
	}
	return nil
}

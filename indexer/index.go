package indexer

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/extsort"
	"stationdex/internal/format"
)

// builder is a build in progress. Reading only appends: every cleaned
// record goes, under a temporary number t, its place in the input, into
// external sorters, so that memory stays within Options.MemoryBudget
// whatever the input size:
//
//   - order: NameOrder key -> t and the encoded record. Merged, it yields
//     the records in record-number order, ready to be cut into blocks.
//   - ids: UUID, t -> check/change time. Merged, equal UUIDs are adjacent
//     with the first occurrence first: that settles duplicates and the
//     snapshot time, and later yields the ids bucket in key order.
//   - postings (postingFilers, filled as records are decoded): bucket and
//     key -> lists of t.
//   - rels: relation key -> t, for grouping entries (groups.go).
//
// The structures that grow with the input are final, 4 bytes per
// record: temporary number -> record number, filled in while the stations
// bucket is written and used to renumber the ids and posting lists; and
// parent, 4 bytes per record, the grouping's union-find (groups.go).
type builder struct {
	order *extsort.Sorter
	ids   *extsort.Sorter
	ps    *postingFilers
	rels  *extsort.Sorter // relation key -> t
	ranks *classRanks     // class and rank -> t (joinRelations, idsSource)
	geo   []geoPoint      // stations with coordinates, by temporary number
	tmp   string          // the sorters' directory

	parent []uint32 // union-find over t, then each record's group
	// groupCount and groupedEntries count the groups of more than one
	// entry and their entries, for the meta document.
	groupCount, groupedEntries int

	// The sorters' runs merged in the background once reading is done
	// (compactAhead): each waits for its sorter's merge.
	orderCompacted, relsCompacted, postingsCompacted func() error
	spilled                                          int // runs written while reading

	temps uint32   // 1 + the last temporary number: records read, skipped ones too
	final []uint32 // temporary number -> record number, or dropped
	// duplicates marks the dropped records too, a bit each, for the
	// grouping, which runs while the stations bucket fills in final
	// (joinAhead).
	duplicates []uint64
	// joined waits for the grouping's joins (joinAhead).
	joined func() error
	kept   int // records after de-duplication
	dups   int
	// newest is the newest check or change time among kept records.
	newest time.Time

	// keys counts the distinct keys written per posting bucket, for the
	// meta document.
	keys [maxPostingBuckets]int
	// sorts are the records' keys in the search's stored orders
	// (search_orders), gathered as the stations bucket is written.
	sorts searchSortKeys
	// sections: the optional parts of the file to write (Options.Sections).
	sections format.Sections
	budget   int // bytes, shared out among the sorters
	clock    phaseClock
	key, val []byte // scratch
}

// dropped marks, in builder.final, a record left out as a duplicate.
const dropped = math.MaxUint32

// Shares of Options.MemoryBudget. The order sorter carries whole records,
// the bulk of the data; posting lists are buffered twice (as lists in maps,
// then compactly encoded in their sorter) and need room in both.
const (
	orderShare        = 5.0 / 16
	groupsShare       = 1.0 / 16 // the relations sorter, then the ranks sorter
	idsShare          = 1.0 / 8
	postingsShare     = 1.0 / 4
	postingRunsShare  = 1.0 / 4
	defaultBudget     = 128 << 20
	minimumBudget     = 4 << 20
	maxTemporaryCount = dropped - 1
)

func newBuilder(tmp string, budget int) *builder {
	if budget <= 0 {
		budget = defaultBudget
	}
	budget = max(budget, minimumBudget)
	b := &builder{budget: budget, tmp: tmp}
	b.order = extsort.New(tmp, b.share(orderShare))
	b.ids = extsort.New(tmp, b.share(idsShare))
	b.rels = extsort.New(tmp, b.share(groupsShare))
	b.ps = &postingFilers{budget: b.share(postingsShare), runs: extsort.New(tmp, b.share(postingRunsShare))}
	return b
}

// share is fraction f of the memory budget, in bytes.
func (b *builder) share(f float64) int { return int(float64(b.budget) * f) }

// runs is the number of sorted runs the sorters have spilled to disk.
func (b *builder) runs() int {
	return b.order.Runs() + b.ids.Runs() + b.ps.runs.Runs() + b.rels.Runs()
}

// close releases the sorters' buffers and files.
func (b *builder) close() {
	if b.postingsCompacted != nil {
		_ = b.postingsCompacted() // the last merged: all are done; a failed build has an error already
	}
	if b.joined != nil {
		_ = b.joined()
	}
	b.order.Close()
	b.ids.Close()
	b.ps.close()
	b.rels.Close()
	if b.ranks != nil {
		b.ranks.close()
	}
}

// add files one cleaned record, with its check/change time, under
// temporary number t, its place in the input (rawBatch.temporary); f is
// the record's filing, its postings already filed (rawBatch.decode).
func (b *builder) add(t uint32, rec *format.Record, f *filing, at time.Time) error {
	b.temps = t + 1 // skipped records leave gaps, never looked up
	b.val = appendOrderValue(binary.BigEndian.AppendUint32(b.val[:0], t), f)
	if err := b.order.Add(f.order, b.val); err != nil {
		return err
	}
	b.key = binary.BigEndian.AppendUint32(append(b.key[:0], rec.ID[:]...), t)
	b.val = appendRankInfo(appendTime(b.val[:0], at), rec)
	if err := b.ids.Add(b.key, b.val); err != nil {
		return err
	}
	if err := b.addRelations(t, f.stream, f.station); err != nil {
		return err
	}
	if rec.Geo.Known {
		b.geo = append(b.geo, geoPoint{t: t, lat: rec.Geo.Lat, lon: rec.Geo.Lon})
	}
	return nil
}

// appendOrderValue appends the value a record is sorted into name order
// with, after its temporary number: its popularity (appendPopularity),
// the record's length as a uvarint,
// the record (format.AppendRecord) and its upstream object. Both go to
// their buckets in record order (stationsSource).
func appendOrderValue(dst []byte, f *filing) []byte {
	dst = appendPopularity(dst, f.pop)
	dst = binary.AppendUvarint(dst, uint64(len(f.record)))
	dst = append(dst, f.record...)
	return append(dst, f.upstream...)
}

// splitOrderValue undoes appendOrderValue, after the temporary number.
func splitOrderValue(v []byte) (record, upstream []byte, pop format.Popularity, err error) {
	if pop, v, err = splitPopularity(v); err != nil {
		return nil, nil, pop, err
	}
	n, size := binary.Uvarint(v)
	if size <= 0 || n > uint64(len(v)-size) {
		return nil, nil, pop, errors.New("internal error: malformed name-order value")
	}
	v = v[size:]
	return v[:n], v[n:], pop, nil
}

// dedup walks the ids in order: the first occurrence of a UUID (lowest
// temporary number) is kept, later ones are dropped. It sizes final and
// marks the dropped records in it.
func (b *builder) dedup() error {
	b.final = make([]uint32, b.temps)
	b.duplicates = make([]uint64, (b.temps+63)/64)
	it, err := b.ids.Iter()
	if err != nil {
		return err
	}
	defer it.Close()
	var prev format.UUID
	for first := true; it.Next(); first = false {
		id, t := splitIDKey(it.Key())
		if !first && bytes.Equal(id, prev[:]) {
			b.final[t] = dropped
			b.duplicates[t/64] |= 1 << (t % 64)
			b.dups++
			continue
		}
		copy(prev[:], id)
		b.kept++
		if at := decodeTime(it.Value()); at.After(b.newest) {
			b.newest = at
		}
	}
	return it.Err()
}

// splitIDKey splits an ids-sorter key into UUID and temporary number.
func splitIDKey(k []byte) (id []byte, t uint32) {
	n := len(format.UUID{})
	return k[:n], binary.BigEndian.Uint32(k[n:])
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

// write writes the whole index to path through a temporary file. The
// buckets are written in one pass over each sorter; meta goes last because
// its counts are only known once the posting buckets are written.
func (b *builder) write(ctx context.Context, path, tmp string, meta format.Meta, baseURL string, progress io.Writer) error {
	f, err := createIndexFile(path, batchBytesFor(b.budget))
	if err != nil {
		return err
	}
	f.progress = progress
	dump, err := newDumpWriter(tmp, baseURL)
	if err != nil {
		return f.fail(err)
	}
	defer dump.abort()
	var up *upstreamSpill // nil: no upstream objects (no format.SectionRBAPI)
	if b.sections.Has(format.SectionRBAPI) {
		if up, err = newUpstreamSpill(tmp); err != nil {
			return f.fail(err)
		}
		defer up.close()
	}
	b.clock.begin("stations and ids")
	storedJSON, err := b.writeRecords(ctx, f, dump, up)
	if err != nil {
		return f.fail(err)
	}
	b.clock.begin("search orders")
	if err := f.putSorted(ctx, format.BucketSearchOrders, b.sorts.source(b.kept)); err != nil {
		return f.fail(err)
	}
	b.clock.begin("postings")
	if err := b.postingsCompacted(); err != nil {
		return f.fail(err)
	}
	if err := b.writePostings(ctx, f); err != nil {
		return f.fail(err)
	}
	b.clock.begin("groups")
	if err := b.writeGroups(ctx, f); err != nil {
		return f.fail(err)
	}
	b.clock.begin("facet memo: read")
	memo, err := startFacetMemo(ctx, f.db, b.kept) // counted while the next buckets are written
	if err != nil {
		return f.fail(err)
	}
	if err := b.writeDerived(ctx, f); err != nil {
		return f.fail(err)
	}
	b.clock.begin("station_json")
	if err := f.putSortedAhead(ctx, format.BucketStationJSON, storedJSON); err != nil {
		return f.fail(err)
	}
	if up != nil {
		b.clock.begin("rbapi")
		if err := b.writeUpstream(ctx, f, up); err != nil {
			return f.fail(err)
		}
	}
	b.clock.begin("facet memo: count")
	if err := f.putSorted(ctx, format.BucketFacetMemo, memo.source()); err != nil {
		return f.fail(err)
	}
	b.clock.begin("data dumps")
	files, err := dump.finish()
	if err != nil {
		return f.fail(fmt.Errorf("data dumps: %w", err))
	}
	if err := f.putSorted(ctx, format.BucketFiles, files.next); err != nil {
		return f.fail(err)
	}
	b.clock.begin("meta and sync")
	meta.Tokens = b.keys[bAllTokens]
	meta.Countries = b.keys[postingBucket(format.BucketCountries)]
	meta.Languages = b.keys[postingBucket(format.BucketLangLabels)]
	meta.Genres = b.keys[postingBucket(format.BucketGenres)]
	meta.Groups, meta.GroupedStations = b.groupCount, b.groupedEntries
	if err := f.putSorted(ctx, format.BucketMeta, metaSource(meta, f.sums)); err != nil {
		return f.fail(err)
	}
	return f.commit()
}

// writeUpstream writes the upstream objects and their orders, both
// from the spill (upstream_orders.go); the orders' sorter has the share
// of the budget the name-order sorter had.
func (b *builder) writeUpstream(ctx context.Context, f *indexFile, up *upstreamSpill) error {
	sorter, err := up.sortOrders(b.tmp, b.share(orderShare), b.kept)
	if err != nil {
		return err
	}
	defer sorter.Close()
	upstreamJSON, err := up.blocks()
	if err != nil {
		return fmt.Errorf("upstream objects: %w", err)
	}
	if err := f.putSortedAhead(ctx, format.BucketRBAPIJSON, upstreamJSON); err != nil {
		return err
	}
	it, err := sorter.Iter()
	if err != nil {
		return fmt.Errorf("upstream orders: %w", err)
	}
	defer it.Close()
	orders := &ordersSource{it: it, records: b.kept}
	return f.putSortedAhead(ctx, format.BucketRBAPIOrders, orders.next)
}

// writeDerived writes the buckets made from the ones written before:
// the group counts of each directory value and broad word, the
// positions and each station's nearest stations and the typo dictionary.
// (The facet memo, derived too, is counted meanwhile: startFacetMemo.)
func (b *builder) writeDerived(ctx context.Context, f *indexFile) error {
	groupOf := b.parent[:b.kept] // writeGroups left each record's group there
	b.clock.begin("listed groups")
	listed := &listedGroupsSource{tally: groupTally{groupOf: groupOf}}
	if err := f.putSorted(ctx, format.BucketListedGroups, listed.next); err != nil {
		return err
	}
	if err := f.putSorted(ctx, format.BucketWordGroups, wordGroupsSource(groupOf)); err != nil {
		return err
	}
	b.clock.begin("geo and nearby")
	points := b.numberedGeo()
	if err := f.putSorted(ctx, format.BucketGeo, geoSource(points)); err != nil {
		return err
	}
	if err := f.putSorted(ctx, format.BucketNearby, nearbySource(points, b.kept)); err != nil {
		return err
	}
	b.clock.begin("dictionary")
	return f.putSorted(ctx, format.BucketDictionary, dictionarySource(format.BucketAllTokens, format.BucketAllPrefix))
}

// compactAhead merges the runs of the order, relations and postings
// sorters (extsort.Sorter.Compact) on a goroutine of its own, one after
// another in the order they are read: the stations bucket, the joins
// running beside it (joinAhead), the posting buckets. Each Iter would
// otherwise do it on the goroutine that needs the records: the merges
// rewrite most of those sorters' runs once, and while de-duplication
// keeps one core busy, the other has nothing else to do.
func (b *builder) compactAhead() {
	w := compactInTurn(b.order, b.rels, b.ps.runs)
	b.orderCompacted, b.relsCompacted, b.postingsCompacted = w[0], w[1], w[2]
}

// joinAhead runs the grouping's joins (joinRelations) on a goroutine of
// its own, from the end of de-duplication until the ids bucket, whose
// pass ranks the classes. Between reading and the stations bucket they
// held up the build on one core; beside the stations bucket's writer and
// encoder they take what those leave of the cores. They read only the
// relations sorter and duplicates, and write only the union-find and the
// ranks, which nothing else touches meanwhile.
func (b *builder) joinAhead() {
	done := make(chan error, 1)
	go func() { done <- b.joinRelations() }()
	b.joined = sync.OnceValue(func() error { return <-done })
}

// compactInTurn compacts sorters one after another on a goroutine, and
// returns for each a function that waits for its compaction and returns
// its error. Nothing else may touch a sorter until its wait returns.
func compactInTurn(sorters ...*extsort.Sorter) []func() error {
	waits := make([]func() error, len(sorters))
	done := make([]chan error, len(sorters))
	for i := range sorters {
		done[i] = make(chan error, 1)
		waits[i] = sync.OnceValue(func() error { return <-done[i] })
	}
	go func() {
		for i, s := range sorters {
			done[i] <- s.Compact()
		}
	}()
	return waits
}

// writeRecords writes the stations bucket, assigning record numbers, then
// the ids bucket, which needs them. Once the stations bucket is written,
// the data dumps are made in the background (dumpWriter.startDumps); it
// returns the contents of the station_json bucket.
func (b *builder) writeRecords(ctx context.Context, f *indexFile, dump *dumpWriter, up *upstreamSpill) (kvSource, error) {
	if err := b.orderCompacted(); err != nil {
		return nil, err
	}
	it, err := b.order.Iter()
	if err != nil {
		return nil, err
	}
	b.sorts.grow(b.kept)
	st := &stationsSource{it: it, final: b.final, dump: dump, upstream: up, sorts: &b.sorts}
	err = f.putSortedAhead(ctx, format.BucketStations, st.next) // the merge beside bbolt
	it.Close()
	if err != nil {
		return nil, err
	}
	if int(st.n) != b.kept {
		return nil, fmt.Errorf("internal error: %d records in name order, %d after de-duplication", st.n, b.kept)
	}
	b.order.Close() // its buffer is the largest share of the budget
	b.sorts.sortAhead()
	storedJSON, err := dump.startDumps()
	if err != nil {
		return nil, fmt.Errorf("data dumps: %w", err)
	}
	if err := b.joined(); err != nil { // the ids bucket's pass ranks the classes
		return nil, err
	}
	if it, err = b.ids.Iter(); err != nil {
		return nil, err
	}
	defer it.Close()
	return storedJSON, f.putSortedAhead(ctx, format.BucketIDs, idsSource(it, b.final, b.ranks))
}

// stationsSource yields the stations bucket: the order sorter's records,
// duplicates left out, in blocks of format.RecordsPerBlock. Each record
// also goes to the data dumps, which are in record order too.
type stationsSource struct {
	it    *extsort.Iterator
	final []uint32
	dump  *dumpWriter
	// upstream receives each record's upstream object, in record order;
	// nil in a build without format.SectionRBAPI.
	upstream *upstreamSpill
	sorts    *searchSortKeys // each record's keys in the search's orders
	n        uint32          // record number of the next record
	recs     [][]byte        // the block being filled
	data     []byte          // its records' bytes
}

func (s *stationsSource) next(*bolt.Tx) ([]byte, []byte, error) {
	block := s.n / format.RecordsPerBlock
	s.recs, s.data = s.recs[:0], s.data[:0]
	var offs [format.RecordsPerBlock + 1]int
	for len(s.recs) < format.RecordsPerBlock && s.it.Next() {
		v := s.it.Value()
		t := binary.BigEndian.Uint32(v)
		if s.final[t] == dropped {
			continue
		}
		s.final[t] = s.n
		s.n++
		rec, up, pop, err := splitOrderValue(v[4:])
		if err != nil {
			return nil, nil, err
		}
		if err := s.sorts.add(rec, pop); err != nil {
			return nil, nil, err
		}
		if s.upstream != nil {
			if err := s.upstream.add(up); err != nil {
				return nil, nil, fmt.Errorf("upstream objects: %w", err)
			}
		}
		s.data = append(s.data, rec...)
		s.recs = append(s.recs, nil)
		offs[len(s.recs)] = len(s.data)
	}
	if err := s.it.Err(); err != nil || len(s.recs) == 0 {
		return nil, nil, err
	}
	for i := range s.recs { // s.data may have moved while growing
		s.recs[i] = s.data[offs[i]:offs[i+1]]
	}
	// A new buffer per block: bbolt refers to a value until commit, and
	// the dumps read it on their own goroutine.
	v := format.AppendBlock(make([]byte, 0, 4*(len(s.recs)+2)+len(s.data)), s.recs)
	s.dump.addBlock(v)
	return format.BlockKey(block), v, nil
}

// idsSource yields the ids bucket, UUID -> record number, from the ids
// sorter: the first entry of each UUID is the record kept. It also hands
// every kept entry to the ranking.
func idsSource(it *extsort.Iterator, final []uint32, ranks *classRanks) kvSource {
	return func(*bolt.Tx) ([]byte, []byte, error) {
		for it.Next() {
			id, t := splitIDKey(it.Key())
			n := final[t]
			if n == dropped {
				continue
			}
			if err := ranks.add(t, id, it.Value()[timeLen:]); err != nil {
				return nil, nil, err
			}
			return bytes.Clone(id), format.RecordKey(n), nil
		}
		return nil, nil, it.Err()
	}
}

// metaSource yields the meta bucket, written last: its checksums document
// lists the sums of every bucket written before (sums) and of the meta
// bucket's own other pairs.
func metaSource(meta format.Meta, sums []format.BucketSum) kvSource {
	doc, err := json.Marshal(meta)
	kvs := [][2][]byte{ // ascending: checksums < format < meta < version
		{format.KeyChecksums, nil},
		{format.KeyFormat, []byte(format.Magic)},
		{format.KeyMeta, doc},
		{format.KeyVersion, []byte(strconv.Itoa(format.Version))},
	}
	var own format.Summer
	for _, kv := range kvs[1:] {
		own.Add(kv[0], kv[1])
	}
	if err == nil {
		kvs[0][1], err = format.EncodeChecksums(append(slices.Clone(sums), own.Sum(format.BucketMeta)))
	}
	return func(*bolt.Tx) ([]byte, []byte, error) {
		if err != nil {
			return nil, nil, fmt.Errorf("meta: %w", err)
		}
		if len(kvs) == 0 {
			return nil, nil, nil
		}
		kv := kvs[0]
		kvs = kvs[1:]
		return kv[0], kv[1], nil
	}
}

// writePostings writes the posting buckets, merged from the postings
// sorter, and after each token bucket its prefix bucket.
func (b *builder) writePostings(ctx context.Context, f *indexFile) error {
	it, err := b.ps.runs.Iter()
	if err != nil {
		return err
	}
	defer it.Close()
	s := &postingStream{it: it, final: b.final}
	for bk, name := range postingBucketNames {
		if firstCompatPosting <= bk && bk < firstFiling && !b.sections.Has(format.SectionRBAPI) {
			continue // none filed (postingKeyer.sections); a stray key fails below
		}
		src := s.source(bk)
		if bk == bGenreSpellings {
			src = s.genreLabelSource()
		}
		if err := f.putSortedAhead(ctx, name, src); err != nil {
			return err
		}
		var prefixes []byte
		switch bk {
		case bNameTokens:
			prefixes = format.BucketNamePrefix
		case bAllTokens:
			prefixes = format.BucketAllPrefix
		default:
			continue
		}
		if err := f.putSorted(ctx, prefixes, newPrefixSource(name).next); err != nil {
			return err
		}
	}
	if s.pending {
		return fmt.Errorf("internal error: posting key %q after the last bucket", it.Key())
	}
	b.keys = s.keys
	return nil
}

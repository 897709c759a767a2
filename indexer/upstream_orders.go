package indexer

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/extsort"
	"stationdex/internal/format"
)

// The Radio Browser API's orders (format.BucketRBAPIOrders): once the
// stations bucket is written, the upstream objects are read back from
// their spill, in record order, and every object's sort key of every
// stored order (format.AppendRBAPISortKey) goes into one external
// sorter, keyed by the order's number and the sort key, valued by the
// record number. The sorter is stable and the objects come in record
// order, so equal values come out by record number: the merged sorter
// yields each permutation in turn, ready to be cut into chunks. Its
// memory is the share the name-order sorter had, closed by then.

// sortOrders reads the spill's objects and files them in a sorter of
// budget bytes, which it returns; the caller closes it.
func (s *upstreamSpill) sortOrders(tmp string, budget, records int) (*extsort.Sorter, error) {
	if err := s.finish(); err != nil {
		return nil, err
	}
	r, err := s.reader()
	if err != nil {
		return nil, err
	}
	sorter := extsort.New(tmp, budget)
	if err := fileOrders(sorter, r, records); err != nil {
		_ = sorter.Close() // failed: its runs go with the temporary directory
		return nil, fmt.Errorf("upstream orders: %w", err)
	}
	return sorter, nil
}

// fileOrders adds the sort keys of every object of r to sorter, each
// valued by its record number, 4 bytes little-endian as stored.
func fileOrders(sorter *extsort.Sorter, r io.Reader, records int) error {
	var js, key []byte
	var rec [4]byte
	for n := 0; ; n++ {
		var err error
		if js, err = readStored(r, js[:0]); err == io.EOF {
			if n != records {
				return fmt.Errorf("internal error: %d upstream objects for %d records", n, records)
			}
			return nil
		} else if err != nil {
			return err
		}
		binary.LittleEndian.PutUint32(rec[:], uint32(n))
		for o := range format.RBAPISorts {
			if key, err = format.AppendRBAPISortKey(append(key[:0], byte(o)), js, o); err != nil {
				return fmt.Errorf("record %d: %w", n, err)
			}
			if err := sorter.Add(key, rec[:]); err != nil {
				return err
			}
		}
	}
}

// ordersSource yields the upstream_orders bucket from the sorter
// sortOrders filled: each order's record numbers in chunks of
// format.OrderChunkLen, every order holding every one of records.
type ordersSource struct {
	it      *extsort.Iterator
	records int
	order   int    // of the pending pair or the chunk being cut
	chunk   uint32 // the next chunk's number
	held    int    // record numbers of order yielded so far
	pending bool   // it holds a pair not yet taken
}

func (s *ordersSource) next(*bolt.Tx) ([]byte, []byte, error) {
	var buf []byte // a new one each time: bbolt holds values until commit
	for len(buf) < 4*format.OrderChunkLen && (s.pending || s.it.Next()) {
		s.pending = false
		if o := int(s.it.Key()[0]); o != s.order {
			if len(buf) > 0 {
				s.pending = true // the next chunk's
				break
			}
			if err := s.complete(); err != nil {
				return nil, nil, err
			}
			s.order, s.chunk, s.held = o, 0, 0
		}
		buf = append(buf, s.it.Value()...)
	}
	if err := s.it.Err(); err != nil {
		return nil, nil, err
	}
	if len(buf) == 0 {
		if s.order != len(format.RBAPISorts)-1 && s.records > 0 {
			return nil, nil, fmt.Errorf("internal error: upstream orders end at order %d", s.order)
		}
		return nil, nil, s.complete()
	}
	k := format.RBAPIOrderKey(s.order, s.chunk)
	s.chunk++
	s.held += len(buf) / 4
	return k, buf, nil
}

// complete checks that the current order held every record.
func (s *ordersSource) complete() error {
	if s.held != s.records {
		return fmt.Errorf("internal error: order %s of %d records, not %d", format.RBAPISorts[s.order].Name, s.held, s.records)
	}
	return nil
}

// The search's stored orders (format.BucketSearchOrders): as the
// stations bucket is written, in record order, each record's key in
// every order (format.SearchSortKey) is kept, 8 bytes a record and
// order; once written, each order's permutation is the record numbers
// sorted by key, then by number, cut into chunks.

// searchSortKeys are the records' keys in the stored search orders, by
// record number.
type searchSortKeys struct {
	keys [len(format.SearchSorts)][]uint64
	// perms are the orders' permutations once sorted is closed
	// (sortAhead); sorted is nil until sortAhead starts.
	perms  [len(format.SearchSorts)][]uint32
	sorted chan struct{}
}

// sortAhead sorts every order's permutation on a goroutine of its own,
// once every record's keys are in (the stations bucket is written): the
// sorts, seconds at millions of records, then run beside the ids
// bucket's writer instead of holding up the search_orders bucket's.
func (k *searchSortKeys) sortAhead() {
	k.sorted = make(chan struct{})
	go func() {
		defer close(k.sorted)
		for s, keys := range k.keys {
			k.perms[s] = permutation(keys)
		}
	}()
}

// permutation is the record numbers sorted by key, then by number.
func permutation(keys []uint64) []uint32 {
	perm := make([]uint32, len(keys))
	for i := range perm {
		perm[i] = uint32(i)
	}
	slices.SortFunc(perm, func(a, b uint32) int { return cmp.Or(cmp.Compare(keys[a], keys[b]), cmp.Compare(a, b)) })
	return perm
}

// grow makes room for the keys of n records, so that adding them does
// not copy every order's keys over and over as they grow.
func (k *searchSortKeys) grow(n int) {
	for s := range k.keys {
		k.keys[s] = slices.Grow(k.keys[s], n)
	}
}

// add keeps the keys of the next record, rec as format.AppendRecord
// encoded it.
func (k *searchSortKeys) add(rec []byte, pop format.Popularity) error {
	bitrate, err := recordBitrate(rec)
	if err != nil {
		return err
	}
	for s := range k.keys {
		k.keys[s] = append(k.keys[s], format.SearchSortKey(s, pop, bitrate))
	}
	return nil
}

// recordBitrate reads the bitrate of an encoded record: the UUID's 16
// bytes, then the bitrate as a uvarint (format.AppendRecord).
func recordBitrate(rec []byte) (uint32, error) {
	if len(rec) > 16 {
		if n, size := binary.Uvarint(rec[16:]); size > 0 && n <= 1<<32-1 {
			return uint32(n), nil
		}
	}
	return 0, errors.New("internal error: malformed record in name order")
}

// source yields the search_orders bucket: each order's permutation of
// the records, in chunks of format.OrderChunkLen. It sorts them first
// unless sortAhead did.
func (k *searchSortKeys) source(records int) kvSource {
	s, c := 0, uint32(0)
	var perm []uint32
	return func(*bolt.Tx) ([]byte, []byte, error) {
		if k.sorted == nil {
			k.sortAhead()
		}
		<-k.sorted
		for s < len(k.keys) {
			keys := k.keys[s]
			if len(keys) != records {
				return nil, nil, fmt.Errorf("internal error: order %s of %d records, not %d", format.SearchSorts[s], len(keys), records)
			}
			if perm == nil {
				perm = k.perms[s]
			}
			first := int(c) * format.OrderChunkLen
			if first >= records {
				k.perms[s], k.keys[s] = nil, nil // written
				s, c, perm = s+1, 0, nil
				continue
			}
			chunk := make([]byte, 0, 4*min(format.OrderChunkLen, records-first)) // bbolt holds values until commit
			for _, n := range perm[first:min(first+format.OrderChunkLen, records)] {
				chunk = binary.LittleEndian.AppendUint32(chunk, n)
			}
			key := format.SearchOrderKey(nil, s, c)
			c++
			return key, chunk, nil
		}
		return nil, nil, nil
	}
}

// appendPopularity appends p to a name-order value: the votes and the
// clicks as uvarints, negative as 0.
func appendPopularity(dst []byte, p format.Popularity) []byte {
	dst = binary.AppendUvarint(dst, uint64(max(p.Votes, 0)))
	return binary.AppendUvarint(dst, uint64(max(p.Clicks, 0)))
}

// splitPopularity undoes appendPopularity at the start of v.
func splitPopularity(v []byte) (format.Popularity, []byte, error) {
	votes, n := binary.Uvarint(v)
	if n <= 0 {
		return format.Popularity{}, nil, errors.New("internal error: malformed name-order value")
	}
	clicks, m := binary.Uvarint(v[n:])
	if m <= 0 {
		return format.Popularity{}, nil, errors.New("internal error: malformed name-order value")
	}
	return format.Popularity{Votes: int64(min(votes, 1<<62)), Clicks: int64(min(clicks, 1<<62))}, v[n+m:], nil
}

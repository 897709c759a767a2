package core

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"stationdex/internal/fold"
	"sync"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
)

// The directory: browsing the buckets of a dimension (countries, language
// labels, genres, locations) instead of searching them. The HTML
// directory pages and the sitemap are built on these calls; like Search
// they decode only the records of the page asked for. Keys are those of
// the dimension's directory bucket: ISO alpha-2 upper case for countries,
// format.FacetKey of the label for the others.

// ErrNoDirectory: a dimension the directory does not list (a caller bug).
var ErrNoDirectory = errors.New("no directory of that dimension")

// directoryBucket is the bucket the directory lists d from.
func directoryBucket(d Dim) ([]byte, error) {
	if !d.HasDirectory() {
		return nil, fmt.Errorf("%w: %s", ErrNoDirectory, d.Name())
	}
	return Dims[d].Directory, nil
}

// Listing is one value of a dimension as the directory lists it: its key,
// a label for people, the number of stations filed under it (entries of
// the directory) and the number of groups among them (the stations they
// stand for; see package format).
type Listing struct {
	Key      string
	Label    string
	Stations int
	Groups   int
}

// Listings returns the number of values of d and the values at
// [offset, offset+limit) in order o, each with its label and count.
func (ix *Index) Listings(d Dim, o Order, offset, limit int) (total int, vals []Listing, err error) {
	entries, err := ordered(ix, d, o)
	if err != nil {
		return 0, nil, err
	}
	page := entries[min(max(offset, 0), len(entries)):min(max(offset, 0)+max(limit, 0), len(entries))]
	bucket := Dims[d].Directory // ordered checked d
	err = ix.WithSearch(func(s *Search) error {
		lr, values := s.listingReader(d), s.Bucket(bucket)
		for _, e := range page {
			key := s.KeyOf(e.key)
			l, err := lr.listing(s.Work, d, key, values.Get(key))
			if err != nil {
				return err
			}
			vals = append(vals, l)
		}
		return nil
	})
	return len(entries), vals, err
}

// Listing looks one key of d up; ok is false when no station has it.
func (ix *Index) Listing(d Dim, key string) (l Listing, ok bool, err error) {
	bucket, err := directoryBucket(d)
	if err != nil {
		return l, false, err
	}
	err = ix.WithSearch(func(s *Search) error {
		k := s.KeyOf(key)
		v := s.Lookup(bucket, k)
		if v == nil {
			return nil
		}
		l, err = s.listingReader(d).listing(s.Work, d, k, v)
		ok = err == nil
		return err
	})
	return l, ok, err
}

// listingReader reads what listing needs for the values of one
// dimension, through the page tree, each bucket opened once.
type listingReader struct {
	groups           ListedGroups
	stations, labels ValueGetter // labels nil for a row without them
}

func (s *Search) listingReader(d Dim) *listingReader {
	lr := &listingReader{groups: ListedGroups{c: s.Bucket(format.BucketListedGroups)}, stations: s.Bucket(format.BucketStations)}
	if Dims[d].Labels != nil {
		lr.labels = s.Bucket(Dims[d].Labels)
	}
	return lr
}

// listing counts the stations of one key and their groups, and labels
// it: by the label the row's labels bucket holds for it (a genre's
// commonest spelling), else as the first station (alphabetically) filed
// under the key spells it where the key is folded from labels, else by
// the row's name for it (countries by their English names).
func (lr *listingReader) listing(w *workspace, d Dim, k, v []byte) (Listing, error) {
	s, err := w.View(v)
	if err != nil {
		return Listing{}, fmt.Errorf("%s %q: %w", d.Name(), k, err)
	}
	l := Listing{Key: string(k), Label: string(k), Stations: s.Card()}
	if l.Groups, err = lr.groups.Of(Dims[d].Directory, k); err != nil {
		return Listing{}, err
	}
	switch {
	case lr.labels != nil:
		l.Label = labelIn(lr.labels, l.Key)
	case Dims[d].Spelled == nil:
		l.Label, _ = FacetName(d, l.Key)
	case !s.Empty():
		var r format.Record
		if err := DecodeRecord(lr.stations, s.BM.Minimum(), &r); err != nil {
			return Listing{}, err
		}
		l.Label = Spelling(d, &r, l.Key)
	}
	return l, nil
}

// storedLabel is the label d's labels bucket holds for key, or key itself.
func StoredLabel(tx *bolt.Tx, d Dim, key string) string {
	return labelIn(tx.Bucket(Dims[d].Labels), key)
}

// labelIn is the label labels holds for key, or key itself.
func labelIn(labels ValueGetter, key string) string {
	if v := labels.Get([]byte(key)); len(v) > 0 {
		return string(v)
	}
	return key
}

// ListedStations returns the stations filed under key in d, alphabetically
// (record order), the page [offset, offset+limit) decoded. An unknown key
// gives total 0. Unlike Search there is no offset ceiling: a directory page
// reaches every station of its value.
func (ix *Index) ListedStations(d Dim, key string, offset, limit int) (Result, error) {
	bucket, err := directoryBucket(d)
	if err != nil {
		return Result{}, err
	}
	if err := checkPage(limit, offset); err != nil {
		return Result{}, err
	}
	var res Result
	err = ix.WithSearch(func(s *Search) error {
		one, err := s.Get(bucket, s.KeyOf(key))
		if err != nil {
			return err
		}
		s.Work.tiers = append(s.Work.tiers, wholeTier(one))
		res.Total = s.total()
		if err := s.locate(offset, limit); err != nil {
			return err
		}
		res.Stations, err = s.decodePage()
		return err
	})
	if err != nil {
		return Result{}, fmt.Errorf("%s %q: %w", d.Name(), key, err)
	}
	return res, nil
}

// EachListedKey calls fn with the keys of d at [offset, offset+limit) in
// key order. The key is only valid during the call.
func (ix *Index) EachListedKey(d Dim, offset, limit int, fn func(key []byte) error) error {
	bucket, err := directoryBucket(d)
	if err != nil {
		return err
	}
	return ix.View(func(tx *bolt.Tx) error {
		return eachKey(tx.Bucket(bucket), offset, limit, fn)
	})
}

// ListingCount is the number of values of d the directory lists.
func (ix *Index) ListingCount(d Dim) (int, error) {
	n := 0
	err := ix.EachListedKey(d, 0, -1, func([]byte) error { n++; return nil })
	return n, err
}

// EachStationID calls fn with the station ids at [offset, offset+limit) in
// id (UUID byte) order; limit < 0 means all.
func (ix *Index) EachStationID(offset, limit int, fn func(format.UUID) error) error {
	return ix.View(func(tx *bolt.Tx) error {
		return eachKey(tx.Bucket(format.BucketIDs), offset, limit, func(k []byte) error {
			var id format.UUID
			if len(k) != len(id) {
				return fmt.Errorf("%w: id key of %d bytes", format.ErrCorrupt, len(k))
			}
			copy(id[:], k)
			return fn(id)
		})
	})
}

// eachKey walks the keys of b at [offset, offset+limit); limit < 0: all.
func eachKey(b *bolt.Bucket, offset, limit int, fn func([]byte) error) error {
	c := b.Cursor()
	i := 0
	for k, _ := c.First(); k != nil && (limit < 0 || i < offset+limit); k, _ = c.Next() {
		if i >= offset {
			if err := fn(k); err != nil {
				return err
			}
		}
		i++
	}
	return nil
}

// Order is the order of a directory's values.
type Order int

const (
	// ByStations lists the values with the most stations first: what
	// people browse a directory for. Ties go A–Z.
	ByStations Order = iota
	// ByName lists values A–Z in the folding and order the search uses
	// for names (case and accents folded, punctuation and symbols
	// ignored); values with no letter or digit at all come last.
	ByName
)

// directoryEntry is one value of a facet as the orders need it.
type directoryEntry struct {
	key      string
	name     string // fold.Key of the value's name: what A–Z sorts by
	stations int
}

// directoryOrders are the two orders of one facet's values, computed on first
// use from the facet bucket and kept for the life of the Index: the file
// never changes under it.
type directoryOrders struct {
	once       sync.Once
	byName     []directoryEntry
	byStations []directoryEntry
	err        error
}

// ordered returns the values of d in order o.
func ordered(ix *Index, d Dim, o Order) ([]directoryEntry, error) {
	if _, err := directoryBucket(d); err != nil {
		return nil, err
	}
	fo := &ix.orders[d]
	fo.once.Do(func() { fo.byName, fo.byStations, fo.err = directoryOrder(ix, d) })
	if o == ByName {
		return fo.byName, fo.err
	}
	return fo.byStations, fo.err
}

func directoryOrder(ix *Index, d Dim) (byName, byStations []directoryEntry, err error) {
	bucket := Dims[d].Directory
	err = ix.View(func(tx *bolt.Tx) error {
		w := GetWorkspace()
		defer w.Release()
		return tx.Bucket(bucket).ForEach(func(k, v []byte) error {
			s, err := w.View(v)
			if err != nil {
				return fmt.Errorf("%s %q: %w", d.Name(), k, err)
			}
			key := string(k)
			name := sortName(d, key)
			if Dims[d].Labels != nil {
				name = fold.Key(StoredLabel(tx, d, key))
			}
			byName = append(byName, directoryEntry{key: key, name: name, stations: s.Card()})
			return nil
		})
	})
	slices.SortFunc(byName, compareNames)
	byStations = slices.Clone(byName)
	slices.SortStableFunc(byStations, func(a, b directoryEntry) int { return cmp.Compare(b.stations, a.stations) })
	return byName, byStations, err
}

// sortName is what a value sorts under A–Z: the row's name for it where
// the directory labels it so (a country's English name), else the key
// (the folded label). A row with stored labels sorts by the label instead
// (directoryOrder): a genre key has lost its spaces.
func sortName(d Dim, key string) string {
	if Dims[d].Spelled == nil {
		if name, ok := FacetName(d, key); ok {
			return fold.Key(name)
		}
	}
	return fold.Key(key)
}

// compareNames orders A–Z, nameless values last, then by key so the order
// is total and paging stable.
func compareNames(a, b directoryEntry) int {
	if (a.name == "") != (b.name == "") {
		if a.name == "" {
			return 1
		}
		return -1
	}
	return cmp.Or(cmp.Compare(a.name, b.name), cmp.Compare(a.key, b.key))
}

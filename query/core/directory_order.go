package core

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/fold"
)

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
		if name, ok := facetName(d, key); ok {
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

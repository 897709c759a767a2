package query

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/fold"
	"stationdex/indexer/iso"
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

// facetEntry is one value of a facet as the orders need it.
type facetEntry struct {
	key      string
	name     string // fold.Key of the value's name: what A–Z sorts by
	stations int
}

// facetOrders are the two orders of one facet's values, computed on first
// use from the facet bucket and kept for the life of the Index: the file
// never changes under it.
type facetOrders struct {
	once       sync.Once
	byName     []facetEntry
	byStations []facetEntry
	err        error
}

// ordered returns the values of f in order o.
func (ix *Index) ordered(f Facet, o Order) ([]facetEntry, error) {
	if f < FacetCountry || f > FacetLocation {
		return nil, fmt.Errorf("%w: %d", ErrNoFacet, int(f))
	}
	fo := &ix.orders[f-FacetCountry]
	fo.once.Do(func() { fo.byName, fo.byStations, fo.err = ix.facetOrders(f) })
	if o == ByName {
		return fo.byName, fo.err
	}
	return fo.byStations, fo.err
}

func (ix *Index) facetOrders(f Facet) (byName, byStations []facetEntry, err error) {
	bucket, err := f.bucket()
	if err != nil {
		return nil, nil, err
	}
	err = ix.view(func(tx *bolt.Tx) error {
		w := getWorkspace()
		defer w.release()
		return tx.Bucket(bucket).ForEach(func(k, v []byte) error {
			s, err := w.view(v)
			if err != nil {
				return fmt.Errorf("facet %q: %w", k, err)
			}
			key := string(k)
			byName = append(byName, facetEntry{key: key, name: sortName(f, key), stations: s.card()})
			return nil
		})
	})
	slices.SortFunc(byName, compareNames)
	byStations = slices.Clone(byName)
	slices.SortStableFunc(byStations, func(a, b facetEntry) int { return cmp.Compare(b.stations, a.stations) })
	return byName, byStations, err
}

// sortName is what a value sorts under A–Z: a country's English name, else
// the key (the folded label).
func sortName(f Facet, key string) string {
	if f == FacetCountry {
		if name := iso.CountryName(key); name != "" {
			return fold.Key(name)
		}
	}
	return fold.Key(key)
}

// compareNames orders A–Z, nameless values last, then by key so the order
// is total and paging stable.
func compareNames(a, b facetEntry) int {
	if (a.name == "") != (b.name == "") {
		if a.name == "" {
			return 1
		}
		return -1
	}
	return cmp.Or(cmp.Compare(a.name, b.name), cmp.Compare(a.key, b.key))
}

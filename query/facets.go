package query

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/format"
	"stationdex/indexer/iso"
)

// FacetSet says which facets a search counts.
type FacetSet struct{ Country, Language, Genre bool }

// Any reports whether a facet is asked for.
func (f FacetSet) Any() bool { return f.Country || f.Language || f.Genre }

// Facet limits: the values of each facet a search returns.
const (
	DefaultFacetLimit = 10
	MaxFacetLimit     = 50
)

// Facets are the value counts of one search, for the facets asked for
// (nil lists for the others).
type Facets struct {
	Country, Language, Genre []FacetCount
}

// FacetCount is one value of a facet: the value its filter takes (an
// alpha-2 code, an ISO 639 code, a folded genre tag), a label for people,
// and the number of matching stations that have it.
//
// A facet counts the stations matching the whole search. For a dimension
// the search itself filters on, that filter is left out of the count: the
// value counts as if it replaced the search's own value, which is what a
// link setting that filter returns. So the filtered value is still listed
// (with the search's total) and so are its alternatives.
type FacetCount struct {
	Value, Label string
	Count        int
}

// facetDims are the search facets: their dimension and bucket.
var facetDims = [...]struct {
	dim    dimension
	bucket []byte
}{
	{dimCountry, format.BucketCountries},
	{dimLanguage, format.BucketLangCodes},
	{dimGenre, format.BucketGenres},
}

// rankedValues is a facet bucket's keys with their station counts, most
// stations first, ties by key: the order in which a top-k count can stop
// early, since no search has more stations of a value than the snapshot.
type rankedValues struct {
	once  sync.Once
	err   error
	keys  []string
	count []uint32
}

func (ix *Index) ranked(d int) (*rankedValues, error) {
	rv := &ix.facetRanks[d]
	rv.once.Do(func() { rv.err = ix.view(func(tx *bolt.Tx) error { return rv.load(tx.Bucket(facetDims[d].bucket)) }) })
	return rv, rv.err
}

func (rv *rankedValues) load(b *bolt.Bucket) error {
	type entry struct {
		key string
		n   uint32
	}
	var entries []entry
	bm := roaring.New()
	err := b.ForEach(func(k, v []byte) error {
		if _, err := bm.FromBuffer(v); err != nil {
			return fmt.Errorf("%w: facet %q: %v", format.ErrCorrupt, k, err)
		}
		entries = append(entries, entry{string(k), uint32(bm.GetCardinality())})
		return nil
	})
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.key, b.key)) })
	for _, e := range entries {
		rv.keys, rv.count = append(rv.keys, e.key), append(rv.count, e.n)
	}
	return err
}

// facets counts the facets q asks for. matches is the search's match set.
func (s *search) facets(ix *Index, q Query, matches set) (Facets, error) {
	var out Facets
	lists := [...]*[]FacetCount{&out.Country, &out.Language, &out.Genre}
	asked := [...]bool{q.Facets.Country, q.Facets.Language, q.Facets.Genre}
	filtered := [...]bool{q.Country != "", q.Language != "", q.Genre != ""}
	for d, dim := range facetDims {
		if !asked[d] {
			continue
		}
		m := matches
		if filtered[d] {
			var err error
			if m, err = s.matchSet(q, dim.dim); err != nil {
				return Facets{}, err
			}
		}
		top, err := s.topValues(ix, d, m, q.FacetLimit)
		if err != nil {
			return Facets{}, err
		}
		*lists[d] = top
	}
	return out, s.label(&out)
}

// topValues is the k values of facet d with the most stations in m. Values
// come most stations first overall, so once a value has fewer stations in
// the whole snapshot than the k-th best count so far, no later one can
// enter: a broad search stops after about k values, a narrow one after the
// values that could still beat its k-th count.
func (s *search) topValues(ix *Index, d int, m set, k int) ([]FacetCount, error) {
	if m.bm == nil || m.empty() {
		return []FacetCount{}, nil
	}
	rv, err := ix.ranked(d)
	if err != nil {
		return nil, err
	}
	bucket := s.tx.Bucket(facetDims[d].bucket)
	probe := s.w.bitmap()
	top := make([]FacetCount, 0, k+1)
	for i, key := range rv.keys {
		if len(top) == k && int(rv.count[i]) < top[k-1].Count {
			break
		}
		if facetDims[d].dim == dimGenre && !Filterable(key) {
			continue // no genre filter can name it, so no link could count it
		}
		v := bucket.Get([]byte(key))
		if v == nil {
			return nil, fmt.Errorf("%w: facet value %q vanished", format.ErrCorrupt, key)
		}
		if _, err := probe.FromBuffer(v); err != nil {
			return nil, fmt.Errorf("%w: facet %q: %v", format.ErrCorrupt, key, err)
		}
		n := int(m.bm.AndCardinality(probe))
		if n == 0 || len(top) == k && n < top[k-1].Count {
			continue
		}
		top = insertTop(top, FacetCount{Value: key, Count: n}, k)
	}
	probe.Clear()
	return top, nil
}

// MaxFilterRunes is the longest language or genre filter value, in
// characters.
const MaxFilterRunes = 60

// Filterable reports whether a facet key can be given back as a filter
// value that selects exactly its stations.
func Filterable(key string) bool {
	return key != "" && utf8.RuneCountInString(key) <= MaxFilterRunes && format.FacetKey(key) == key
}

// insertTop puts c into top (most first, ties by value) and keeps k.
func insertTop(top []FacetCount, c FacetCount, k int) []FacetCount {
	i, _ := slices.BinarySearchFunc(top, c, func(a, b FacetCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Value, b.Value))
	})
	top = slices.Insert(top, i, c)
	return top[:min(len(top), k)]
}

// label names the values: countries and languages by their English names,
// genres by the spelling of the first station filed under the tag.
func (s *search) label(f *Facets) error {
	for i := range f.Country {
		f.Country[i].Label = cmp.Or(iso.CountryName(f.Country[i].Value), f.Country[i].Value)
	}
	for i := range f.Language {
		f.Language[i].Label = cmp.Or(iso.LanguageName(f.Language[i].Value), f.Language[i].Value)
	}
	for i := range f.Genre {
		label, err := s.genreLabel(f.Genre[i].Value)
		if err != nil {
			return err
		}
		f.Genre[i].Label = label
	}
	return nil
}

func (s *search) genreLabel(key string) (string, error) {
	one, err := s.get(format.BucketGenres, s.keyOf(key))
	if err != nil || one.empty() {
		return key, err
	}
	var r format.Record
	if err := decodeRecord(s.tx.Bucket(format.BucketStations), one.bm.Minimum(), &r); err != nil {
		return "", err
	}
	for _, g := range r.Genres {
		if format.FacetKey(g) == key {
			return g, nil
		}
	}
	return key, nil
}

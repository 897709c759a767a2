package query

import (
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/format"
	"stationdex/indexer/iso"
)

// The directory: browsing the facet buckets (countries, language labels,
// genres, locations) instead of searching them. The HTML directory pages
// and the sitemap are built on these calls; like Search they decode only
// the records of the page asked for.

// Facet is one directory dimension, backed by one facet bucket.
type Facet int

// The facets. Keys are those of the bucket: ISO alpha-2 upper case for
// countries, format.FacetKey of the label for the others.
const (
	FacetCountry Facet = iota + 1
	FacetLanguage
	FacetGenre
	FacetLocation
)

// ErrNoFacet: a Facet value outside the constants above (a caller bug).
var ErrNoFacet = errors.New("unknown facet")

func (f Facet) bucket() ([]byte, error) {
	switch f {
	case FacetCountry:
		return format.BucketCountries, nil
	case FacetLanguage:
		return format.BucketLangLabels, nil
	case FacetGenre:
		return format.BucketGenres, nil
	case FacetLocation:
		return format.BucketLocations, nil
	}
	return nil, fmt.Errorf("%w: %d", ErrNoFacet, int(f))
}

// FacetValue is one value of a facet: its key, a label for people and the
// number of stations filed under it.
type FacetValue struct {
	Key      string
	Label    string
	Stations int
}

// FacetValues returns the number of values of f and the values at
// [offset, offset+limit) in order o, each with its label and count.
func (ix *Index) FacetValues(f Facet, o Order, offset, limit int) (total int, vals []FacetValue, err error) {
	entries, err := ix.ordered(f, o)
	if err != nil {
		return 0, nil, err
	}
	page := entries[min(max(offset, 0), len(entries)):min(max(offset, 0)+max(limit, 0), len(entries))]
	bucket, _ := f.bucket() // ordered checked f
	err = ix.view(func(tx *bolt.Tx) error {
		w := getWorkspace()
		defer w.release()
		for _, e := range page {
			fv, err := facetValue(tx, w, f, []byte(e.key), tx.Bucket(bucket).Get([]byte(e.key)))
			if err != nil {
				return err
			}
			vals = append(vals, fv)
		}
		return nil
	})
	return len(entries), vals, err
}

// FacetValue looks one key of f up; ok is false when no station has it.
func (ix *Index) FacetValue(f Facet, key string) (fv FacetValue, ok bool, err error) {
	bucket, err := f.bucket()
	if err != nil {
		return fv, false, err
	}
	err = ix.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucket).Get([]byte(key))
		if v == nil {
			return nil
		}
		w := getWorkspace()
		defer w.release()
		fv, err = facetValue(tx, w, f, []byte(key), v)
		ok = err == nil
		return err
	})
	return fv, ok, err
}

// facetValue counts the stations of one key and labels it. A country is
// labelled with its English name; the other facets with the spelling of
// the first station (alphabetically) filed under the key, since the key
// itself is folded.
func facetValue(tx *bolt.Tx, w *workspace, f Facet, k, v []byte) (FacetValue, error) {
	s, err := w.view(v)
	if err != nil {
		return FacetValue{}, fmt.Errorf("facet %q: %w", k, err)
	}
	fv := FacetValue{Key: string(k), Label: string(k), Stations: s.card()}
	if f == FacetCountry {
		if name := iso.CountryName(fv.Key); name != "" {
			fv.Label = name
		}
		return fv, nil
	}
	if s.empty() {
		return fv, nil
	}
	var r format.Record
	if err := decodeRecord(tx.Bucket(format.BucketStations), s.bm.Minimum(), &r); err != nil {
		return FacetValue{}, err
	}
	for _, label := range facetLabels(f, &r) {
		if format.FacetKey(label) == fv.Key {
			fv.Label = label
			break
		}
	}
	return fv, nil
}

func facetLabels(f Facet, r *format.Record) []string {
	switch f {
	case FacetLanguage:
		return r.Languages
	case FacetGenre:
		return r.Genres
	case FacetLocation:
		return []string{r.Location}
	}
	return nil
}

// FacetStations returns the stations filed under key in f, alphabetically
// (record order), the page [offset, offset+limit) decoded. An unknown key
// gives total 0. Unlike Search there is no offset ceiling: a directory page
// reaches every station of its value.
func (ix *Index) FacetStations(f Facet, key string, offset, limit int) (Result, error) {
	bucket, err := f.bucket()
	if err != nil {
		return Result{}, err
	}
	if err := checkPage(limit, offset); err != nil {
		return Result{}, err
	}
	w := getWorkspace()
	defer w.release()
	var res Result
	err = ix.view(func(tx *bolt.Tx) error {
		s := w.newSearch(ix)
		s.tx = tx
		one, err := s.get(bucket, s.keyOf(key))
		if err != nil {
			return err
		}
		w.tiers = append(w.tiers, wholeTier(one))
		res.Total = s.total()
		s.locate(offset, limit)
		res.Stations, err = s.decodePage()
		return err
	})
	if err != nil {
		return Result{}, fmt.Errorf("facet %q: %w", key, err)
	}
	return res, nil
}

// EachFacetKey calls fn with the keys of f at [offset, offset+limit) in key
// order. The key is only valid during the call.
func (ix *Index) EachFacetKey(f Facet, offset, limit int, fn func(key []byte) error) error {
	bucket, err := f.bucket()
	if err != nil {
		return err
	}
	return ix.view(func(tx *bolt.Tx) error {
		return eachKey(tx.Bucket(bucket), offset, limit, fn)
	})
}

// FacetCount is the number of values of f.
func (ix *Index) FacetCount(f Facet) (int, error) {
	n := 0
	err := ix.EachFacetKey(f, 0, -1, func([]byte) error { n++; return nil })
	return n, err
}

// EachStationID calls fn with the station ids at [offset, offset+limit) in
// id (UUID byte) order; limit < 0 means all.
func (ix *Index) EachStationID(offset, limit int, fn func(format.UUID) error) error {
	return ix.view(func(tx *bolt.Tx) error {
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

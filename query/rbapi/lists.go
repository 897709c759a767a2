package rbapi

import (
	"cmp"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	"stationdex/internal/iso"
	"stationdex/query/core"
)

// The Radio Browser API's lists (/json/countries, /json/tags, ...): every
// value of a dimension with its stations, or only those that passed their
// last check (hidebroken). They are read from the buckets the directory
// and the filters read; the server filters, orders and pages them, and
// caches the answer.

// Count is one value of a list: its key in the dimension's
// bucket, its label as a station spells it, and its stations.
type Count struct {
	Key, Label string
	Stations   int
}

// Counts lists every value of d (country, language, genre,
// location or codec) in key order, with only the stations that passed
// their last check when checkOK. A value without such stations is left
// out.
func Counts(ix *core.Index, d core.Dim, checkOK bool) ([]Count, error) {
	if !ix.Has(format.SectionRBAPI) {
		return nil, ErrNoSection
	}
	if d >= core.NumDims || d == core.DimHTTPS {
		return nil, fmt.Errorf("%w: no list of %s", core.ErrInvalidQuery, d.Name())
	}
	bucket := core.Dims[d].Directory
	var out []Count
	err := ix.View(func(tx *bolt.Tx) error {
		ok, err := checkedOK(tx, checkOK)
		if err != nil {
			return err
		}
		switch d { // the source's values (codecs.go)
		case core.DimCodec:
			out, err = sourceCounts(ix, tx, codecField, ok)
			return err
		case core.DimGenre:
			out, err = sourceCounts(ix, tx, tagsField, ok)
			return err
		}
		var bm roaring.Bitmap // reused: FromBuffer replaces its contents
		return tx.Bucket(bucket).ForEach(func(k, v []byte) error {
			if _, err := bm.FromBuffer(v); err != nil {
				return fmt.Errorf("%w: %s %q: %v", format.ErrCorrupt, d.Name(), k, err)
			}
			n := countIn(&bm, ok)
			if n == 0 {
				return nil
			}
			label, err := label(tx, d, string(k), bm.Minimum())
			out = append(out, Count{Key: string(k), Label: label, Stations: n})
			return err
		})
	})
	return out, err
}

// checkedOK is the stations that passed their last check, when wanted.
func checkedOK(tx *bolt.Tx, wanted bool) (*roaring.Bitmap, error) {
	if !wanted {
		return nil, nil
	}
	ok := roaring.New()
	if v := tx.Bucket(checkedBucket).Get([]byte(checkedKey)); v != nil {
		if _, err := ok.FromBuffer(v); err != nil {
			return nil, fmt.Errorf("%w: %s %s: %v", format.ErrCorrupt, checkedBucket, checkedKey, err)
		}
	}
	return ok, nil
}

// countIn is the cardinality of bm, within ok when given.
func countIn(bm, ok *roaring.Bitmap) int {
	if ok == nil {
		return int(bm.GetCardinality())
	}
	return int(bm.AndCardinality(ok))
}

// label names key of d as the source spells it: a country by
// the source's label of its first station ("The United States Of
// America", the upstream list's name), a genre by its commonest
// spelling, a language or location as its first station spells it, a
// codec as it is.
func label(tx *bolt.Tx, d core.Dim, key string, first uint32) (string, error) {
	switch {
	case core.Dims[d].Labels != nil:
		return core.StoredLabel(tx, d, key), nil
	case d != core.DimCountry && core.Dims[d].Spelled == nil:
		return key, nil
	}
	var r format.Record
	if err := core.DecodeRecord(tx.Bucket(format.BucketStations), first, &r); err != nil {
		return "", err
	}
	if d == core.DimCountry {
		return cmp.Or(r.Country, iso.CountryName(key), key), nil
	}
	return core.Spelling(d, &r, key), nil
}

// State is one state (a location) of one country, as the
// upstream /json/states lists them.
type State struct {
	Name, Country string
	Stations      int
}

// States lists every location with the source country label of
// its stations, one entry per pair, in location key order, then by
// country label; with checkOK only the stations that passed their last
// check count. A location's stations are few, so they are read one by
// one.
func States(ix *core.Index, checkOK bool) ([]State, error) {
	if !ix.Has(format.SectionRBAPI) {
		return nil, ErrNoSection
	}
	var out []State
	err := ix.View(func(tx *bolt.Tx) error {
		ok, err := checkedOK(tx, checkOK)
		if err != nil {
			return err
		}
		records := tx.Bucket(format.BucketStations)
		var bm roaring.Bitmap
		return tx.Bucket(format.BucketLocations).ForEach(func(k, v []byte) error {
			if _, err := bm.FromBuffer(v); err != nil {
				return fmt.Errorf("%w: location %q: %v", format.ErrCorrupt, k, err)
			}
			members := &bm
			if ok != nil {
				members = roaring.And(&bm, ok) // bm is read-only: it is the mapping
			}
			states, err := statesOf(records, members, string(k))
			out = append(out, states...)
			return err
		})
	})
	return out, err
}

// statesOf counts the stations of one location key by country label,
// the location named as its first station of each country spells it.
func statesOf(records *bolt.Bucket, bm *roaring.Bitmap, key string) ([]State, error) {
	var out []State
	var r format.Record
	for it := bm.Iterator(); it.HasNext(); {
		if err := core.DecodeRecord(records, it.Next(), &r); err != nil {
			return nil, err
		}
		i := 0
		for i < len(out) && out[i].Country != r.Country {
			i++
		}
		if i == len(out) {
			out = append(out, State{Name: core.Spelling(core.DimLocation, &r, key), Country: r.Country})
		}
		out[i].Stations++
	}
	return sortedStates(out), nil
}

func sortedStates(s []State) []State {
	for i := 1; i < len(s); i++ { // few countries per location
		for j := i; j > 0 && s[j].Country < s[j-1].Country; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

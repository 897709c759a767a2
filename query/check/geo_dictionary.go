package check

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/blevesearch/vellum"

	"stationdex/internal/format"
	"stationdex/query/core"
	"stationdex/query/spell"
)

// checkGeo: every point decodes, names an existing record whose stored
// position it repeats, lies in the cell it is filed under, and points come
// in record order within a cell.
func (c *checker) checkGeo() error {
	return c.tx.Bucket(format.BucketGeo).ForEach(func(k, v []byte) error {
		cell, err := format.ParseGeoCellKey(k)
		if err != nil {
			return err
		}
		if len(v) == 0 {
			return fmt.Errorf("%w: empty geo cell %x", format.ErrCorrupt, k)
		}
		prev := int64(-1)
		return format.GeoPoints(v, func(p format.GeoPoint) error {
			if int64(p.Record) <= prev || p.Record >= c.stations || format.CellOf(p.Geo) != cell {
				return fmt.Errorf("%w: geo cell %x: point of record %d out of place", format.ErrCorrupt, k, p.Record)
			}
			prev = int64(p.Record)
			var r format.Record
			if err := core.DecodeRecord(c.tx.Bucket(format.BucketStations), p.Record, &r); err != nil {
				return err
			}
			if r.Geo != p.Geo {
				return fmt.Errorf("%w: geo cell %x: record %d is elsewhere", format.ErrCorrupt, k, p.Record)
			}
			return nil
		})
	})
}

// checkDictionary: the FST holds exactly the keys of all_tokens, in order,
// each with its station count. vellum trusts its input, so a damaged FST
// may panic inside it; that is reported as corruption.
func (c *checker) checkDictionary() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: dictionary: %v", format.ErrCorrupt, r)
		}
	}()
	fst, err := vellum.Load(c.tx.Bucket(format.BucketDictionary).Get(format.KeyAllTokensFST))
	if err != nil {
		return fmt.Errorf("%w: dictionary: %v", format.ErrCorrupt, err)
	}
	cur := c.tx.Bucket(format.BucketAllTokens).Cursor()
	k, v := cur.First()
	it, err := fst.Iterator(nil, nil)
	for ; err == nil; err = it.Next() {
		word, n := it.Current()
		if k == nil || !bytes.Equal(word, k) {
			return fmt.Errorf("%w: dictionary word %q where all_tokens has %q", format.ErrCorrupt, word, k)
		}
		if err := c.checkBitmap(v); err != nil {
			return err
		}
		if card := c.cardinality(v); card != n {
			return fmt.Errorf("%w: dictionary counts %d stations for %q, all_tokens %d", format.ErrCorrupt, n, word, card)
		}
		k, v = cur.Next()
	}
	if !errors.Is(err, vellum.ErrIteratorDone) {
		return fmt.Errorf("%w: dictionary: %v", format.ErrCorrupt, err)
	}
	if k != nil {
		return fmt.Errorf("%w: dictionary lacks %q", format.ErrCorrupt, k)
	}
	return nil
}

// checkReach: each word's stored reach is what a search for the word
// finds, counted by the reader's own lookup (wordSet), so that a
// suggestion's total read from it is the total the suggested search
// shows.
func (c *checker) checkReach() error {
	d, err := spell.Dictionary(c.ix)
	if err != nil {
		return err
	}
	for i := range d.Len() {
		n, err := c.wordReach(d.Word(i))
		if err != nil {
			return err
		}
		if n != int(d.Reach[i]) {
			return fmt.Errorf("%w: dictionary reach of %q is %d, a search finds %d", format.ErrCorrupt, d.Word(i), d.Reach[i], n)
		}
	}
	return nil
}

// wordReach counts the stations a search for word finds, in a workspace
// of its own: each union it builds is dropped with it.
func (c *checker) wordReach(word string) (int, error) {
	w := core.GetWorkspace()
	defer w.Release()
	s := w.NewSearch(c.ix)
	s.Tx = c.tx
	set, err := s.WordSet(core.AllSpace, word)
	if err != nil {
		return 0, err
	}
	return set.Card(), nil
}

func (c *checker) cardinality(v []byte) uint64 {
	defer c.bm.Clear()
	if _, err := c.bm.FromBuffer(v); err != nil {
		return 0
	}
	return c.bm.GetCardinality()
}

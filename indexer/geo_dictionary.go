package indexer

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/vellum"
	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/format"
)

// geoPoint is a station with coordinates, under its temporary number until
// the records are numbered. The builder keeps these in memory: 12 bytes per
// station with a position (a sixth of the real data), next to the 4 bytes
// per station of the numbering itself.
type geoPoint struct {
	t        uint32
	lat, lon int32
}

// geoSource yields the geo bucket: per cell of one degree, its stations'
// points in record order. It runs after the records are numbered.
func (b *builder) geoSource() kvSource {
	type placed struct {
		cell cellID
		p    format.GeoPoint
	}
	points := make([]placed, 0, len(b.geo))
	for _, g := range b.geo {
		if n := b.final[g.t]; n != dropped {
			p := format.GeoPoint{Record: n, Geo: format.Geo{Known: true, Lat: g.lat, Lon: g.lon}}
			points = append(points, placed{cell: cellKey(format.CellOf(p.Geo)), p: p})
		}
	}
	b.geo = nil
	slices.SortFunc(points, func(a, b placed) int {
		return cmp.Or(bytes.Compare(a.cell[:], b.cell[:]), cmp.Compare(a.p.Record, b.p.Record))
	})
	return func(*bolt.Tx) ([]byte, []byte, error) {
		if len(points) == 0 {
			return nil, nil, nil
		}
		cell := points[0].cell
		var v []byte
		for len(points) > 0 && points[0].cell == cell {
			v = format.AppendGeoPoint(v, points[0].p)
			points = points[1:]
		}
		return bytes.Clone(cell[:]), v, nil
	}
}

// cellID is a cell key as an array, comparable and sortable.
type cellID [4]byte

func cellKey(c format.GeoCell) cellID { return cellID(format.GeoCellKey(c)) }

// dictionarySource yields the dictionary bucket: an FST over the keys of
// the token bucket already written, each mapped to its station count. The
// keys come from bbolt in ascending order, which is the order the FST
// builder needs. The FST is held in memory while it is built: a few bytes
// per distinct token, far less than the records.
func dictionarySource(tokens []byte) kvSource {
	done := false
	return func(tx *bolt.Tx) ([]byte, []byte, error) {
		if done {
			return nil, nil, nil
		}
		done = true
		fst, err := buildDictionary(tx.Bucket(tokens))
		if err != nil {
			return nil, nil, fmt.Errorf("dictionary of %s: %w", tokens, err)
		}
		return bytes.Clone(format.KeyAllTokensFST), fst, nil
	}
}

func buildDictionary(b *bolt.Bucket) ([]byte, error) {
	var out bytes.Buffer
	fb, err := vellum.New(&out, nil)
	if err != nil {
		return nil, err
	}
	bm := roaring.New()
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if _, err := bm.FromBuffer(v); err != nil {
			return nil, fmt.Errorf("token %q: %w", k, err)
		}
		if err := fb.Insert(k, bm.GetCardinality()); err != nil {
			return nil, fmt.Errorf("token %q: %w", k, err)
		}
	}
	if err := fb.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

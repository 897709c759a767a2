package indexer

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/vellum"
	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	"stationdex/internal/nearby"
)

// geoPoint is a station with coordinates, under its temporary number until
// the records are numbered. The builder keeps these in memory: 12 bytes per
// station with a position (a sixth of the real data), next to the 4 bytes
// per station of the numbering itself.
type geoPoint struct {
	t        uint32
	lat, lon int32
}

// numberedGeo is the stations with coordinates under their record
// numbers, in temporary order; the builder's points are released.
func (b *builder) numberedGeo() []format.GeoPoint {
	points := make([]format.GeoPoint, 0, len(b.geo))
	for _, g := range b.geo {
		if n := b.final[g.t]; n != dropped {
			points = append(points, format.GeoPoint{Record: n, Geo: format.Geo{Known: true, Lat: g.lat, Lon: g.lon}})
		}
	}
	b.geo = nil
	return points
}

// geoSource yields the geo bucket: per cell of one degree, its stations'
// points in record order.
func geoSource(numbered []format.GeoPoint) kvSource {
	type placed struct {
		cell cellID
		p    format.GeoPoint
	}
	points := make([]placed, 0, len(numbered))
	for _, p := range numbered {
		points = append(points, placed{cell: cellKey(format.CellOf(p.Geo)), p: p})
	}
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

// nearbySource yields the nearby bucket: for every block of records,
// each record's nearest stations (format.BucketNearby), found at once
// for all (package nearby).
func nearbySource(points []format.GeoPoint, records int) kvSource {
	l := nearby.Find(points, format.NearbyPerStation)
	next := 0 // the next station with coordinates, in l.Records
	var block uint32
	return func(*bolt.Tx) ([]byte, []byte, error) {
		first := block * format.RecordsPerBlock
		if int64(first) >= int64(records) {
			return nil, nil, nil
		}
		var v []byte
		for n := first; n < min(first+format.RecordsPerBlock, uint32(records)); n++ {
			var near []uint32
			if next < len(l.Records) && l.Records[next] == n {
				near = l.Of(next)
				next++
			}
			v = format.AppendNearby(v, near)
		}
		block++
		return format.BlockKey(block - 1), v, nil
	}
}

// cellID is a cell key as an array, comparable and sortable.
type cellID [4]byte

func cellKey(c format.GeoCell) cellID { return cellID(format.GeoCellKey(c)) }

// dictionarySource yields the dictionary bucket: an FST over the keys of
// the token bucket already written, each mapped to its station count, and
// every word's reach (format.KeyWordReach). The keys come from bbolt in
// ascending order, which is the order the FST builder needs. Both are made
// in the first call, inside one transaction, since they read the token
// lists in place; the FST is held in memory while it is built: a few bytes
// per distinct token, far less than the records.
func dictionarySource(tokens, prefixes []byte) kvSource {
	return onePass(func(tx *bolt.Tx) ([][2][]byte, error) {
		fst, reach, err := buildDictionary(tx.Bucket(tokens), tx.Bucket(prefixes))
		if err != nil {
			return nil, fmt.Errorf("dictionary of %s: %w", tokens, err)
		}
		return [][2][]byte{{bytes.Clone(format.KeyAllTokensFST), fst}, {bytes.Clone(format.KeyWordReach), reach}}, nil
	})
}

func buildDictionary(tokens, prefixes *bolt.Bucket) (fst, reach []byte, err error) {
	var words, lists [][]byte // in place, valid during the transaction
	c := tokens.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		words, lists = append(words, k), append(lists, v)
	}
	var out bytes.Buffer
	fb, err := vellum.New(&out, nil)
	if err != nil {
		return nil, nil, err
	}
	reach = make([]byte, 0, 4*len(words))
	for i, k := range words {
		n, err := cardinality(lists[i])
		if err != nil {
			return nil, nil, fmt.Errorf("token %q: %w", k, err)
		}
		if err := fb.Insert(k, n); err != nil {
			return nil, nil, fmt.Errorf("token %q: %w", k, err)
		}
		r, err := wordReach(words, lists, i, prefixes)
		if err != nil {
			return nil, nil, fmt.Errorf("token %q: %w", k, err)
		}
		reach = binary.LittleEndian.AppendUint32(reach, uint32(min(r, 1<<32-1)))
	}
	if err := fb.Close(); err != nil {
		return nil, nil, err
	}
	return out.Bytes(), reach, nil
}

// wordReach is the number of stations word i finds as a query word: those
// with a token it begins, as a reader unions them (the prefix bucket's
// list when there is one, else the tokens from word i on that begin with
// it, at most PrefixFanout). Precomputed so that a suggestion's total
// costs a lookup, not a union of lists of a million stations.
func wordReach(words, lists [][]byte, i int, prefixes *bolt.Bucket) (uint64, error) {
	if v := prefixes.Get(words[i]); v != nil {
		return cardinality(v)
	}
	end := i + 1
	for end < len(words) && bytes.HasPrefix(words[end], words[i]) {
		if end-i == format.PrefixFanout {
			return 0, fmt.Errorf("more than %d tokens begin with it and the prefix bucket has no list", format.PrefixFanout)
		}
		end++
	}
	if end == i+1 {
		return cardinality(lists[i])
	}
	views := make([]*roaring.Bitmap, end-i)
	for j := range views {
		views[j] = roaring.New()
		if _, err := views[j].FromBuffer(lists[i+j]); err != nil {
			return 0, err
		}
	}
	return roaring.FastOr(views...).GetCardinality(), nil
}

func cardinality(list []byte) (uint64, error) {
	bm := roaring.New()
	if _, err := bm.FromBuffer(list); err != nil {
		return 0, err
	}
	return bm.GetCardinality(), nil
}

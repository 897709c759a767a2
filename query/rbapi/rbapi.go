// Package rbapi is the engine's side of the Radio Browser API (the
// compatible API under /json/): it reads the file's optional section for
// that API (format.SectionRBAPI) and answers with the engine's own query
// types (core.Query, core.Search), as an adapter over the engine. Every
// read fails with ErrNoSection on a file without the section.
//
// The read path: the upstream directory's station objects
// (format.BucketRBAPIJSON), selected with the engine's filters and the
// section's buckets, in record order (the name order) or its reverse, a
// page of any length at a time. A long answer is read page after page,
// each in a read transaction of its own, so that no transaction waits on
// a slow client.
//
// File map:
//   - rbapi.go: Select, the stored objects, a page of them, the
//     conditions (flags, URL) and the copy with a distance
//   - contains.go: substring conditions (name, country, tags...), their
//     vocabularies and the folded names
//   - lists.go: the lists of countries, languages, tags... and states
//   - codecs.go: the source's codecs and tags (lists and filters over
//     them), read from the stored objects
//   - orders.go: the stored orders and their walk
package rbapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/internal/dim"
	"stationdex/internal/fold"
	"stationdex/internal/format"
	"stationdex/internal/stationjson"
	"stationdex/query/core"
)

// ErrNoSection: the index was built without the Radio Browser API's
// section (stationdex index -compat); see core.Index.HasRBAPI.
var ErrNoSection = errors.New("index built without the Radio Browser API's data (stationdex index -compat)")

// Tri is a condition a station may be asked to meet, not to meet, or
// neither.
type Tri uint8

// The values of a Tri.
const (
	Either Tri = iota
	Yes
	No
)

// Select says which stations of the Radio Browser API a page holds.
// Query's filters (Filter, BitrateMin, BitrateMax, Near) apply as in a
// search; its words, limit and offset do not.
type Select struct {
	Query core.Query
	// NameExact keeps the stations whose name key (fold.Key) is the
	// key of this name; CountryLabel those whose source country label
	// has this format.FacetKey; URL those whose source url is exactly
	// this. Empty: no condition.
	NameExact, CountryLabel, URL string
	// Genres keeps the stations listing every one of these tags, as
	// the source writes them (trimmed, case aside: codecs.go).
	Genres []string
	// Contains keeps the stations whose fields hold these texts.
	Contains Contains
	// CheckOK, ExtendedInfo and Geo test the flags of
	// format.BucketRBAPIFlags.
	CheckOK, ExtendedInfo, Geo Tri
	// Order is the order of the stations (OrderName: the record order);
	// Reverse walks it backwards; Seed seeds OrderRandom.
	Order   Order
	Reverse bool
	Seed    uint64
	// DistanceFrom, when set, fills in every station's geo_distance:
	// its distance from there in metres, as Query.Near measures it
	// (from the station's stored position), null without one.
	DistanceFrom *Position
}

// Position is a place on the sphere, in degrees.
type Position struct{ Lat, Lon float64 }

// JSON appends the stored upstream object of station id to dst
// (the base URL left as format.BaseURLMark); ErrNotFound when absent.
func JSON(ix *core.Index, id format.UUID, dst []byte) ([]byte, error) {
	if !ix.Has(format.SectionRBAPI) {
		return dst, ErrNoSection
	}
	err := ix.View(func(tx *bolt.Tx) error {
		n, err := core.RecordOf(tx.Bucket(format.BucketIDs), id)
		if err != nil {
			return err
		}
		rr := Reader(tx)
		js, err := rr.Get(n)
		if err != nil {
			return fmt.Errorf("station %s: upstream object: %w", id, err)
		}
		if !ObjectOf(js, id) {
			return fmt.Errorf("station %s: %w: ids bucket points at record %d, whose upstream object is of another station", id, format.ErrCorrupt, n)
		}
		dst = append(dst, js...)
		return nil
	})
	return dst, err
}

// upstreamOf reports whether the stored object js is of station id: its
// stationuuid follows the changeuuid, whose length is bounded.
func ObjectOf(js []byte, id format.UUID) bool {
	return bytes.Contains(js, []byte(`,"stationuuid":"`+id.String()+`",`))
}

func Reader(tx *bolt.Tx) core.RecordReader {
	return core.RecordReader{Stations: tx.Bucket(format.BucketRBAPIJSON)}
}

// Page appends to dst the stored upstream objects of the
// stations sel selects, from the offset-th in its order, at most limit
// of them, separated by commas (the inside of a JSON array; the caller
// splices its base URL in). It returns the extended dst and how many it
// appended: fewer than limit means the selection ends there.
func Page(ix *core.Index, sel Select, offset, limit int, dst []byte) ([]byte, int, error) {
	set, err := Stations(ix, sel)
	if err != nil {
		return dst, 0, err
	}
	return PageOf(ix, set, offset, limit, dst)
}

// Selection is the stations an Select picks, in its order: a
// copy, valid as long as the Index, so that a long answer pages through
// it without selecting again (a substring of names reads the candidates'
// records). It is for one goroutine at a time.
type Selection struct {
	members *roaring.Bitmap
	reverse bool
	order   Order
	seed    uint64
	// list is the members in order (reverse applied), as far as pages
	// asked for them, for an order other than name; complete once it
	// holds them all. walked counts the stations of the stored
	// permutation looked at so far, and dense the members, a bit per
	// station, once a walk needs them (orders.go).
	list     []uint32
	complete bool
	walked   int
	dense    []uint64
	from     *Position // Select.DistanceFrom
}

// Len is the number of stations in u.
func (u *Selection) Len() int { return int(u.members.GetCardinality()) }

// Stations selects the stations of sel.
func Stations(ix *core.Index, sel Select) (*Selection, error) {
	if !ix.Has(format.SectionRBAPI) {
		return nil, ErrNoSection
	}
	w := core.GetWorkspace()
	defer w.Release()
	s := w.NewSearch(ix)
	w.Words = w.Words[:0] // matched by the conditions, not by words
	u := &Selection{reverse: sel.Reverse, order: sel.Order, seed: sel.Seed, from: sel.DistanceFrom}
	err := ix.View(func(tx *bolt.Tx) error {
		s.Tx = tx
		m, err := matches(s, sel)
		if err == nil {
			u.members = m.BM.Clone() // m may be a view of the mapping or a pooled scratch
		}
		return err
	})
	return u, err
}

// PageOf is Page of a selection made before.
func PageOf(ix *core.Index, u *Selection, offset, limit int, dst []byte) ([]byte, int, error) {
	if !ix.Has(format.SectionRBAPI) {
		return dst, 0, ErrNoSection
	}
	if offset < 0 || limit < 1 {
		return dst, 0, fmt.Errorf("%w: limit %d, offset %d", core.ErrInvalidQuery, limit, offset)
	}
	n := 0
	err := ix.View(func(tx *bolt.Tx) error {
		c := newObjectCopier(ix, tx, u.from)
		if u.order == OrderName {
			var err error
			dst, n, err = c.copySet(core.Set{BM: u.members}, u.reverse, offset, limit, dst)
			return err
		}
		if err := ordered(ix, u, tx, min(offset, u.Len())+min(limit, u.Len())); err != nil {
			return err
		}
		var err error
		dst, n, err = c.copyListed(u.list, offset, limit, dst)
		return err
	})
	return dst, n, err
}

// objectCopier appends stored upstream objects to an answer, with their
// geo_distance from a position when there is one.
type objectCopier struct {
	objects core.RecordReader
	records core.RecordReader // with from: the stations' positions
	from    *Position
	rec     format.Record
}

// newObjectCopier reads through the index's block locators: the
// stations of a page lie in as many blocks, each a descent of the
// bucket's tree without them.
func newObjectCopier(ix *core.Index, tx *bolt.Tx, from *Position) *objectCopier {
	return &objectCopier{objects: ix.Located(tx, format.BucketRBAPIJSON), records: ix.Located(tx, format.BucketStations), from: from}
}

// copyListed appends the objects of list from its offset-th, at most
// limit of them.
func (c *objectCopier) copyListed(list []uint32, offset, limit int, dst []byte) ([]byte, int, error) {
	n := 0
	for i := offset; i < len(list) && n < limit; i++ {
		var err error
		if dst, err = c.appendObject(list[i], n, dst); err != nil {
			return dst, n, err
		}
		n++
	}
	return dst, n, nil
}

// appendObject appends the object of record rec, the i-th of a list.
func (c *objectCopier) appendObject(rec uint32, i int, dst []byte) ([]byte, error) {
	js, err := c.objects.Get(rec)
	if err != nil {
		return dst, fmt.Errorf("upstream object: %w", err)
	}
	if i > 0 {
		dst = append(dst, ',')
	}
	if c.from == nil {
		return append(dst, js...), nil
	}
	return c.appendWithDistance(rec, js, dst)
}

// noDistance is the stored object's geo_distance (stationjson.Upstream).
var noDistance = []byte(`,"geo_distance":null,`)

// appendWithDistance appends js with its geo_distance from c.from, in
// metres to the decimetre (the stored positions are microdegrees).
func (c *objectCopier) appendWithDistance(rec uint32, js, dst []byte) ([]byte, error) {
	v, err := c.records.Get(rec)
	if err == nil {
		err = format.DecodeRecord(v, &c.rec)
	}
	at := bytes.Index(js, noDistance)
	if err != nil || at < 0 {
		return dst, fmt.Errorf("%w: station %d: no record or no geo_distance: %v", format.ErrCorrupt, rec, err)
	}
	if !c.rec.Geo.Known {
		return append(dst, js...), nil
	}
	km := format.DistanceKm(c.from.Lat, c.from.Lon, c.rec.Geo.LatDeg(), c.rec.Geo.LonDeg())
	dst = append(dst, js[:at+len(noDistance)-len("null,")]...)
	dst = strconv.AppendFloat(dst, math.Round(km*1e4)/10, 'f', -1, 64)
	return append(dst, js[at+len(noDistance)-1:]...), nil
}

// matches is the set of the stations sel selects. Its codec filter is
// the source's codec (codecs.go), not the engine's.
func matches(s *core.Search, sel Select) (core.Set, error) {
	codecs := sel.Query.Filter[core.DimCodec]
	sel.Query.Filter[core.DimCodec] = nil // sel is a copy; Filter an array
	m, err := s.MatchSet(sel.Query, core.NoDim)
	if err != nil {
		return m, err
	}
	if len(codecs) > 0 && !m.Empty() {
		m, err = narrowSourceCodec(s, m, func(name string) bool {
			return slices.ContainsFunc(codecs, func(v string) bool { return strings.EqualFold(name, v) })
		})
		if err != nil {
			return m, err
		}
	}
	conds := [...]struct {
		bucket []byte
		key    string
		keep   Tri
	}{
		{checkedBucket, checkedKey, sel.CheckOK},
		{format.BucketRBAPIFlags, format.RBAPIFlagExtendedInfo, sel.ExtendedInfo},
		{format.BucketRBAPIFlags, format.RBAPIFlagGeo, sel.Geo},
		{format.BucketNames, fold.Key(sel.NameExact), present(sel.NameExact)},
		{format.BucketRBAPICountries, format.FacetKey(sel.CountryLabel), present(sel.CountryLabel)},
		{format.BucketRBAPIURLs, string(format.RBAPIURLKey(sel.URL)), present(sel.URL)},
	}
	for _, c := range conds {
		if c.keep == Either || m.Empty() {
			continue
		}
		if m, err = narrow(s, m, c.bucket, c.key, c.keep); err != nil {
			return m, err
		}
	}
	for _, g := range sel.Genres {
		if m.Empty() {
			break
		}
		if m, err = narrowSourceTag(s, m, tagIs(g)); err != nil {
			return m, err
		}
	}
	if m, err = narrowContains(s, m, &sel.Contains); err != nil {
		return m, err
	}
	if sel.URL != "" && !m.Empty() {
		return sameURL(s, m, sel.URL)
	}
	return m, nil
}

// hidebroken keeps the stations that passed the source's last check, and
// the lists count only those: the working dimension's key "true".
var checkedBucket, checkedKey = dim.Working.FacetBucket(), "true"

// Working is the number of stations that passed their last check.
func Working(ix *core.Index) (int, error) {
	if !ix.Has(format.SectionRBAPI) {
		return 0, ErrNoSection
	}
	n := 0
	err := ix.View(func(tx *bolt.Tx) error {
		ok, err := checkedOK(tx, true)
		if err == nil {
			n = int(ok.GetCardinality())
		}
		return err
	})
	return n, err
}

func present(condition string) Tri {
	if condition == "" {
		return Either
	}
	return Yes
}

// narrow is m with the stations of the list under key kept (Yes) or
// left out (No). A key that folds to nothing has no list: it keeps none.
func narrow(s *core.Search, m core.Set, bucket []byte, key string, keep Tri) (core.Set, error) {
	list := s.Work.Scratch()
	if key != "" {
		var err error
		if list, err = s.Get(bucket, s.KeyOf(key)); err != nil {
			return m, err
		}
	}
	if keep == Yes {
		return s.Work.And(m, list), nil
	}
	out := m
	if !m.Owned {
		out = s.Work.Scratch()
		out.BM.Or(m.BM)
	}
	out.BM.AndNot(list.BM)
	return out, nil
}

// sameURL keeps the stations of m whose url is exactly url: the digest
// bucket found them, and digests may collide.
func sameURL(s *core.Search, m core.Set, url string) (core.Set, error) {
	out := s.Work.Scratch()
	rr := Reader(s.Tx)
	var obj struct {
		URL string `json:"url"`
	}
	for it := m.BM.Iterator(); it.HasNext(); {
		n := it.Next()
		js, err := rr.Get(n)
		if err != nil {
			return out, err
		}
		obj.URL = ""
		if err := json.Unmarshal(stationjson.Splice(nil, js, ""), &obj); err != nil {
			return out, fmt.Errorf("%w: upstream object %d: %v", format.ErrCorrupt, n, err)
		}
		if obj.URL == url {
			out.BM.Add(n)
		}
	}
	return out, nil
}

// copySet appends the objects of m from its offset-th member in record
// order (or in reverse), at most limit of them.
func (c *objectCopier) copySet(m core.Set, reverse bool, offset, limit int, dst []byte) ([]byte, int, error) {
	total := m.Card()
	if offset >= total {
		return dst, 0, nil
	}
	n := 0
	for it := pageIterator(m, reverse, offset); it.HasNext() && n < limit; n++ {
		var err error
		if dst, err = c.appendObject(it.Next(), n, dst); err != nil {
			return dst, n, err
		}
	}
	return dst, n, nil
}

// pageIterator iterates m from its offset-th member (offset < m.card()):
// forward by advancing to the member Select names, backwards over a copy
// of m without the members after it.
func pageIterator(m core.Set, reverse bool, offset int) interface {
	HasNext() bool
	Next() uint32
} {
	if !reverse {
		it := m.BM.Iterator()
		first, _ := m.BM.Select(uint32(offset))
		it.AdvanceIfNeeded(first)
		return it
	}
	last, _ := m.BM.Select(uint32(m.Card() - 1 - offset))
	head := m.BM.Clone()
	head.RemoveRange(uint64(last)+1, 1<<32)
	return head.ReverseIterator()
}

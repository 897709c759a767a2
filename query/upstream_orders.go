package query

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/format"
)

// The orders of the compatible API (upstream's order parameter). Record
// numbers are in name order, so that order is the members of a set in
// turn; every other order is a permutation of the record numbers, sorted
// by the field and then by record number (a total order, so pages never
// overlap; upstream has no tie-breaker), walked against the set. A
// permutation is made from the stored upstream objects on its first use
// and kept for the life of the Index (4 bytes a station), as the
// directory's orders are; random is a shuffle of the set's members,
// seeded per request.

// UpstreamOrder is an order of upstream's order parameter.
type UpstreamOrder uint8

// The orders, by upstream's names (UpstreamOrders).
const (
	OrderName UpstreamOrder = iota
	OrderURL
	OrderHomepage
	OrderFavicon
	OrderTags
	OrderCountry
	OrderState
	OrderLanguage
	OrderVotes
	OrderCodec
	OrderBitrate
	OrderLastCheckOK
	OrderLastCheckTime
	OrderClickTimestamp
	OrderClickCount
	OrderClickTrend
	OrderChangeTimestamp
	OrderRandom
	numUpstreamOrders
)

// UpstreamOrders names the orders as upstream's order parameter does.
var UpstreamOrders = [numUpstreamOrders]string{
	"name", "url", "homepage", "favicon", "tags", "country", "state", "language", "votes", "codec",
	"bitrate", "lastcheckok", "lastchecktime", "clicktimestamp", "clickcount", "clicktrend",
	"changetimestamp", "random",
}

// upstreamSortFields are the fields of the stored object the orders
// sort by, as named there; the others sort by text (times too: YYYY-MM-DD
// HH:MM:SS sorts as the time).
var upstreamSortFields = [numUpstreamOrders]string{
	OrderURL: "url", OrderHomepage: "homepage", OrderFavicon: "favicon", OrderTags: "tags",
	OrderCountry: "country", OrderState: "state", OrderLanguage: "language", OrderVotes: "votes",
	OrderCodec: "codec", OrderBitrate: "bitrate", OrderLastCheckOK: "lastcheckok",
	OrderLastCheckTime: "lastchecktime", OrderClickTimestamp: "clicktimestamp",
	OrderClickCount: "clickcount", OrderClickTrend: "clicktrend", OrderChangeTimestamp: "lastchangetime",
}

// numericOrders sort by a whole number.
var numericOrders = [numUpstreamOrders]bool{
	OrderVotes: true, OrderBitrate: true, OrderLastCheckOK: true, OrderClickCount: true, OrderClickTrend: true,
}

// storedField is the raw JSON value of the field name in a stored
// object. The object is the encoder's (stationjson.Upstream), every key
// once and none first, so `,"name":` is the key: inside a string a quote
// is escaped and cannot follow the comma.
func storedField(js []byte, name string) ([]byte, bool) {
	key := `,"` + name + `":`
	i := bytes.Index(js, []byte(key))
	if i < 0 {
		return nil, false
	}
	v := js[i+len(key):]
	if len(v) == 0 || v[0] != '"' {
		end := bytes.IndexAny(v, ",}")
		return v[:max(end, 0)], end >= 0
	}
	for j := 1; j < len(v); j++ {
		switch v[j] {
		case '\\':
			j++
		case '"':
			return v[:j+1], true
		}
	}
	return nil, false
}

// sortKey reads the field of o from a stored object.
func sortKey(js []byte, o UpstreamOrder) (num int64, text string, err error) {
	raw, ok := storedField(js, upstreamSortFields[o])
	switch {
	case !ok:
		err = fmt.Errorf("no field %s", upstreamSortFields[o])
	case numericOrders[o]:
		num, err = strconv.ParseInt(string(raw), 10, 64)
	case bytes.IndexByte(raw, '\\') < 0:
		text = string(raw[1 : len(raw)-1])
	default:
		err = json.Unmarshal(raw, &text)
	}
	return num, text, err
}

// upstreamPermutations are the permutations of one Index, made on first use.
type upstreamPermutations struct {
	once [numUpstreamOrders]sync.Once
	perm [numUpstreamOrders][]uint32
	err  [numUpstreamOrders]error
}

// permutation is the record numbers of ix in order o (not name, not
// random).
func (ix *Index) permutation(o UpstreamOrder) ([]uint32, error) {
	p := &ix.upOrders
	p.once[o].Do(func() { p.perm[o], p.err[o] = ix.sortRecords(o) })
	return p.perm[o], p.err[o]
}

// sortRecords reads every stored object's field of o and sorts the
// record numbers by it, then by number.
func (ix *Index) sortRecords(o UpstreamOrder) ([]uint32, error) {
	type keyed struct {
		n    uint32
		num  int64
		text string
	}
	all := make([]keyed, 0, ix.meta.Stations)
	err := ix.view(func(tx *bolt.Tx) error {
		rr := upstreamReader(tx)
		for n := range uint32(ix.meta.Stations) {
			js, err := rr.get(n)
			if err != nil {
				return err
			}
			num, text, err := sortKey(js, o)
			if err != nil {
				return fmt.Errorf("%w: upstream object %d: %v", format.ErrCorrupt, n, err)
			}
			all = append(all, keyed{n, num, text})
		}
		return nil
	})
	slices.SortFunc(all, func(a, b keyed) int {
		return cmp.Or(cmp.Compare(a.num, b.num), cmp.Compare(a.text, b.text), cmp.Compare(a.n, b.n))
	})
	perm := make([]uint32, len(all))
	for i, k := range all {
		perm[i] = k.n
	}
	return perm, err
}

// upstreamOrdered is the members of u in its order, for an order other than
// name: the permutation's members, or the members shuffled.
func (ix *Index) upstreamOrdered(u *UpstreamSet) ([]uint32, error) {
	if u.order == OrderRandom {
		members := u.members.ToArray()
		rng := rand.New(rand.NewPCG(u.seed, u.seed))
		rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		return members, nil
	}
	perm, err := ix.permutation(u.order)
	if err != nil {
		return nil, err
	}
	out := make([]uint32, 0, u.Len())
	for _, n := range perm {
		if u.members.Contains(n) {
			out = append(out, n)
		}
	}
	return out, nil
}

package query

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer/format"
)

// The orders of the compatible API (upstream's order parameter). Record
// numbers are in name order, so that order is the members of a set in
// turn; every other order but random is a permutation of the record
// numbers the indexer stored (format.BucketUpstreamOrders), sorted by the
// field and then by record number (a total order, so pages never
// overlap; upstream has no tie-breaker), walked against the set as far
// as a page needs. A set much smaller than the index is sorted instead:
// its members' stored objects give their sort keys, which order them as
// the permutation does, at a cost that grows with the set, not with the
// index. random is a shuffle of the set's members, seeded per request.

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

// UpstreamOrders names the orders as upstream's order parameter does:
// name, the stored orders (format.UpstreamSorts) and random.
var UpstreamOrders = func() (names [numUpstreamOrders]string) {
	names[OrderName], names[OrderRandom] = "name", "random"
	for s, sort := range format.UpstreamSorts {
		names[s+1] = sort.Name
	}
	return names
}()

// stored is the number of o's permutation in format.UpstreamSorts.
func (o UpstreamOrder) stored() int { return int(o) - 1 }

// sortSmallerThan: a set of fewer members than the index's stations
// divided by it is sorted by its members' keys rather than found in the
// permutation. Sorting costs a stored object read and a key per member
// and a comparison sort (about 400 ns a member); walking, a look-up in
// the set per station walked (7 to 30 ns), up to the whole index for a
// sparse set, whose last member is near the end. On the real snapshot
// (50,662 stations; BenchmarkUpstreamOrderWays, by votes) 791 members
// took 0.29 ms sorted and 1.4 ms walked, 5,000 took 2.7 ms sorted and
// 0.35 ms walked.
const sortSmallerThan = 64

// ordered puts u.list in u's order, as far as its first upto members
// (all of them for random and for a sorted set), reading within tx.
func (u *UpstreamSet) ordered(tx *bolt.Tx, stations, upto int) error {
	switch {
	case u.order == OrderName || u.complete || len(u.list) >= upto:
		return nil
	case u.order == OrderRandom:
		u.list = u.members.ToArray()
		rng := rand.New(rand.NewPCG(u.seed, u.seed))
		rng.Shuffle(len(u.list), func(i, j int) { u.list[i], u.list[j] = u.list[j], u.list[i] })
		u.complete = true
		return nil
	case u.Len()*sortSmallerThan < stations && u.walked == 0:
		return u.sortMembers(tx)
	}
	return u.walk(tx, stations, upto)
}

// sortMembers orders the members by their stored objects' sort keys.
func (u *UpstreamSet) sortMembers(tx *bolt.Tx) error {
	type keyed struct {
		n   uint32
		key []byte
	}
	all := make([]keyed, 0, u.Len())
	rr := upstreamReader(tx)
	var keys []byte
	for it := u.members.Iterator(); it.HasNext(); {
		n := it.Next()
		js, err := rr.get(n)
		if err != nil {
			return fmt.Errorf("upstream object %d: %w", n, err)
		}
		start := len(keys)
		if keys, err = format.AppendUpstreamSortKey(keys, js, u.order.stored()); err != nil {
			return fmt.Errorf("%w: upstream object %d: %v", format.ErrCorrupt, n, err)
		}
		all = append(all, keyed{n, keys[start:len(keys):len(keys)]})
	}
	// keys may have moved as it grew: the slices of all are of the
	// arrays they were cut from, which stay valid.
	slices.SortFunc(all, func(a, b keyed) int {
		return cmp.Or(bytes.Compare(a.key, b.key), cmp.Compare(a.n, b.n))
	})
	u.list = make([]uint32, len(all))
	for i, k := range all {
		u.list[i] = k.n
	}
	if u.reverse {
		slices.Reverse(u.list)
	}
	u.complete = true
	return nil
}

// walk appends to u.list the members found walking on in the stored
// permutation (backwards when reversed) until it holds upto, or the
// permutation ends.
func (u *UpstreamSet) walk(tx *bolt.Tx, stations, upto int) error {
	b := tx.Bucket(format.BucketUpstreamOrders)
	upto = min(upto, u.Len())
	for len(u.list) < upto && u.walked < stations {
		pos := u.walked // in the walk's direction
		if u.reverse {
			pos = stations - 1 - u.walked
		}
		chunk := b.Get(format.UpstreamOrderKey(u.order.stored(), uint32(pos/format.OrderChunkLen)))
		first := pos / format.OrderChunkLen * format.OrderChunkLen
		if want := 4 * min(format.OrderChunkLen, stations-first); len(chunk) != want {
			return fmt.Errorf("%w: order %s: chunk of %d bytes at %d, want %d", format.ErrCorrupt, UpstreamOrders[u.order], len(chunk), first, want)
		}
		for i := pos - first; i >= 0 && i < len(chunk)/4 && len(u.list) < upto; u.walked++ {
			n := binary.LittleEndian.Uint32(chunk[4*i:])
			if u.members.Contains(n) {
				u.list = append(u.list, n)
			}
			if u.reverse {
				i--
			} else {
				i++
			}
		}
	}
	u.complete = u.walked == stations || len(u.list) == u.Len()
	return nil
}

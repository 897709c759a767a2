package rbapi

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"

	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	"stationdex/query/core"
)

// The orders of the Radio Browser API (upstream's order parameter). Record
// numbers are in name order, so that order is the members of a set in
// turn; every other order but random is a permutation of the record
// numbers the indexer stored (format.BucketRBAPIOrders), sorted by the
// field and then by record number (a total order, so pages never
// overlap; upstream has no tie-breaker), walked against the set as far
// as a page needs. A set small beside the index is sorted instead, by
// its members' places in the permutation (ranks, made from it once per
// index), at a cost that grows with the set, not with the index. random
// is a shuffle of the set's members, seeded per request.

// Order is an order of upstream's order parameter.
type Order uint8

// The orders, by upstream's names (Orders).
const (
	OrderName Order = iota
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
	numOrders
)

// Orders names the orders as upstream's order parameter does:
// name, the stored orders (format.RBAPISorts) and random.
var Orders = func() (names [numOrders]string) {
	names[OrderName], names[OrderRandom] = "name", "random"
	for s, sort := range format.RBAPISorts {
		names[s+1] = sort.Name
	}
	return names
}()

// stored is the number of o's permutation in format.RBAPISorts.
func (o Order) stored() int { return int(o) - 1 }

// sortOrWalk weighs the two ways for a set of k members, to the upto-th
// in order, in an index of n stations: sorting costs about k (the
// members' ranks and a sort), walking about upto·n/k tests of a bit (the
// members are spread over the permutation). A set is sorted when
// k² < upto·n·sortOrWalk: on the real snapshot (BenchmarkUpstreamOrderWays,
// by votes, a whole set each way, loaded machine) a sort took 20-60 ns a
// member (1,000: 20 us; 5,000: 0.15 ms) and a walk 2 ns a station walked
// (the whole permutation: 0.1 ms).
const sortOrWalk = 1.0 / 16

func sortsCheaper(k, upto, n int) bool {
	return float64(k)*float64(k) < float64(upto)*float64(n)*sortOrWalk
}

// ordered puts u.list in u's order, as far as its first upto members
// (all of them for random and for a sorted set), reading within tx.
func ordered(ix *core.Index, u *Selection, tx *bolt.Tx, upto int) error {
	switch {
	case u.order == OrderName || u.complete || len(u.list) >= upto:
		return nil
	case u.order == OrderRandom:
		u.list = u.members.ToArray()
		rng := rand.New(rand.NewPCG(u.seed, u.seed))
		rng.Shuffle(len(u.list), func(i, j int) { u.list[i], u.list[j] = u.list[j], u.list[i] })
		u.complete = true
		return nil
	case u.walked == 0 && sortsCheaper(u.Len(), upto, ix.Meta().Stations):
		ranks, err := ranks(ix, tx, u.order)
		if err != nil {
			return err
		}
		return u.sortMembers(ranks)
	}
	return u.walk(tx, ix.Meta().Stations, upto)
}

// ranks is each record's place in order o's stored permutation, made
// from it once per index (4 bytes a station, for each order asked for):
// a set's members are put in order by sorting their places, where
// reading each one's stored object for its sort key took 400 ns a
// member.
func ranks(ix *core.Index, tx *bolt.Tx, o Order) ([]uint32, error) {
	v, err := ix.Derived("query: ranks in the order "+Orders[o], func(ix *core.Index) (any, error) {
		stations := ix.Meta().Stations
		ranks := make([]uint32, stations)
		b := tx.Bucket(format.BucketRBAPIOrders)
		for first := 0; first < stations; first += format.OrderChunkLen {
			chunk := b.Get(format.RBAPIOrderKey(o.stored(), uint32(first/format.OrderChunkLen)))
			if want := 4 * min(format.OrderChunkLen, stations-first); len(chunk) != want {
				return nil, fmt.Errorf("%w: order %s: chunk of %d bytes at %d, want %d", format.ErrCorrupt, Orders[o], len(chunk), first, want)
			}
			for i := range len(chunk) / 4 {
				n := binary.LittleEndian.Uint32(chunk[4*i:])
				if int(n) >= stations {
					return nil, fmt.Errorf("%w: order %s: record %d past the stations", format.ErrCorrupt, Orders[o], n)
				}
				ranks[n] = uint32(first + i)
			}
		}
		return ranks, nil
	})
	ranks, _ := v.([]uint32)
	return ranks, err
}

// sortMembers orders the members by their ranks in u's order.
func (u *Selection) sortMembers(ranks []uint32) error {
	keyed := make([]uint64, 0, u.Len())
	for it := u.members.Iterator(); it.HasNext(); {
		n := it.Next()
		if int(n) >= len(ranks) {
			return fmt.Errorf("%w: record %d past the stations", format.ErrCorrupt, n)
		}
		keyed = append(keyed, uint64(ranks[n])<<32|uint64(n))
	}
	slices.Sort(keyed)
	u.list = make([]uint32, len(keyed))
	for i, k := range keyed {
		u.list[i] = uint32(k)
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
func (u *Selection) walk(tx *bolt.Tx, stations, upto int) error {
	b := tx.Bucket(format.BucketRBAPIOrders)
	upto = min(upto, u.Len())
	if u.dense == nil {
		// a bit per station: a walk tests every station it passes, and
		// roaring's Contains searched an array container each time
		u.dense = make([]uint64, (stations+63)/64)
		u.members.WriteDenseTo(u.dense)
	}
	for len(u.list) < upto && u.walked < stations {
		pos := u.walked // in the walk's direction
		if u.reverse {
			pos = stations - 1 - u.walked
		}
		chunk := b.Get(format.RBAPIOrderKey(u.order.stored(), uint32(pos/format.OrderChunkLen)))
		first := pos / format.OrderChunkLen * format.OrderChunkLen
		if want := 4 * min(format.OrderChunkLen, stations-first); len(chunk) != want {
			return fmt.Errorf("%w: order %s: chunk of %d bytes at %d, want %d", format.ErrCorrupt, Orders[u.order], len(chunk), first, want)
		}
		for i := pos - first; i >= 0 && i < len(chunk)/4 && len(u.list) < upto; u.walked++ {
			n := binary.LittleEndian.Uint32(chunk[4*i:])
			if w := int(n >> 6); w < len(u.dense) && u.dense[w]&(1<<(n&63)) != 0 {
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

package rbapi

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	"stationdex/query/core"
)

func TestUpstreamOrderNames(t *testing.T) {
	if int(numOrders) != len(format.RBAPISorts)+2 {
		t.Fatalf("%d orders, %d stored", numOrders, len(format.RBAPISorts))
	}
	for o := OrderURL; o < OrderRandom; o++ {
		if Orders[o] != format.RBAPISorts[o.stored()].Name {
			t.Errorf("order %d is %s, stored %s", o, Orders[o], format.RBAPISorts[o.stored()].Name)
		}
	}
}

// TestUpstreamOrderWaysAgree: a set sorted by its members' keys is in the
// order the stored permutation walks, forwards and reversed, and a walk
// page by page gives what a walk at once does.
func TestUpstreamOrderWaysAgree(t *testing.T) {
	ix, _ := realIndex(t)
	rng := rand.New(rand.NewPCG(27, 13))
	n := ix.Meta().Stations
	for o := OrderURL; o < OrderRandom; o++ {
		for _, size := range []int{1, 40, 791, min(5000, n)} {
			members := roaring.New()
			for members.GetCardinality() < uint64(size) {
				members.Add(uint32(rng.IntN(n)))
			}
			for _, reverse := range []bool{false, true} {
				sorted := &Selection{members: members, order: o, reverse: reverse}
				walked := &Selection{members: members, order: o, reverse: reverse}
				paged := &Selection{members: members, order: o, reverse: reverse}
				err := ix.View(func(tx *bolt.Tx) error {
					ranks, err := ranks(ix, tx, o)
					if err != nil {
						return err
					}
					if err := sorted.sortMembers(ranks); err != nil {
						return err
					}
					if err := walked.walk(tx, n, size); err != nil {
						return err
					}
					for upto := 7; !paged.complete; upto += 7 {
						if err := paged.walk(tx, n, upto); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(sorted.list, walked.list) || !slices.Equal(walked.list, paged.list) || len(sorted.list) != size {
					t.Fatalf("order %s, %d members, reverse %v: sorted %d, walked %d, paged %d differ",
						Orders[o], size, reverse, len(sorted.list), len(walked.list), len(paged.list))
				}
			}
		}
	}
}

// BenchmarkUpstreamFirstOrder is the first request of each stored order
// on an Index just opened (the first page of every station in it): what
// a server pays once per order and snapshot. Opening is not timed. With
// STATIONDEX_BENCH_INDEX set (a scaled -compat index), that index is
// opened once and each order's first request is timed on it: run it
// with -benchtime 1x.
func BenchmarkUpstreamFirstOrder(b *testing.B) {
	path, shared := os.Getenv("STATIONDEX_BENCH_INDEX"), (*core.Index)(nil)
	if path == "" {
		path = realPath(b)
	} else {
		var err error
		if shared, err = core.Open(path); err != nil {
			b.Fatal(err)
		}
		defer shared.Close()
	}
	for o := OrderURL; o < OrderRandom; o++ {
		b.Run(Orders[o], func(b *testing.B) {
			for b.Loop() {
				ix := shared
				if ix == nil {
					b.StopTimer()
					var err error
					if ix, err = core.Open(path); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				if _, _, err := Page(ix, Select{Order: o}, 0, 10, nil); err != nil {
					b.Fatal(err)
				}
				if ix != shared {
					b.StopTimer()
					ix.Close()
					b.StartTimer()
				}
			}
		})
	}
}

// BenchmarkUpstreamOrderWays is the cost of putting a whole set in an
// order both ways, by set size: what sortSmallerThan weighs.
func BenchmarkUpstreamOrderWays(b *testing.B) {
	ix, _ := realIndex(b)
	n := ix.Meta().Stations
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{100, 1000, 5000, 20000} {
		members := roaring.New()
		for members.GetCardinality() < uint64(size) {
			members.Add(uint32(rng.IntN(n)))
		}
		for _, way := range []string{"sort", "walk"} {
			b.Run(fmt.Sprintf("%d/%s", size, way), func(b *testing.B) {
				for b.Loop() {
					u := &Selection{members: members, order: OrderVotes}
					err := ix.View(func(tx *bolt.Tx) error {
						if way == "sort" {
							ranks, err := ranks(ix, tx, u.order)
							if err != nil {
								return err
							}
							return u.sortMembers(ranks)
						}
						return u.walk(tx, n, size)
					})
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

package core

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
)

func TestUpstreamOrderNames(t *testing.T) {
	if int(numUpstreamOrders) != len(format.UpstreamSorts)+2 {
		t.Fatalf("%d orders, %d stored", numUpstreamOrders, len(format.UpstreamSorts))
	}
	for o := OrderURL; o < OrderRandom; o++ {
		if UpstreamOrders[o] != format.UpstreamSorts[o.stored()].Name {
			t.Errorf("order %d is %s, stored %s", o, UpstreamOrders[o], format.UpstreamSorts[o.stored()].Name)
		}
	}
}

// TestUpstreamOrderWaysAgree: a set sorted by its members' keys is in the
// order the stored permutation walks, forwards and reversed, and a walk
// page by page gives what a walk at once does.
func TestUpstreamOrderWaysAgree(t *testing.T) {
	ix, _ := realIndex(t)
	rng := rand.New(rand.NewPCG(27, 13))
	n := ix.meta.Stations
	for o := OrderURL; o < OrderRandom; o++ {
		for _, size := range []int{1, 40, 791, 5000} {
			members := roaring.New()
			for members.GetCardinality() < uint64(size) {
				members.Add(uint32(rng.IntN(n)))
			}
			for _, reverse := range []bool{false, true} {
				sorted := &UpstreamSet{members: members, order: o, reverse: reverse}
				walked := &UpstreamSet{members: members, order: o, reverse: reverse}
				paged := &UpstreamSet{members: members, order: o, reverse: reverse}
				err := ix.View(func(tx *bolt.Tx) error {
					ranks, err := ix.ranks(tx, o)
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
						UpstreamOrders[o], size, reverse, len(sorted.list), len(walked.list), len(paged.list))
				}
			}
		}
	}
}

// TestCheckFindsDamagedUpstreamOrders: a stored order that is not a
// sorted permutation of the records is refused by Check, even with
// checksums to match (a faulty build).
func TestCheckFindsDamagedUpstreamOrders(t *testing.T) {
	text, _ := upstreamInput(t)
	path := buildIndex(t, text)
	votes := -1
	for s, sort := range format.UpstreamSorts {
		if sort.Name == "votes" {
			votes = s
		}
	}
	chunk := func(tx *bolt.Tx, s int, change func(v []byte) []byte) error {
		b := tx.Bucket(format.BucketUpstreamOrders)
		k := format.UpstreamOrderKey(s, 0)
		return b.Put(k, change(bytes.Clone(b.Get(k))))
	}
	for _, tt := range []struct {
		name   string
		damage func(tx *bolt.Tx) error
	}{
		{"two records swapped", func(tx *bolt.Tx) error {
			return chunk(tx, votes, func(v []byte) []byte {
				a, b := binary.LittleEndian.Uint32(v), binary.LittleEndian.Uint32(v[4:])
				binary.LittleEndian.PutUint32(v, b)
				binary.LittleEndian.PutUint32(v[4:], a)
				return v
			})
		}},
		{"a record twice", func(tx *bolt.Tx) error {
			return chunk(tx, votes, func(v []byte) []byte { copy(v[4:8], v[:4]); return v })
		}},
		{"a record past the end", func(tx *bolt.Tx) error {
			return chunk(tx, 0, func(v []byte) []byte { binary.LittleEndian.PutUint32(v, 1<<20); return v })
		}},
		{"a short chunk", func(tx *bolt.Tx) error {
			return chunk(tx, 0, func(v []byte) []byte { return v[:len(v)-4] })
		}},
		{"a chunk missing", func(tx *bolt.Tx) error {
			return tx.Bucket(format.BucketUpstreamOrders).Delete(format.UpstreamOrderKey(3, 0))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := copyFile(t, path)
			db, err := bolt.Open(p, 0o644, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = db.Update(func(tx *bolt.Tx) error {
				if err := tt.damage(tx); err != nil {
					return err
				}
				return reseal(tx)
			})
			if cerr := db.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Check(p); !errors.Is(err, format.ErrCorrupt) {
				t.Errorf("Check: %v, want ErrCorrupt", err)
			}
		})
	}
}

// BenchmarkUpstreamFirstOrder is the first request of each stored order
// on an Index just opened (the first page of every station in it): what
// a server pays once per order and snapshot. Opening is not timed. With
// STATIONDEX_BENCH_INDEX set (a scaled -compat index), that index is
// opened once and each order's first request is timed on it: run it
// with -benchtime 1x.
func BenchmarkUpstreamFirstOrder(b *testing.B) {
	path, shared := os.Getenv("STATIONDEX_BENCH_INDEX"), (*Index)(nil)
	if path == "" {
		realIndex(b)
		path = filepath.Join(sharedDir, "real.idx")
	} else {
		var err error
		if shared, err = Open(path); err != nil {
			b.Fatal(err)
		}
		defer shared.Close()
	}
	for o := OrderURL; o < OrderRandom; o++ {
		b.Run(UpstreamOrders[o], func(b *testing.B) {
			for b.Loop() {
				ix := shared
				if ix == nil {
					b.StopTimer()
					var err error
					if ix, err = Open(path); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				if _, _, err := ix.UpstreamPage(UpstreamSelect{Order: o}, 0, 10, nil); err != nil {
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
	n := ix.meta.Stations
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{100, 1000, 5000, 20000} {
		members := roaring.New()
		for members.GetCardinality() < uint64(size) {
			members.Add(uint32(rng.IntN(n)))
		}
		for _, way := range []string{"sort", "walk"} {
			b.Run(fmt.Sprintf("%d/%s", size, way), func(b *testing.B) {
				for b.Loop() {
					u := &UpstreamSet{members: members, order: OrderVotes}
					err := ix.View(func(tx *bolt.Tx) error {
						if way == "sort" {
							ranks, err := ix.ranks(tx, u.order)
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

package core

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/internal/format"
	"stationdex/query/internal/testindex"
)

func TestCheckSoundIndex(t *testing.T) {
	small(t)
	rep, err := Check(smallPath)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Records != len(smallSet) || rep.Version != format.Version || rep.Bitmaps == 0 || len(rep.Buckets) != len(format.AllBuckets) {
		t.Errorf("report %+v", rep)
	}
}

// TestCheckCompatIndex: a default build (smallPath) has none of the
// compatible API's buckets and reports none; one built with Compat has
// them all, announced in its meta, and Check verifies them.
func TestCheckCompatIndex(t *testing.T) {
	small(t)
	plain, err := Check(smallPath)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Meta.RBAPI {
		t.Error("default build: meta says compat")
	}
	for _, b := range plain.Buckets {
		for _, name := range format.RBAPIBuckets {
			if b.Name == string(name) {
				t.Errorf("default build: bucket %s reported", name)
			}
		}
	}
	text, _ := testindex.RBAPIInput(t)
	rep, err := Check(buildIndex(t, text))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Meta.RBAPI || len(rep.Buckets) != len(format.AllBuckets)+len(format.RBAPIBuckets) {
		t.Errorf("compat build: report %+v", rep)
	}
	for _, b := range rep.Buckets[len(format.AllBuckets):] {
		if b.Keys == 0 && b.Name != string(format.BucketRBAPIURLs) {
			t.Errorf("compat build: bucket %s empty", b.Name)
		}
	}
}

func serialized(t *testing.T, values ...uint32) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := roaring.BitmapOf(values...).WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestCheckFindsDamage(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T) func(tx *bolt.Tx) error
	}{
		{"garbage bitmap", func(t *testing.T) func(tx *bolt.Tx) error { return put("genres", "pop", "garbage!") }},
		{"bitmap with trailing bytes", func(t *testing.T) func(tx *bolt.Tx) error {
			return put("genres", "pop", serialized(t, 1)+"xx")
		}},
		{"record number past the end", func(t *testing.T) func(tx *bolt.Tx) error {
			return put("countries", "DE", serialized(t, 1, 1<<20))
		}},
		{"empty posting list", func(t *testing.T) func(tx *bolt.Tx) error { return put("countries", "DE", serialized(t)) }},
		{"undecodable record", func(t *testing.T) func(tx *bolt.Tx) error {
			return put("stations", string(format.RecordKey(3)), "short")
		}},
		{"id missing", func(t *testing.T) func(tx *bolt.Tx) error {
			return func(tx *bolt.Tx) error {
				id := station{N: 5}.UUID()
				return tx.Bucket(format.BucketIDs).Delete(id[:])
			}
		}},
		{"records out of name order", func(t *testing.T) func(tx *bolt.Tx) error {
			return func(tx *bolt.Tx) error {
				b := tx.Bucket(format.BucketStations)
				first := bytes.Clone(b.Get(format.RecordKey(0)))
				second := bytes.Clone(b.Get(format.RecordKey(1)))
				if err := b.Put(format.RecordKey(0), second); err != nil {
					return err
				}
				return b.Put(format.RecordKey(1), first)
			}
		}},
		{"undecodable station JSON block", func(t *testing.T) func(tx *bolt.Tx) error {
			return put("station_json", string(format.BlockKey(0)), "short")
		}},
		{"station JSON of other stations", func(t *testing.T) func(tx *bolt.Tx) error {
			return func(tx *bolt.Tx) error { // slots 0 and 1 swapped
				b := tx.Bucket(format.BucketStationJSON)
				block := b.Get(format.BlockKey(0))
				n, err := format.BlockLen(block)
				if err != nil {
					return err
				}
				slots := make([][]byte, n)
				for i := range slots {
					if slots[i], err = format.BlockRecord(block, i); err != nil {
						return err
					}
				}
				slots[0], slots[1] = slots[1], slots[0]
				return b.Put(format.BlockKey(0), format.AppendBlock(nil, slots))
			}
		}},
		{"station JSON block missing", func(t *testing.T) func(tx *bolt.Tx) error {
			return func(tx *bolt.Tx) error { return tx.Bucket(format.BucketStationJSON).Delete(format.BlockKey(0)) }
		}},
		{"word reach off by one", func(t *testing.T) func(tx *bolt.Tx) error {
			return func(tx *bolt.Tx) error {
				b := tx.Bucket(format.BucketDictionary)
				reach := bytes.Clone(b.Get(format.KeyWordReach))
				reach[0]++
				return b.Put(format.KeyWordReach, reach)
			}
		}},
		{"word reach missing", func(t *testing.T) func(tx *bolt.Tx) error {
			return func(tx *bolt.Tx) error { return tx.Bucket(format.BucketDictionary).Delete(format.KeyWordReach) }
		}},
		{"facet memo that is not the count", func(t *testing.T) func(tx *bolt.Tx) error {
			m := format.MemoCounts{Stations: 1, Limit: 50, Facets: [][]format.MemoCount{{{ID: 0, N: 1}}, nil, nil}}
			return put("facet_memo", string(format.MemoListKey(0, []byte("DE"))), string(format.AppendMemoCounts(nil, &m)))
		}},
		{"facet memo of no list", func(t *testing.T) func(tx *bolt.Tx) error {
			return func(tx *bolt.Tx) error {
				b := tx.Bucket(format.BucketFacetMemo)
				_, v := b.Cursor().First()
				return b.Put(format.MemoListKey(0, []byte("ZZ")), bytes.Clone(v))
			}
		}},
		{"meta counts wrong", func(t *testing.T) func(tx *bolt.Tx) error {
			return func(tx *bolt.Tx) error {
				return tx.Bucket(format.BucketGenres).Put([]byte("extra"), []byte(serialized(t, 1)))
			}
		}}, // The groups cases start from sound groups (grouped), as the small
		// set has none.
		{"record missing from group_of", func(t *testing.T) func(tx *bolt.Tx) error {
			return then(grouped([]int{1, 4}), func(tx *bolt.Tx) error {
				b := tx.Bucket(format.BucketGroupOf)
				v := b.Get(format.BlockKey(0))
				return b.Put(format.BlockKey(0), bytes.Clone(v[:len(v)-4]))
			})
		}},
		{"grouped record that group_of says stands alone", func(t *testing.T) func(tx *bolt.Tx) error {
			return then(grouped([]int{1, 4}), func(tx *bolt.Tx) error { return setGroupOf(tx, 4, 0) })
		}},
		{"member listed in two groups", func(t *testing.T) func(tx *bolt.Tx) error {
			return then(grouped([]int{1, 4}, []int{2, 3}), func(tx *bolt.Tx) error {
				return putGroup(tx, 2, 3, 4) // 4 also in 2's group, in id order
			})
		}},
		{"group_of pointing to the wrong group", func(t *testing.T) func(tx *bolt.Tx) error {
			return then(grouped([]int{1, 4}, []int{2, 3}), func(tx *bolt.Tx) error { return setGroupOf(tx, 4, 2) })
		}},
		{"group out of representative order", func(t *testing.T) func(tx *bolt.Tx) error {
			return then(grouped([]int{2, 3, 5}), func(tx *bolt.Tx) error {
				return putGroup(tx, 2, 5, 3) // 5's id is after 3's
			})
		}},
		{"meta group count wrong", func(t *testing.T) func(tx *bolt.Tx) error {
			return then(grouped([]int{1, 4}), func(tx *bolt.Tx) error {
				return setMeta(tx, func(m *format.Meta) { m.Groups++ })
			})
		}},
		{"listed groups that are not the count", func(t *testing.T) func(tx *bolt.Tx) error {
			return then(grouped([]int{5, 11}), func(tx *bolt.Tx) error {
				de := format.ListedGroupsKey(format.BucketCountries, []byte("DE"))
				return tx.Bucket(format.BucketListedGroups).Put(de, format.AppendListedGroups(nil, 3))
			})
		}},
		{"listed groups of no value", func(t *testing.T) func(tx *bolt.Tx) error {
			return put("listed_groups", "countries\x00ZZ", "\x00\x00\x00\x01")
		}},
		{"word groups of a word that finds few stations", func(t *testing.T) func(tx *bolt.Tx) error {
			return put("word_groups", "jazz", "\x00\x00\x00\x01")
		}},
		{"genre label whose key differs", func(t *testing.T) func(tx *bolt.Tx) error {
			return put("genre_labels", "pop", "rock")
		}},
		{"missing genre label", func(t *testing.T) func(tx *bolt.Tx) error {
			return func(tx *bolt.Tx) error { return tx.Bucket(format.BucketGenreLabels).Delete([]byte("pop")) }
		}},
		{"genre label of no genre", func(t *testing.T) func(tx *bolt.Tx) error {
			return put("genre_labels", "polka", "Polka")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// As damage, the checksums refuse it at Open, and so Check.
			if _, err := Check(damaged(t, tt.damage(t))); !errors.Is(err, format.ErrCorrupt) {
				t.Errorf("Check of the damaged file: %v, want ErrCorrupt", err)
			}
			// As a faulty build with matching checksums, Check's decoding
			// must find it.
			_, err := Check(resealed(t, tt.damage(t)))
			if !errors.Is(err, format.ErrCorrupt) {
				t.Errorf("Check of the resealed file: %v, want ErrCorrupt", err)
			}
			t.Log(err)
		})
	}
}

// TestStationJSONOnDamagedBlockFails: stored JSON that a faulty build
// wrote (checksums to match) is met by SearchJSON and StationJSON, which
// must say so rather than panic or send a piece of it.
func TestStationJSONOnDamagedBlockFails(t *testing.T) {
	for _, value := range []string{"", "short", "\x02\x00\x00\x00\x00\x00\x00\x00\xff\x00\x00\x00\x10\x00\x00\x00"} {
		ix := openIndex(t, resealed(t, put("station_json", string(format.BlockKey(0)), value)))
		if _, _, err := searchJSON(ix, Query{Limit: 10}, nil); !errors.Is(err, format.ErrCorrupt) {
			t.Errorf("value %q: SearchJSON: err %v, want ErrCorrupt", value, err)
		}
		if _, err := ix.StationJSON(station{N: 1}.UUID(), nil); !errors.Is(err, format.ErrCorrupt) {
			t.Errorf("value %q: StationJSON: err %v, want ErrCorrupt", value, err)
		}
	}
	// Another station's JSON in the slot the ids bucket points at.
	ix := openIndex(t, resealed(t, func(tx *bolt.Tx) error {
		b := tx.Bucket(format.BucketIDs)
		one, two := station{N: 1}.UUID(), station{N: 2}.UUID()
		n := bytes.Clone(b.Get(two[:]))
		return b.Put(one[:], n)
	}))
	if _, err := ix.StationJSON(station{N: 1}.UUID(), nil); !errors.Is(err, format.ErrCorrupt) {
		t.Errorf("ids entry of another station: StationJSON: err %v, want ErrCorrupt", err)
	}
}

// TestSearchOnDamagedBitmapFails: Open verifies checksums but decodes no
// bitmap, so a posting list that a faulty build wrote (with checksums to
// match) is met by Search, which must say so rather than panic.
func TestSearchOnDamagedBitmapFails(t *testing.T) {
	for _, value := range []string{"garbage!", "", "\x3b\x30\x00\x00\x01\x00\x00\x00\xff\xff"} {
		ix := openIndex(t, resealed(t, put("genres", "pop", value)))
		if _, err := search(ix, Query{Filter: filters("", "", "pop"), Limit: 10}); !errors.Is(err, format.ErrCorrupt) {
			t.Errorf("value %q: err %v, want ErrCorrupt", value, err)
		}
	}
}

func TestCheckRealSnapshot(t *testing.T) {
	realIndex(t)
	rep, err := Check(real.ix.Path())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Records != len(real.recs) {
		t.Errorf("%d records checked, %d read", rep.Records, len(real.recs))
	}
	t.Logf("%+v", rep)
}

func TestCheckFindsDamagedFile(t *testing.T) {
	small(t)
	rep, err := Check(smallPath)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files == 0 {
		t.Fatal("the small index holds no files: the damage below would test nothing")
	}
	// The small index's dumps are far below FileChunkSize, likely one
	// chunk each; stored again in three chunks of unequal sizes, which is
	// as valid, they have a middle chunk to lose.
	rechunked := resealed(t, rechunk(format.FileStationsNDJSON, 3))
	if got, err := Check(rechunked); err != nil || got.Files != rep.Files {
		t.Fatalf("rechunked: %d files checked, %v; want %d, nil", got.Files, err, rep.Files)
	}
	ndjson := func(i uint32) []byte { return format.FileChunkKey(format.FileStationsNDJSON, i) }
	tests := []struct {
		name   string
		damage func(tx *bolt.Tx) error
	}{
		{"flipped byte", func(tx *bolt.Tx) error {
			b := tx.Bucket(format.BucketFiles)
			v := bytes.Clone(b.Get(ndjson(0)))
			v[len(v)/2] ^= 0xff
			return b.Put(ndjson(0), v)
		}},
		{"truncated chunk", func(tx *bolt.Tx) error {
			b := tx.Bucket(format.BucketFiles)
			v := bytes.Clone(b.Get(ndjson(0)))
			return b.Put(ndjson(0), v[:len(v)-1])
		}},
		{"missing middle chunk", func(tx *bolt.Tx) error {
			if err := rechunk(format.FileStationsNDJSON, 3)(tx); err != nil {
				return err
			}
			return tx.Bucket(format.BucketFiles).Delete(ndjson(1))
		}},
		{"chunk past a gap", func(tx *bolt.Tx) error {
			b := tx.Bucket(format.BucketFiles)
			last := uint32(0)
			for b.Get(ndjson(last+1)) != nil {
				last++
			}
			return b.Put(ndjson(last+2), []byte("x"))
		}},
		{"missing file", deleteFile(format.FileStationsJSON)},
		{"stray file", func(tx *bolt.Tx) error {
			return tx.Bucket(format.BucketFiles).Put(format.FileChunkKey("stray.gz", 0), []byte("x"))
		}},
		{"stray key", put(string(format.BucketFiles), "stray", "x")},
		{"whole file under its name, as in version 2", func(tx *bolt.Tx) error {
			b := tx.Bucket(format.BucketFiles)
			return b.Put([]byte(format.FileStationsNDJSON), bytes.Clone(b.Get(ndjson(0))))
		}},
		{"missing manifest", deleteFile(format.FileManifest)},
		{"chunk over the size limit", func(tx *bolt.Tx) error {
			return tx.Bucket(format.BucketFiles).Put(ndjson(0), make([]byte, format.FileChunkSize+1))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Check(damaged(t, tt.damage)); !errors.Is(err, format.ErrCorrupt) {
				t.Fatalf("Check of the damaged file: %v, want ErrCorrupt", err)
			}
			_, err := Check(resealed(t, tt.damage))
			if !errors.Is(err, format.ErrCorrupt) {
				t.Fatalf("Check of the resealed file: %v, want ErrCorrupt", err)
			}
			t.Log(err)
		})
	}
}

func deleteFile(name string) func(tx *bolt.Tx) error {
	return func(tx *bolt.Tx) error {
		b := tx.Bucket(format.BucketFiles)
		for i := uint32(0); b.Get(format.FileChunkKey(name, i)) != nil; i++ {
			if err := b.Delete(format.FileChunkKey(name, i)); err != nil {
				return err
			}
		}
		return nil
	}
}

// rechunk stores file name of the files bucket again, in n chunks of
// unequal sizes.
func rechunk(name string, n int) func(tx *bolt.Tx) error {
	return func(tx *bolt.Tx) error {
		b := tx.Bucket(format.BucketFiles)
		var content []byte
		for i := uint32(0); ; i++ {
			v := b.Get(format.FileChunkKey(name, i))
			if v == nil {
				break
			}
			content = append(content, v...)
			if err := b.Delete(format.FileChunkKey(name, i)); err != nil {
				return err
			}
		}
		if len(content) < n*(n+1)/2 {
			return fmt.Errorf("file %q: %d bytes, too short for %d chunks", name, len(content), n)
		}
		for i := range n {
			size := len(content) * (i + 1) / (n * (n + 1) / 2) // growing sizes
			if i == n-1 {
				size = len(content)
			}
			if err := b.Put(format.FileChunkKey(name, uint32(i)), content[:size]); err != nil {
				return err
			}
			content = content[size:]
		}
		return nil
	}
}

package indexer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	bolt "go.etcd.io/bbolt"

	"stationdex/internal/fold"
	"stationdex/internal/format"
)

// fixture is a small hand-written dump exercising the quirks.
const fixture = "testdata/stations.ndjson"

func openFixture(t testing.TB) Input {
	t.Helper()
	in, c, err := OpenInput(context.Background(), fixture)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return in
}

func buildFixture(t *testing.T, opts Options) (string, Summary) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fixture.idx")
	sum, err := Build(context.Background(), path, opts, openFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	return path, sum
}

func TestBuildFixture(t *testing.T) {
	path, sum := buildFixture(t, Options{})
	want := format.Skipped{InvalidUUID: 2, EmptyName: 2, DuplicateUUID: 1, Malformed: 3}
	if sum.Skipped != want {
		t.Errorf("skipped %+v, want %+v", sum.Skipped, want)
	}
	if want := time.Date(2025, 2, 27, 12, 0, 0, 0, time.UTC); !sum.SnapshotAt.Equal(want) {
		t.Errorf("snapshot at %s, want %s", sum.SnapshotAt, want)
	}
	checkIndex(t, path, sum.Stations)
	db := openIndex(t, path)
	lookups := []struct {
		bucket []byte
		key    string
		names  []string
	}{
		{format.BucketCountries, "AT", []string{"Ö3"}},
		{format.BucketCountries, "FR", []string{"France Culture"}},
		{format.BucketAllTokens, "austria", []string{"Ö3"}},
		{format.BucketAllTokens, "at", []string{"Ö3"}},
		{format.BucketAllTokens, "wien", []string{"Ö3"}},
		{format.BucketAllTokens, "jazz", []string{"Jazz Lounge", "Smooth Jazz 24"}},
		{format.BucketNameTokens, "radio", []string{"Rádio Comercial", "Radio Paradise"}},
		{format.BucketNameTokens, "радио", []string{"Радио FM+"}},
		{format.BucketNames, "metal", []string{"-=Metal=-"}},
		{format.BucketNames, "radio comercial", []string{"Rádio Comercial"}},
		{format.BucketLangLabels, "espanol", []string{"Rádio Comercial"}},
		{format.BucketLangLabels, "castellano", []string{"Rádio Comercial"}},
		{format.BucketLangCodes, "de", []string{"Ö3", "Smooth Jazz 24"}},
		{format.BucketLangCodes, "es", []string{"Rádio Comercial"}},
		{format.BucketGenres, "jazz", []string{"Jazz Lounge", "Smooth Jazz 24"}},
		{format.BucketLocations, "wien", []string{"Ö3"}},
	}
	for _, l := range lookups {
		if got := stationNames(t, db, l.bucket, l.key); !slices.Equal(got, l.names) {
			t.Errorf("%s[%q] = %q, want %q", l.bucket, l.key, got, l.names)
		}
	}
}

// openIndex opens a built index read-only, as the server does.
func openIndex(t testing.TB, path string) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(path, 0, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// stationNames decodes the stations of one posting, in record order.
func stationNames(t *testing.T, db *bolt.DB, bucket []byte, key string) []string {
	t.Helper()
	var names []string
	err := db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucket).Get([]byte(key))
		if v == nil {
			return nil
		}
		bm := roaring.New()
		if _, err := bm.FromBuffer(v); err != nil {
			return err
		}
		for it := bm.Iterator(); it.HasNext(); {
			var r format.Record
			v, err := recordAt(tx, it.Next())
			if err != nil {
				return err
			}
			if err := format.DecodeRecord(v, &r); err != nil {
				return err
			}
			names = append(names, r.Name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// checkIndex verifies what the query engine relies on: magic, version and
// meta; every bucket; records in name order; ids pointing back at their
// records; every bitmap valid and inside the record range; prefix buckets
// following the PrefixFanout rule.
func checkIndex(t testing.TB, path string, stations int) {
	t.Helper()
	db := openIndex(t, path)
	err := db.View(func(tx *bolt.Tx) error {
		for _, name := range format.AllBuckets {
			if tx.Bucket(name) == nil {
				return fmt.Errorf("bucket %s missing", name)
			}
		}
		if err := checkMeta(tx.Bucket(format.BucketMeta), stations); err != nil {
			return err
		}
		if err := checkStations(tx); err != nil {
			return err
		}
		for _, name := range format.PostingBuckets {
			if err := checkBitmaps(tx.Bucket(name), uint32(stations)); err != nil {
				return fmt.Errorf("bucket %s: %w", name, err)
			}
		}
		if err := checkPrefixes(tx.Bucket(format.BucketAllTokens), tx.Bucket(format.BucketAllPrefix)); err != nil {
			return fmt.Errorf("all_prefix: %w", err)
		}
		return checkPrefixes(tx.Bucket(format.BucketNameTokens), tx.Bucket(format.BucketNamePrefix))
	})
	if err != nil {
		t.Fatal(err)
	}
}

func checkMeta(b *bolt.Bucket, stations int) error {
	if got := string(b.Get(format.KeyFormat)); got != format.Magic {
		return fmt.Errorf("magic %q", got)
	}
	if got := string(b.Get(format.KeyVersion)); got != fmt.Sprint(format.Version) {
		return fmt.Errorf("version %q", got)
	}
	var m format.Meta
	if err := json.Unmarshal(b.Get(format.KeyMeta), &m); err != nil {
		return fmt.Errorf("meta: %w", err)
	}
	if m.Stations != stations || m.SchemaVersion != format.SchemaVersion || m.Source == "" || m.BuiltBy == "" || m.SnapshotAt.IsZero() {
		return fmt.Errorf("meta %+v", m)
	}
	return nil
}

// checkStations decodes every record, checks the name order and the ids
// bucket.
func checkStations(tx *bolt.Tx) error {
	ids := tx.Bucket(format.BucketIDs)
	var prev *format.Record
	n := 0
	err := tx.Bucket(format.BucketStations).ForEach(func(k, block []byte) error {
		b, err := format.ParseRecordKey(k)
		if err != nil || int(b)*format.RecordsPerBlock != n {
			return fmt.Errorf("block key %x at record %d", k, n)
		}
		count, err := format.BlockLen(block)
		if err != nil {
			return err
		}
		for slot := range count {
			v, err := format.BlockRecord(block, slot)
			if err != nil {
				return err
			}
			r := new(format.Record)
			if err := format.DecodeRecord(v, r); err != nil {
				return err
			}
			if prev != nil && !nameLess(prev, r) {
				return fmt.Errorf("record %d %q not after %q", n, r.Name, prev.Name)
			}
			if got := ids.Get(r.ID[:]); !bytes.Equal(got, format.RecordKey(uint32(n))) {
				return fmt.Errorf("ids[%s] = %x, want record %d", r.ID, got, n)
			}
			prev, n = r, n+1
		}
		return nil
	})
	if err == nil && ids.Stats().KeyN != n {
		err = fmt.Errorf("%d ids for %d stations", ids.Stats().KeyN, n)
	}
	return err
}

func nameLess(a, b *format.Record) bool {
	ka, kb := fold.Key(a.Name), fold.Key(b.Name)
	if ka != kb {
		return ka < kb
	}
	fa, fb := fold.String(a.Name), fold.String(b.Name)
	if fa != fb {
		return fa < fb
	}
	return bytes.Compare(a.ID[:], b.ID[:]) < 0
}

func checkBitmaps(b *bolt.Bucket, stations uint32) error {
	return b.ForEach(func(k, v []byte) error {
		bm := roaring.New()
		if _, err := bm.FromBuffer(v); err != nil {
			return fmt.Errorf("key %q: %w", k, err)
		}
		if err := bm.Validate(); err != nil {
			return fmt.Errorf("key %q: %w", k, err)
		}
		if bm.IsEmpty() || bm.Maximum() >= stations {
			return fmt.Errorf("key %q: empty or out of range", k)
		}
		return nil
	})
}

// checkPrefixes recomputes the prefix rule naively: every rune prefix of every
// token with more than PrefixFanout tokens under it must be present with the
// union, and nothing else.
func checkPrefixes(tokens, prefixes *bolt.Bucket) error {
	under := map[string][]string{}
	tokens.ForEach(func(k, _ []byte) error {
		tok := string(k)
		for i := range tok {
			if i > 0 {
				under[tok[:i]] = append(under[tok[:i]], tok)
			}
		}
		under[tok] = append(under[tok], tok)
		return nil
	})
	want := 0
	for p, toks := range under {
		if len(toks) <= format.PrefixFanout {
			if prefixes.Get([]byte(p)) != nil {
				return fmt.Errorf("prefix %q with %d tokens stored", p, len(toks))
			}
			continue
		}
		want++
		union := roaring.New()
		for _, tok := range toks {
			bm := roaring.New()
			bm.FromBuffer(tokens.Get([]byte(tok)))
			union.Or(bm)
		}
		got := roaring.New()
		if _, err := got.FromBuffer(prefixes.Get([]byte(p))); err != nil {
			return fmt.Errorf("prefix %q: %w", p, err)
		}
		if !got.Equals(union) {
			return fmt.Errorf("prefix %q: wrong union", p)
		}
	}
	if n := prefixes.Stats().KeyN; n != want {
		return fmt.Errorf("%d prefixes, want %d", n, want)
	}
	return nil
}

// TestBuildDeterministic builds the fixture twice and compares every key and
// value of every bucket.
func TestBuildDeterministic(t *testing.T) {
	a, _ := buildFixture(t, Options{})
	b, _ := buildFixture(t, Options{})
	if da, db := dumpIndex(t, a), dumpIndex(t, b); da != db {
		t.Fatalf("two builds differ:\n%s\n---\n%s", da, db)
	}
}

// dumpIndex renders every bucket's keys and values.
func dumpIndex(t testing.TB, path string) string {
	var sb strings.Builder
	err := openIndex(t, path).View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			fmt.Fprintf(&sb, "[%s]\n", name)
			return b.ForEach(func(k, v []byte) error {
				fmt.Fprintf(&sb, "%x=%x\n", k, v)
				return nil
			})
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

func TestBuildOptions(t *testing.T) {
	at := time.Date(2024, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	path, sum := buildFixture(t, Options{SnapshotAt: at, Source: "test source"})
	if !sum.SnapshotAt.Equal(at) || sum.SnapshotAt.Location() != time.UTC {
		t.Errorf("snapshot at %s, want %s in UTC", sum.SnapshotAt, at)
	}
	var m format.Meta
	openIndex(t, path).View(func(tx *bolt.Tx) error {
		return json.Unmarshal(tx.Bucket(format.BucketMeta).Get(format.KeyMeta), &m)
	})
	if m.Source != "test source" || !m.SnapshotAt.Equal(at) {
		t.Errorf("meta %+v", m)
	}
}

func TestBuildFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.idx")
	bad := Input{Name: "bad", R: strings.NewReader(`[{"stationuuid": "x"`)}
	if _, err := Build(context.Background(), path, Options{}, bad); err == nil || !strings.Contains(err.Error(), "bad") {
		t.Fatalf("err = %v, want an error naming the input", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, path, Options{}, openFixture(t)); err == nil {
		t.Fatal("cancelled build succeeded")
	}
	empty := Input{Name: "empty", R: strings.NewReader("")}
	if _, err := Build(context.Background(), path, Options{}, empty); err != ErrNoStations {
		t.Fatalf("err = %v, want ErrNoStations", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("failed builds left %v", entries)
	}
}

// recordAt finds the encoded record n through its block.
func recordAt(tx *bolt.Tx, n uint32) ([]byte, error) {
	b, slot := format.BlockOf(n)
	block := tx.Bucket(format.BucketStations).Get(format.BlockKey(b))
	if block == nil {
		return nil, fmt.Errorf("record %d: block %d missing", n, b)
	}
	return format.BlockRecord(block, slot)
}

// TestBuildCompatOptIn: the Radio Browser API's buckets are written only
// with format.SectionRBAPI, and flagged in the meta document; the other
// buckets are the same either way, so a default build is what it was
// before the compatible data existed.
func TestBuildCompatOptIn(t *testing.T) {
	plain, _ := buildFixture(t, Options{})
	compat, _ := buildFixture(t, Options{Sections: format.SectionRBAPI})
	buckets := func(path string) (names []string, dumps map[string]string, meta map[string]any) {
		dumps = map[string]string{}
		err := openIndex(t, path).View(func(tx *bolt.Tx) error {
			if err := json.Unmarshal(tx.Bucket(format.BucketMeta).Get(format.KeyMeta), &meta); err != nil {
				return err
			}
			return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
				names = append(names, string(name))
				var sb strings.Builder
				err := b.ForEach(func(k, v []byte) error {
					fmt.Fprintf(&sb, "%x=%x\n", k, v)
					return nil
				})
				dumps[string(name)] = sb.String()
				return err
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		return names, dumps, meta
	}
	sorted := func(bs ...[][]byte) []string {
		var s []string
		for _, b := range bs {
			for _, name := range b {
				s = append(s, string(name))
			}
		}
		slices.Sort(s)
		return s
	}
	pn, pd, pm := buckets(plain)
	cn, cd, cm := buckets(compat)
	if want := sorted(format.AllBuckets); !slices.Equal(pn, want) {
		t.Errorf("default build: buckets %q, want %q", pn, want)
	}
	if want := sorted(format.AllBuckets, format.RBAPIBuckets); !slices.Equal(cn, want) {
		t.Errorf("compat build: buckets %q, want %q", cn, want)
	}
	if _, ok := pm["compat"]; ok {
		t.Errorf("default build: meta has %q: %v", "compat", pm)
	}
	if cm["compat"] != true {
		t.Errorf("compat build: meta compat = %v, want true", cm["compat"])
	}
	for _, name := range pn {
		if name != string(format.BucketMeta) && pd[name] != cd[name] {
			t.Errorf("bucket %s differs between the default and the compat build", name)
		}
	}
}

// TestBuildCompatFieldsUnread: without format.SectionRBAPI a field only the
// Radio Browser API uses is not decoded, so a value of the wrong type there
// does not make the record malformed; with it, it does, as the source's
// type is then relied on.
func TestBuildCompatFieldsUnread(t *testing.T) {
	const rec = `{"stationuuid":"00000001-0000-4000-8000-000000000001","name":"A","lastchecktime":"2025-01-01 00:00:00","hls":"many","has_extended_info":"yes"}` + "\n"
	for _, sections := range []format.Sections{0, format.SectionRBAPI} {
		path := filepath.Join(t.TempDir(), "x.idx")
		in := Input{Name: "x", R: strings.NewReader(rec + strings.Replace(rec, "00000001", "00000002", 1) + `{"stationuuid":"00000003-0000-4000-8000-000000000001","name":"B"}` + "\n")}
		sum, err := Build(context.Background(), path, Options{Sections: sections, SnapshotAt: time.Unix(0, 0)}, in)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[format.Sections]int{0: 0, format.SectionRBAPI: 2}[sections]; sum.Skipped.Malformed != want {
			t.Errorf("sections %b: %d malformed, want %d", sections, sum.Skipped.Malformed, want)
		}
	}
}

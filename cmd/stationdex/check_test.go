package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"stationdex/indexer"
	"stationdex/internal/format"
)

// TestCheckFindsDamagedSearchOrder: check of the demo index passes and
// says its stored orders are sound; with two places of its stored
// popular order swapped (and the checksums written again, as a faulty
// build would), it fails with exit status 1, naming the order and the
// places, and says what to do.
func TestCheckFindsDamagedSearchOrder(t *testing.T) {
	demo, cleanup, err := indexer.BuildDemoTemp(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cleanup)
	var stdout, stderr strings.Builder
	code := run([]string{"check", demo}, &stdout, &stderr)
	if code != 0 || !strings.HasSuffix(stdout.String(), "\nok\n") || !strings.Contains(stdout.String(), "\n  orders    popular and bitrate list every station once, sorted\n") {
		t.Fatalf("check of the demo index: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}

	path := filepath.Join(t.TempDir(), "damaged.db")
	data, err := os.ReadFile(demo)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var first, second uint32
	err = format.Edit(path, func(tx *bolt.Tx) error {
		b := tx.Bucket(format.BucketSearchOrders)
		key := format.SearchOrderKey(nil, format.SortPopular, 0)
		v := bytes.Clone(b.Get(key))
		first, second = binary.LittleEndian.Uint32(v), binary.LittleEndian.Uint32(v[4:])
		binary.LittleEndian.PutUint32(v, second)
		binary.LittleEndian.PutUint32(v[4:], first)
		return b.Put(key, v)
	})
	if err != nil {
		t.Fatal(err)
	}

	stdout.Reset()
	stderr.Reset()
	code = run([]string{"check", path}, &stdout, &stderr)
	want := []string{
		"stationdex check: check index " + path + ": corrupt index: search order popular: record ",
		" at place 1 sorts before record ",
		"The index is damaged (truncated or overwritten?): rebuild it with `stationdex index`.",
	}
	for _, w := range want {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
		}
	}
	if code != 1 || stdout.Len() != 0 {
		t.Errorf("exit %d, stdout %q; want 1 and nothing", code, stdout.String())
	}
	if first == second {
		t.Errorf("places 0 and 1 of the popular order hold record %d both", first)
	}
}

package indexer

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"stationdex/internal/fold"
	"stationdex/internal/format"
)

// keyerNames are names whose folding does more than lower-case them.
var keyerNames = []string{
	"", "  ", "Radio-1", "radio 1", "Rádio Ö3", "𝐑𝐚𝐝𝐢𝐨 ＦＭ", "北京音乐广播",
	"Straße", "lor'fm", "\u200bZero\u200dWidth", "Ꮦ ꮦ", "\xff bad utf8",
}

// TestKeyerNameOrder: folding a name once gives NameOrderOf's order and
// fold.Tokens' tokens, which postingKeys files the name under.
func TestKeyerNameOrder(t *testing.T) {
	names := slices.Clone(keyerNames)
	_, err := ReadRecords(context.Background(), func(r *format.Record) error {
		names = append(names, r.Name)
		return nil
	}, openFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	k := newPostingKeyer()
	for _, name := range names {
		rec := &format.Record{Name: name, ID: format.UUID{1}}
		if got, want := k.nameOrder(rec), format.NameOrderOf(name, rec.ID); got != want {
			t.Errorf("%q: name order %+v, want %+v", name, got, want)
		}
		if got, want := k.nameTokens, fold.Tokens(name); !slices.Equal(got, want) {
			t.Errorf("%q: tokens %q, want %q", name, got, want)
		}
	}
}

// TestKeyerLabelsMemoBounded: labels give their facet key and tokens
// whether memoised or not, and the memo stays within maxMemoLabels.
func TestKeyerLabelsMemoBounded(t *testing.T) {
	k := newPostingKeyer()
	for i := range maxMemoLabels + 10 {
		for _, label := range []string{keyerNames[i%len(keyerNames)], fmt.Sprintf("Genre %d", i)} {
			lk := k.label(label)
			if lk.facet != format.FacetKey(label) || !slices.Equal(lk.tokens, fold.Tokens(label)) {
				t.Fatalf("%q: keys %+v, want %q and %q", label, lk, format.FacetKey(label), fold.Tokens(label))
			}
		}
		if len(k.labels) > maxMemoLabels {
			t.Fatalf("%d labels memoised, at most %d wanted", len(k.labels), maxMemoLabels)
		}
	}
}

// encode keeps run containers only where they pay at query time: lists
// of long runs (stations sharing a name) are stored run-encoded, scattered
// lists and lists whose containers would hold many short runs are not,
// and every list reads back as it was.
func TestEncodeRunsOnlyWhereTheyPay(t *testing.T) {
	longRuns := roaring.New()
	for i := range uint64(10) {
		longRuns.AddRange(i*5000, i*5000+1000)
	}
	scattered := roaring.New()
	for v := uint32(0); v < 60000; v += 3 {
		scattered.Add(v)
	}
	// mean run 10, enough for RunOptimize, but 300 runs in one container
	shortRuns := roaring.New()
	for i := range uint64(300) {
		shortRuns.AddRange(i*200, i*200+10)
	}
	for _, c := range []struct {
		name string
		bm   *roaring.Bitmap
		runs bool
	}{{"long runs", longRuns, true}, {"scattered", scattered, false}, {"many short runs", shortRuns, false}} {
		want := c.bm.Clone()
		data, err := encode(c.bm)
		if err != nil {
			t.Fatal(err)
		}
		got := roaring.New()
		if _, err := got.FromBuffer(data); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !got.Equals(want) {
			t.Errorf("%s: read back %d values, want %d", c.name, got.GetCardinality(), want.GetCardinality())
		}
		if got.HasRunCompression() != c.runs {
			t.Errorf("%s: run containers %v, want %v", c.name, got.HasRunCompression(), c.runs)
		}
		if format.ManyShortRuns(got) {
			t.Errorf("%s: stored with many short runs per container", c.name)
		}
	}
}

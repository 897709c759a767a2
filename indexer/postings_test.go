package indexer

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"stationdex/indexer/fold"
	"stationdex/indexer/format"
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

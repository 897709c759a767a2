package format

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

func TestMemoKeysRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		key  []byte
		want []MemoList
	}{
		{MemoListKey(0, []byte("DE")), []MemoList{{Source: 0, Key: []byte("DE")}}},
		{MemoListKey(4, nil), []MemoList{{Source: 4, Key: []byte{}}}},
		{MemoPairKey(1, []byte("en"), 4, []byte("radio")), []MemoList{{Source: 1, Key: []byte("en")}, {Source: 4, Key: []byte("radio")}}},
		{MemoPairKey(4, []byte("a\x00b"), 4, []byte("")), []MemoList{{Source: 4, Key: []byte("a\x00b")}, {Source: 4, Key: []byte{}}}},
		{MemoUnionKey([]byte("mp3")), []MemoList{{Source: -1, Key: []byte("mp3"), Union: true}}},
	} {
		got, err := ParseMemoKey(tc.key)
		if err != nil {
			t.Fatalf("%x: %v", tc.key, err)
		}
		if !slices.EqualFunc(got, tc.want, func(a, b MemoList) bool {
			return a.Source == b.Source && bytes.Equal(a.Key, b.Key) && a.Union == b.Union && bytes.Equal(a.Bucket(), b.Bucket())
		}) {
			t.Errorf("%x: %v, want %v", tc.key, got, tc.want)
		}
	}
	for _, bad := range [][]byte{nil, {memoList}, {memoUnion}, {4, 0}, {memoList, byte(len(FacetMemoSources))}, {memoPair, 0, 5, 'a'}, {memoPair, 0, 1, 'a', 9}} {
		if _, err := ParseMemoKey(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%x: %v, want ErrCorrupt", bad, err)
		}
	}
}

func TestMemoCountsRoundTripAndBounds(t *testing.T) {
	m := MemoCounts{Stations: 900, Limit: 3, Facets: [][]MemoCount{{{2, 500}, {0, 300}, {7, 300}}, nil, {{1, 900}}}}
	v := AppendMemoCounts(nil, &m)
	got, err := ParseMemoCounts(v, []int{8, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if got.Stations != m.Stations || got.Limit != m.Limit || !slices.EqualFunc(got.Facets, m.Facets, func(a, b []MemoCount) bool {
		return len(a) == len(b) && (len(a) == 0 || slices.Equal(a, b))
	}) {
		t.Fatalf("%+v, want %+v", got, m)
	}
	for name, values := range map[string][]int{"id out of range": {7, 1, 2}, "facet of no values": {8, 1, 1}} {
		if _, err := ParseMemoCounts(v, values); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	bad := []MemoCounts{
		{Stations: 10, Limit: 1, Facets: [][]MemoCount{{{0, 5}, {1, 4}}, nil, nil}}, // over the limit
		{Stations: 10, Limit: 5, Facets: [][]MemoCount{{{0, 4}, {1, 5}}, nil, nil}}, // increasing
		{Stations: 10, Limit: 5, Facets: [][]MemoCount{{{0, 11}}, nil, nil}},        // past the set
		{Stations: 10, Limit: 5, Facets: [][]MemoCount{{{0, 0}}, nil, nil}},         // empty value
	}
	for _, b := range bad {
		if _, err := ParseMemoCounts(AppendMemoCounts(nil, &b), []int{8, 8, 8}); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%+v: %v, want ErrCorrupt", b, err)
		}
	}
	if _, err := ParseMemoCounts(append(v, 0), []int{8, 1, 2}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("trailing byte: %v, want ErrCorrupt", err)
	}
}

// FuzzParseMemo: memo keys and values from a damaged file are errors,
// never a panic or a huge allocation.
func FuzzParseMemo(f *testing.F) {
	f.Add(MemoPairKey(1, []byte("en"), 4, []byte("radio")), AppendMemoCounts(nil, &MemoCounts{Stations: 9, Limit: 2, Facets: [][]MemoCount{{{1, 5}}, nil, nil}}))
	f.Add([]byte{memoPair, 0, 0xff, 0xff, 0xff, 0xff, 0x0f}, []byte{0x80, 0x80, 0x80, 0x80, 0x08, 0xff, 0xff, 0xff, 0xff, 0x07, 0xff, 0xff, 0x03})
	f.Fuzz(func(t *testing.T, k, v []byte) {
		if lists, err := ParseMemoKey(k); err == nil && (len(lists) < 1 || len(lists) > 2) {
			t.Fatalf("%x: %d lists", k, len(lists))
		}
		m, err := ParseMemoCounts(v, []int{300, 300, 300})
		if err != nil {
			return
		}
		if again := AppendMemoCounts(nil, &m); !bytes.Equal(again, v) && len(again) > len(v) {
			t.Fatalf("%x decodes to %+v, which encodes longer: %x", v, m, again)
		}
	})
}

func TestMemoEntryRoundTripAndBounds(t *testing.T) {
	plain := MemoCounts{Stations: 900, Limit: 2, Facets: [][]MemoCount{{{2, 500}}, nil}}
	distinct := MemoCounts{Stations: 700, Limit: 2, Facets: [][]MemoCount{{{2, 400}, {0, 300}}, nil, {{1, 2}}}}
	e := MemoEntry{Plain: plain, Distinct: distinct}
	v := AppendMemoEntry(nil, &e)
	got, err := ParseMemoEntry(v, []int{8, 1}, []int{8, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if got.Plain.Stations != 900 || got.Distinct.Stations != 700 || len(got.Distinct.Facets) != 3 || got.Distinct.Facets[2][0] != (MemoCount{1, 2}) {
		t.Fatalf("%+v, want %+v", got, e)
	}
	for name, bad := range map[string]MemoEntry{
		"more groups than stations": {Plain: plain, Distinct: MemoCounts{Stations: 901, Limit: 2, Facets: [][]MemoCount{nil, nil, nil}}},
		"another limit":             {Plain: plain, Distinct: MemoCounts{Stations: 700, Limit: 3, Facets: [][]MemoCount{nil, nil, nil}}},
	} {
		if _, err := ParseMemoEntry(AppendMemoEntry(nil, &bad), []int{8, 1}, []int{8, 1, 2}); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
	for name, v := range map[string][]byte{"plain part alone": AppendMemoCounts(nil, &plain), "trailing byte": append(v, 0)} {
		if _, err := ParseMemoEntry(v, []int{8, 1}, []int{8, 1, 2}); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}

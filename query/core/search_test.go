package core

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"stationdex/indexer"
	"stationdex/internal/format"
	"stationdex/query/internal/testindex"
)

// smallSet is a hand-made directory where every tier and filter rule has
// a station that shows it (testindex.Small).
var smallSet = testindex.Small

var (
	smallOnce   sync.Once
	smallPath   string
	smallIndex  *Index
	smallOracle *oracle
	smallErr    error
)

// small builds the small set and its oracle once per test binary.
func small(t testing.TB) (*Index, *oracle) {
	t.Helper()
	text := ndjson(smallSet)
	smallOnce.Do(func() {
		smallPath, smallErr = buildShared(text, "small.idx")
		if smallErr == nil {
			smallIndex, smallErr = Open(smallPath)
		}
	})
	if smallErr != nil {
		t.Fatal(smallErr)
	}
	if smallOracle == nil {
		smallOracle = newOracle(readRecords(t, indexer.Input{Name: "small", R: strings.NewReader(text)}))
	}
	return smallIndex, smallOracle
}

func names(recs []format.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Name
	}
	return out
}

func TestSearchTiers(t *testing.T) {
	ix, _ := small(t)
	tests := []struct {
		name string
		q    Query
		want []string
	}{
		{"exact names first, then name matches, then other fields", Query{Q: "jazz"},
			[]string{"- Jazz", "Jazz", "jazz", "Jazz FM", "Radio Jazzy", "Smooth Radio"}},
		{"prefix", Query{Q: "JAZ"},
			[]string{"- Jazz", "Jazz", "jazz", "Jazz FM", "Radio Jazzy", "Smooth Radio"}},
		{"exact name radio", Query{Q: "radio"},
			[]string{"Radio", "Radio Bremen", "Rádio Comercial", "Radio Jazzy", "Smooth Radio", "Antenne Bayern"}},
		{"accents fold", Query{Q: "radio comercial"}, []string{"Rádio Comercial"}},
		{"o3 finds Ö3", Query{Q: "o3"}, []string{"Ö3"}},
		{"Ö3 finds Ö3", Query{Q: "Ö3"}, []string{"Ö3"}},
		{"ideographs are words", Query{Q: "北京"}, []string{"北京音乐广播"}},
		{"cyrillic prefix", Query{Q: "рад"}, []string{"Радио Рекорд"}},
		{"location after name", Query{Q: "bremen"}, []string{"Radio Bremen", "NDR 2"}},
		{"English country name", Query{Q: "germany"}, []string{"Antenne Bayern", "NDR 2", "Radio Bremen"}},
		{"country code as word", Query{Q: "at"}, []string{"Ö3"}},
		{"every word must match", Query{Q: "radio bremen"}, []string{"Radio Bremen"}},
		{"words across fields", Query{Q: "pop bayern"}, []string{"Antenne Bayern"}},
		{"no match", Query{Q: "zzzz"}, nil},
		{"country filter, any case", Query{Filter: filters("de", "", "")}, []string{"Antenne Bayern", "NDR 2", "Radio Bremen"}},
		{"language code", Query{Filter: filters("", "ger", "")}, []string{"Antenne Bayern", "NDR 2", "Ö3", "Radio Bremen"}},
		{"language English name", Query{Filter: filters("", "German", "")}, []string{"Antenne Bayern", "NDR 2", "Ö3", "Radio Bremen"}},
		{"language source label", Query{Filter: filters("", "deutsch", "")}, []string{"Antenne Bayern", "NDR 2", "Ö3", "Radio Bremen"}},
		{"genre any case", Query{Filter: filters("", "", "JAZZ")}, []string{"Jazz", "Jazz FM", "Smooth Radio"}},
		{"query and filter", Query{Q: "jazz", Filter: filters("GB", "", "")}, []string{"Jazz FM", "Smooth Radio"}},
		{"all filters", Query{Q: "r", Filter: filters("de", "de", "news")}, []string{"Radio Bremen"}},
		{"unknown country", Query{Filter: filters("zz", "", "")}, nil},
		{"unknown language", Query{Filter: filters("", "klingonish", "")}, nil},
		{"unknown genre", Query{Filter: filters("", "", "nope")}, nil},
		{"unknown filter with words", Query{Q: "jazz", Filter: filters("", "", "nope")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.q.Limit = MaxLimit
			res, err := search(ix, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(res.Stations); !slices.Equal(got, tt.want) || res.Total != len(tt.want) {
				t.Errorf("got %d %q, want %q", res.Total, got, tt.want)
			}
		})
	}
}

func TestSearchWithoutWordsIsAlphabetical(t *testing.T) {
	ix, _ := small(t)
	for _, q := range []string{"", "!!!", " - "} {
		res, err := search(ix, Query{Q: q, Limit: MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"Antenne Bayern", "- Jazz", "Jazz", "jazz", "Jazz FM", "NDR 2", "Ö3", "Radio", "Radio Bremen",
			"Rádio Comercial", "Radio Jazzy", "Smooth Radio", "Радио Рекорд", "北京音乐广播"}
		if got := names(res.Stations); !slices.Equal(got, want) || res.Total != len(smallSet) {
			t.Errorf("q=%q: got %d %q, want %q", q, res.Total, got, want)
		}
	}
}

func TestSearchPaging(t *testing.T) {
	ix, _ := small(t)
	all := []string{"- Jazz", "Jazz", "jazz", "Jazz FM", "Radio Jazzy", "Smooth Radio"}
	for limit := 1; limit <= 7; limit++ {
		for offset := 0; offset <= 8; offset++ {
			res, err := search(ix, Query{Q: "jazz", Limit: limit, Offset: offset})
			if err != nil {
				t.Fatal(err)
			}
			want := all[min(offset, len(all)):min(offset+limit, len(all))]
			if got := names(res.Stations); !slices.Equal(got, want) || res.Total != len(all) {
				t.Errorf("limit %d offset %d: got %d %q, want %q", limit, offset, res.Total, got, want)
			}
		}
	}
}

func TestSearchSmallSetAgainstOracle(t *testing.T) {
	ix, o := small(t)
	words := []string{"", "j", "ja", "jazz", "jazz fm", "r", "ra", "rad", "radio", "radio j", "o", "ö", "de", "gb",
		"germany", "united", "kingdom", "bayern", "pop", "北", "京", "р", "х", "2", "ndr 2", "english", "smooth jazz"}
	for _, w := range words {
		for _, f := range []Query{{}, {Filter: filters("DE", "", "")}, {Filter: filters("gb", "", "")}, {Filter: filters("", "en", "")}, {Filter: filters("", "fr", "")},
			{Filter: filters("", "", "pop")}, {Filter: filters("", "", "Jazz")}, {Filter: filters("us", "english", "jazz")}} {
			for _, limit := range []int{1, 2, 5} {
				q := f
				q.Q, q.Limit = w, limit
				walkPages(t, ix, o, q)
			}
		}
	}
}

func TestSearchRejectsInvalidPaging(t *testing.T) {
	ix, _ := small(t)
	for _, q := range []Query{{Limit: 0}, {Limit: MaxLimit + 1}, {Limit: 10, Offset: -1}} {
		if _, err := search(ix, q); !errors.Is(err, ErrInvalidQuery) {
			t.Errorf("%s: err %v, want ErrInvalidQuery", q.String(), err)
		}
	}
}

func TestSearchDeepOffsetBeyondTotal(t *testing.T) {
	ix, _ := small(t)
	res, err := search(ix, Query{Q: "jazz", Limit: 10, Offset: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 6 || len(res.Stations) != 0 || res.Stations == nil {
		t.Errorf("got total %d, %d stations (nil %v); want 6, an empty page", res.Total, len(res.Stations), res.Stations == nil)
	}
}

func TestStation(t *testing.T) {
	ix, _ := small(t)
	for _, s := range smallSet {
		r, err := ix.Station(s.UUID())
		if err != nil {
			t.Fatalf("station %d: %v", s.N, err)
		}
		if r.ID != s.UUID() || r.Name != s.Name {
			t.Errorf("station %d: got %s %q", s.N, r.ID, r.Name)
		}
	}
	unknown := station{N: 999}.UUID()
	if _, err := ix.Station(unknown); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: err %v, want ErrNotFound", err)
	}
}

func TestResultsOutliveTheIndex(t *testing.T) {
	ix := openIndex(t, buildIndex(t, ndjson(smallSet)))
	res, err := search(ix, Query{Q: "radio", Limit: MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	want := names(res.Stations)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if got := names(res.Stations); !slices.Equal(got, want) || got[0] != "Radio" {
		t.Errorf("after Close: %q", got)
	}
}

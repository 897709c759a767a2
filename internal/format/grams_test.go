package format

import (
	"slices"
	"testing"
)

func TestNameGrams(t *testing.T) {
	for _, tc := range []struct {
		folded     string
		name, text []string
	}{
		{"", nil, nil},
		{"a", []string{"a\x00\x00"}, nil},
		{"jazz", []string{"jaz", "azz", "zz\x00", "z\x00\x00"}, []string{"jaz", "azz"}},
		{"ab c", []string{"ab ", "b c", " c\x00", "c\x00\x00"}, []string{"ab ", "b c"}},
		{"北京音乐", []string{"北京音", "京音乐", "音乐\x00", "乐\x00\x00"}, []string{"北京音", "京音乐"}},
		{"abc", []string{"abc", "bc\x00", "c\x00\x00"}, []string{"abc"}},
	} {
		if got := AppendNameGrams(nil, tc.folded); !slices.Equal(got, tc.name) {
			t.Errorf("AppendNameGrams(%q) = %q, want %q", tc.folded, got, tc.name)
		}
		if got := AppendTextGrams(nil, tc.folded); !slices.Equal(got, tc.text) {
			t.Errorf("AppendTextGrams(%q) = %q, want %q", tc.folded, got, tc.text)
		}
	}
}

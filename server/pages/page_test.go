package pages

import (
	"testing"
)

// TestPageLinksListsStayApart: each list pageLinks hands out is a run of
// one backing array with no room after it, so appending to a list never
// writes into the next one, even as the array grows.
func TestPageLinksListsStayApart(t *testing.T) {
	ls := make(pageLinks, 0, 2)
	first := ls.add(textValue("a"), textValue("b"))
	second := ls.add(textValue("c")) // grows the array
	start := len(ls)
	ls = append(ls, textValue("d"), textValue("e"))
	third := ls.from(start)
	grown := append(first, textValue("x"))
	if cap(first) != len(first) || cap(second) != len(second) || cap(third) != len(third) {
		t.Fatalf("lists with room after them: caps %d %d %d", cap(first), cap(second), cap(third))
	}
	for _, c := range []struct {
		list []Link
		want string
	}{{first, "ab"}, {second, "c"}, {third, "de"}, {grown, "abx"}} {
		got := ""
		for _, l := range c.list {
			got += l.Text
		}
		if got != c.want {
			t.Errorf("list %q, want %q", got, c.want)
		}
	}
}

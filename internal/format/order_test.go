package format

import (
	"bytes"
	"slices"
	"testing"

	"stationdex/internal/fold"
)

func id(b byte) UUID { return UUID{15: b} }

// orderCases are pairs of positions in name order with the sign of their
// comparison: the table test's cases and the fuzz target's seeds.
var orderCases = []struct {
	a, b NameOrder
	want int
}{
	{NameOrder{"abc", "abc", id(1)}, NameOrder{"abc", "abc", id(1)}, 0},
	{NameOrder{"", "", UUID{}}, NameOrder{"", "", UUID{}}, 0},
	{NameOrder{"abc", "abc", id(1)}, NameOrder{"abc", "abc", id(2)}, -1},
	{NameOrder{"abc", "abd", id(9)}, NameOrder{"abc", "abc", id(1)}, +1},
	{NameOrder{"abc", "z", id(9)}, NameOrder{"abd", "a", id(1)}, -1},
	// A string before every longer one it is a prefix of, whatever follows.
	{NameOrder{"a", "z", id(9)}, NameOrder{"ab", "a", id(1)}, -1},
	{NameOrder{"", "\xff", id(9)}, NameOrder{"\x00", "", id(1)}, -1},
	{NameOrder{"a", "\xff\xff", id(9)}, NameOrder{"a\x00", "", id(1)}, -1},
	{NameOrder{"a", "\xff", id(9)}, NameOrder{"a\x01", "", id(1)}, -1},
	{NameOrder{"a", "\xff", id(9)}, NameOrder{"a\xff", "", id(1)}, -1},
	{NameOrder{"k", "a", id(9)}, NameOrder{"k", "a\x00", id(1)}, -1},
	{NameOrder{"k", "", id(9)}, NameOrder{"k", "\x00", id(1)}, -1},
	// Zero bytes inside, next to the bytes of the escape and terminator.
	{NameOrder{"a\x00", "", id(1)}, NameOrder{"a\x01", "", id(1)}, -1},
	{NameOrder{"a\x00", "", id(1)}, NameOrder{"a\x00\x01", "", id(1)}, -1},
	{NameOrder{"a\x00\x01", "", id(1)}, NameOrder{"a", "", id(1)}, +1},
	{NameOrder{"a\x00\xff", "", id(1)}, NameOrder{"a\x00\x00", "", id(1)}, +1},
	{NameOrder{"a\x00", "\x00", id(1)}, NameOrder{"a\x00\x00", "", id(1)}, -1},
	{NameOrder{"\x00", "", id(1)}, NameOrder{"\x00\x00", "", id(1)}, -1},
	{NameOrder{"\x00\x01", "", id(1)}, NameOrder{"\x00", "\x01", id(1)}, +1},
	{NameOrder{"x", "a\x00b", id(1)}, NameOrder{"x", "a", id(1)}, +1},
	{NameOrder{"\xff", "", id(1)}, NameOrder{"\xff\x00", "", id(1)}, -1},
	// The UUID decides only between equal strings.
	{NameOrder{"a", "b", UUID{0xff}}, NameOrder{"a", "b", UUID{0x01}}, +1},
	{NameOrder{"a", "b\x00", UUID{}}, NameOrder{"a", "b", UUID{0xff}}, +1},
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return +1
	}
	return 0
}

// checkOrderKey fails t unless the byte keys of a and b compare as a and
// b do.
func checkOrderKey(t *testing.T, a, b NameOrder) {
	t.Helper()
	ka, kb := a.AppendKey(nil), b.AppendKey(nil)
	if got, want := sign(bytes.Compare(ka, kb)), a.Compare(b); got != want {
		t.Errorf("%+q vs %+q: keys %x and %x compare %d, the orders %d", a, b, ka, kb, got, want)
	}
}

func TestNameOrderKey(t *testing.T) {
	for _, c := range orderCases {
		if got := c.a.Compare(c.b); got != c.want {
			t.Errorf("%+q.Compare(%+q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := c.b.Compare(c.a); got != -c.want {
			t.Errorf("%+q.Compare(%+q) = %d, want %d", c.b, c.a, got, -c.want)
		}
		checkOrderKey(t, c.a, c.b)
		checkOrderKey(t, c.b, c.a)
	}
}

// TestNameOrderKeyAppends: AppendKey appends to dst, leaving it intact.
func TestNameOrderKeyAppends(t *testing.T) {
	o := NameOrder{"a\x00b", "c", id(7)}
	dst := []byte("prefix")
	got := o.AppendKey(dst[:len(dst):len(dst)])
	if !bytes.HasPrefix(got, []byte("prefix")) || !bytes.Equal(got[len(dst):], o.AppendKey(nil)) {
		t.Errorf("AppendKey(%q) = %q", dst, got)
	}
}

func FuzzNameOrderKey(f *testing.F) {
	for _, c := range orderCases {
		f.Add(c.a.Key, c.a.Folded, c.a.ID[:], c.b.Key, c.b.Folded, c.b.ID[:])
	}
	f.Fuzz(func(t *testing.T, aKey, aFolded string, aID []byte, bKey, bFolded string, bID []byte) {
		a := NameOrder{Key: aKey, Folded: aFolded}
		b := NameOrder{Key: bKey, Folded: bFolded}
		copy(a.ID[:], aID)
		copy(b.ID[:], bID)
		// Two independent inputs rarely share a field, yet equal keys
		// are where the later fields decide; so mix a's and b's fields
		// into every combination and compare each with a and with b.
		keys, foldeds, ids := [2]string{aKey, bKey}, [2]string{aFolded, bFolded}, [2]UUID{a.ID, b.ID}
		for m := range 8 {
			c := NameOrder{keys[m&1], foldeds[m>>1&1], ids[m>>2&1]}
			checkOrderKey(t, a, c)
			checkOrderKey(t, c, b)
		}
		// A key that is a prefix of another, which the terminator must
		// order.
		for _, n := range []int{len(aKey) / 2, len(aKey) - 1} {
			if n >= 0 && n < len(aKey) {
				checkOrderKey(t, a, NameOrder{aKey[:n], bFolded, b.ID})
			}
		}
	})
}

// TestNameOrderTokens: the order folds the name once and still keys it by
// fold.Key and fold.String, with fold.Tokens' tokens appended after what
// dst held.
func TestNameOrderTokens(t *testing.T) {
	for _, name := range []string{"", "  ", "Radio-1", "Rádio Ö3", "𝐑𝐚𝐝𝐢𝐨 ＦＭ", "北京音乐广播", "Straße", "Ꮦ ꮦ", "\xff bad utf8"} {
		o, toks := NameOrderTokens([]string{"kept"}, name, UUID{7})
		if o.Key != fold.Key(name) || o.Folded != fold.String(name) || o.ID != (UUID{7}) {
			t.Errorf("%q: order %+v, want key %q, folded %q", name, o, fold.Key(name), fold.String(name))
		}
		if want := append([]string{"kept"}, fold.Tokens(name)...); !slices.Equal(toks, want) {
			t.Errorf("%q: tokens %q, want %q", name, toks, want)
		}
		if NameOrderOf(name, UUID{7}) != o {
			t.Errorf("%q: NameOrderOf differs from NameOrderTokens", name)
		}
	}
}

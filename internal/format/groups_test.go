package format

import (
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
)

func TestAddressKey(t *testing.T) {
	for _, c := range []struct{ addr, key string }{
		{"", ""},
		{"  http://radio.example/live  ", "http://radio.example/live"},
		{"HTTP://Radio.Example/Live", "http://radio.example/Live"}, // the path keeps its case
		{"http://radio.example:80/live/", "http://radio.example/live"},
		{"https://radio.example:443/", "https://radio.example"},
		{"https://radio.example:80/", "https://radio.example:80"}, // not https's default port
		{"http://radio.example:8000/;stream.mp3", "http://radio.example:8000/;stream.mp3"},
		{"http://radio.example/live?", "http://radio.example/live"},
		{"http://radio.example/#", "http://radio.example"},
		{"http://radio.example/live?x=1#top", "http://radio.example/live?x=1#top"},
		{"http://user@Radio.example/", "http://user@radio.example"},
		{"http:radio.example:8000/live", "http:radio.example:8000/live"}, // no host: as written
		{"radio.example/live", "radio.example/live"},
		{"http://bad host/", "http://bad host/"}, // does not parse: as written
	} {
		if got := AddressKey(c.addr); got != c.key {
			t.Errorf("AddressKey(%q) = %q, want %q", c.addr, got, c.key)
		}
	}
}

// TestPlainAddressKey: the plain addresses' keys, made without net/url,
// are those net/url gives, over addresses made of the characters that
// decide between the two.
func TestPlainAddressKey(t *testing.T) {
	schemes := []string{"http://", "https://", "HTTP://", "ftp://", "http:/", ""}
	parts := []string{"radio.example", "Radio.EXAMPLE", "a_b~c-d",
		":80", ":443", ":8000", ":", ":x", "@", "/", "/live", "/Live/", "//", ";", "=", "$", "&", "+", ",",
		"%20", "%zz", " ", "!", "*", "'", "(", "é", "[::1]", "?", "?x=1", "?a b", "#", "#top", "\x7f", "\t"}
	rng := rand.New(rand.NewPCG(1, 2))
	plain := 0
	for range 200000 {
		var b strings.Builder
		b.WriteString(schemes[rng.IntN(len(schemes))])
		for range 1 + rng.IntN(6) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		addr := strings.TrimSpace(b.String())
		k, ok := plainAddressKey(addr)
		if !ok {
			continue
		}
		plain++
		if want := parsedAddressKey(addr); k != want {
			t.Fatalf("plainAddressKey(%q) = %q, net/url gives %q", addr, k, want)
		}
	}
	if plain < 1000 {
		t.Errorf("only %d plain addresses", plain)
	}
	for c := range 256 { // the character classes are net/url's
		if addressBytes[c]&pathByte != 0 && (&url.URL{Path: string(rune(c))}).EscapedPath() != string(rune(c)) {
			t.Errorf("%q is escaped in a path", byte(c))
		}
	}
}

func TestGroupCounter(t *testing.T) {
	var c GroupCounter
	for _, tc := range []struct {
		groups []uint32
		want   int
	}{
		{nil, 0},
		{[]uint32{NoGroup, NoGroup}, 2}, // each entry alone is a group of its own
		{[]uint32{7, 7, 7}, 1},
		{[]uint32{7, NoGroup, 9, 7, NoGroup}, 4},
	} {
		c.Reset()
		for _, g := range tc.groups {
			c.Add(g)
		}
		if got := c.Count(); got != tc.want {
			t.Errorf("groups %v: count %d, want %d", tc.groups, got, tc.want)
		}
	}
}

func TestListedGroups(t *testing.T) {
	if k := string(ListedGroupsKey(BucketGenres, []byte("jazz"))); k != "genres\x00jazz" {
		t.Errorf("key %q", k)
	}
	if n, err := ParseListedGroups(AppendListedGroups(nil, 1234)); n != 1234 || err != nil {
		t.Errorf("round trip: %d, %v", n, err)
	}
	for _, v := range []string{"", "\x00\x00\x01", "\x00\x00\x00\x01\x00"} {
		if _, err := ParseListedGroups([]byte(v)); err == nil {
			t.Errorf("value %q parsed", v)
		}
	}
}

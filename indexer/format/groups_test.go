package format

import "testing"

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

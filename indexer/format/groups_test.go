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

package pages

import (
	"testing"

	"stationdex/internal/format"
	"stationdex/internal/stationjson"
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

// TestStationTextCutsAsBuilt: the addresses and texts a station page cuts
// from one string are those stationjson and CleanText make, for clean and
// hostile records alike.
func TestStationTextCutsAsBuilt(t *testing.T) {
	id := format.UUID{0xcb, 0xbf, 0x67, 0x59, 0x81, 0x24, 0x40, 0x5d, 0xa8, 0x84, 0x3b, 0xd8, 0x73, 0x29, 0x46, 0xbd}
	for _, rec := range []format.Record{
		{ID: id, Name: "Radio Eins", Country: "Germany", CountryCode: "DE"},
		{ID: id, Name: "Bidi\u202e name\x01\u2028", Country: "", CountryCode: "us"},
		{ID: id, Name: "Odd code", Country: "Nowhere\u200f", CountryCode: "Z9"},
		{ID: id, Name: "\xff\xfe broken", Country: "Ελλάδα", CountryCode: "GR"},
	} {
		var c cuts
		c.b = appendStationURL(c.b, "https://x.example", rec.ID, "listen/")
		url := c.mark()
		c.b = appendPageTitle(c.b, &rec)
		title := c.mark()
		var text, address int
		c.b, text, address = appendCountry(c.b, "https://x.example", &rec)
		country := c.markAt(text)
		c.markAt(address)
		d := c.done()
		if got, want := d.get(url), stationjson.StationFileURL("https://x.example", rec.ID, "listen/"); got != want {
			t.Errorf("%q: address %q, want %q", rec.Name, got, want)
		}
		if got, want := d.get(title), CleanText(stationjson.PageTitle(&rec)); got != want {
			t.Errorf("%q: title %q, want %q", rec.Name, got, want)
		}
		label := countryName(&rec)
		if label == "" {
			label = rec.CountryCode
		}
		want := internalLink(label+" ("+rec.CountryCode+")", stationjson.CountryURL("https://x.example", rec.CountryCode))
		if got := (Link{Text: d.get(country), Href: d.get(country + 1), Internal: true}); got != want {
			t.Errorf("%q: country %+v, want %+v", rec.Name, got, want)
		}
	}
}

package format

import "testing"

func TestGenreKey(t *testing.T) {
	for _, c := range []struct{ tag, key string }{
		{"hiphop", "hiphop"},
		{"Hip Hop", "hiphop"},
		{"hip-hop", "hiphop"},
		{"HIP\u2010HOP", "hiphop"},  // Unicode hyphen
		{" hip  hop ", "hiphop"},    // white space, however much
		{"#HipHop", "hiphop"},       // hashtag
		{"##hip hop", "hiphop"},     // every leading '#'
		{"# hip hop", "hiphop"},     // '#' then a space
		{"c#", "c#"},                // a '#' inside stays
		{"80's", "80s"},             // ASCII apostrophe
		{"80\u2019s", "80s"},        // right single quotation mark
		{"80\u02bcs", "80s"},        // modifier letter apostrophe
		{"80`s", "80s"},             // grave accent typed as one
		{"80\uff07s", "80s"},        // full-width apostrophe
		{"R'n'B", "rnb"},            //
		{"Lo-Fi", "lofi"},           //
		{"Top 40", "top40"},         //
		{"Música Pop", "musicapop"}, // accents folded
		{"r&b", "r&b"},              // other punctuation stays
		{"d.j.", "d.j."},            //
		{"-", ""},                   // punctuation only: no key
		{"...", ""},                 //
		{"#", ""},                   //
		{"' - '", ""},               //
		{"#!?", ""},                 //
		{"", ""},                    //
		{"♫", "♫"},                  // a symbol is not punctuation
	} {
		if got := GenreKey(c.tag); got != c.key {
			t.Errorf("GenreKey(%q) = %q, want %q", c.tag, got, c.key)
		}
		if k := GenreKey(c.key); k != c.key {
			t.Errorf("GenreKey(%q) = %q: a key is not its own key", c.key, k)
		}
	}
}

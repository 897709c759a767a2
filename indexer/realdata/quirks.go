package realdata

import (
	"fmt"
	"strings"
)

// quirks draws the sample's stations that carry the full snapshot's
// oddities, each made up in the upstream's manner (README beside the
// snapshot, "Quirks to handle"); the bulk around them is ordinary.
func (g *sampler) quirks() []*station {
	var out []*station
	add := func(c *country, edit func(s *station)) *station {
		s := g.station(c)
		edit(s)
		out = append(out, s)
		return s
	}
	named := func(c *country, names ...string) {
		for _, n := range names {
			add(c, func(s *station) { s.Name = n })
		}
	}
	us, de, ru, fr, gr, cn, gb, mx := &countries[0], &countries[1], &countries[2], &countries[3], &countries[4], &countries[5], &countries[6], &countries[8]

	// Names: surrounding or lone whitespace, control and zero-width
	// characters, double spaces, keyword stuffing, emoji, styled letters,
	// HTML entities, mojibake, leading punctuation, URLs.
	named(de, "\tArrow Classic Hits", " Radio Sunrise", "Jazz Lounge Berlin ", "  Morning FM  ", "   ", "\t",
		"News\tTalk 24", "Radio\r\nLinefeed", "Beat\x01Box FM", "Radio\u200bZero", "\u200bFM Nulo", "Jazz\u200d Bar",
		"Classic  Rock  Radio", "Pop  Hits")
	named(us, stuffed(378), stuffed(160), stuffed(120), stuffed(101))
	named(us, "🎵 Chill Radio", "Radio 🎸 Rock", "🔥 Hot Hits 🔥", "☕ Coffee Jazz", "Lofi 🎧 Beats")
	named(gb, "𝐑𝐚𝐝𝐢𝐨 𝐒𝐭𝐲𝐥𝐞", "𝓙𝓪𝔃𝔃 𝓒𝓪𝓯𝓮", "𝕽𝖔𝖈𝖐 𝕱𝕸", "𝙉𝙚𝙬𝙨 𝙁𝙈")
	named(fr, "&#82;&#97;&#100;&#105;&#111; &#74;&#97;&#122;&#122;")
	named(&countries[18], "RÃ¡dio Comercial Ã‰poca")
	named(us, "-= Rock Zone =-", ".977 Hits", "_lounge_", "#1 Dance Hits", "@Radio Online", "!!! Party FM",
		"*Star FM*", "(Classic) Gold", "\"Quoted\" Radio", "'80s Forever", "[Mix] Radio", "~Ambient~", "...Jazz",
		"🎷 Saxophone Radio", "- Radio Uno -", "#hiphop radio")
	named(us, "http://www.radio-stream.example/live", "www.rockstation.example", "https://jazz.example/stream.mp3",
		"radio.example.org")
	named(ru, "Радио Классик", "Классик FM", "Радио Москва", "Русское Радио")
	named(gr, "Ελληνικά Ράδιο", "Ράδιο Ελλάδα", "ελληνικα τραγουδια")
	named(cn, "北京音乐广播", "中国之声", "北京交通广播")
	named(de, "Deutschlandfunk", "Deutschlandfunk Kultur", "Antenne Bayern", "Antenne Bayern Oldies", "Klassik Radio")
	named(gb, "BBC Radio 1", "BBC Radio 2", "BBC Radio 4", "BBC World Service")
	named(us, "NPR News", "Radio Paradise", "Radio Paradise Mellow", "New York Jazz")
	named(&countries[22], "DR P1 (AAC)")
	named(&countries[19], "Ö3", "Hitradio Ö3", "O3 Live")
	named(&countries[18], "Rádio Comercial", "Radio Comercial", "Rádio Comercial 80s")
	named(fr, "France Inter", "France Inter Paris")
	named(&countries[14], "Rádio São Paulo", "Radio Sao Paulo")
	// One name shared by many stations, spelt alike and not.
	for i := range 72 {
		add(fr, func(s *station) {
			s.Name = []string{"lor'fm", "Lor'FM", "lor'fm "}[i%3]
			if i%2 == 0 { // one station's many entries: the same name, homepage and country
				s.Homepage = "https://www.lorfm.example/"
			}
		})
	}

	// Countries: no code (and then no label), lower-case codes, a state
	// where the country should be.
	for i := range 12 {
		add(nil, func(s *station) {
			if i == 0 {
				s.State = "Germany"
			}
		})
	}
	for i, code := range []string{"fr", "cz", "gr"} {
		add([]*country{fr, &countries[20], gr}[i], func(s *station) { s.CountryCode = code })
	}

	// States: placeholders, surrounding spaces, free text.
	for _, st := range []string{"- None -", "n/a", "-", " Bavaria ", "Berlin ", "Somewhere near the river, north side"} {
		add(de, func(s *station) { s.State = st })
	}

	// Languages: many values, other separators, trailing marks, free text,
	// codes used as names; language codes in upper case or disagreeing.
	for _, l := range [][2]string{
		{"english,spanish,french,german,italian,portuguese,russian,chinese,japanese,arabic,hindi", "en,es,fr,de,it,pt,ru,zh,ja,ar,hi"},
		{"castellano. español", "es"}, {"english/russian", "en,ru"}, {"english/russian", ""}, {"inglés/portugués/español", ""},
		{"english,", "en"}, {"german/", "de"}, {"french.", "fr"}, {"spanish-", "es"}, {"español mexico", ""},
		{"язык: русский", "ru"}, {"deutsch fränkisch", "de"}, {"português  brasil", "pt"}, {"ger", ""}, {"deu", "de"},
		{"rus", ""}, {"us", "en"}, {"german", "DE"}, {"english,spanish", "EN,ES"}, {"english", "EN"},
		{"german,english", "de"}, {"", "FR"}, {"brazilian portuguese", ""}, {"american english", "en"},
	} {
		add(de, func(s *station) { s.Language, s.LanguageCodes = l[0], l[1] })
	}
	for range 20 {
		add(mx, func(s *station) { s.Language, s.LanguageCodes = "español mexico", "" })
	}

	// Tags: URLs, emoji, numbers, near-duplicates, very long ones, and one
	// station with 311 of them.
	for _, t := range []string{"http://www.radio.example,pop", "www.hits.example", "🎶,music", "🎵 music,🎸", "80,2000,1",
		"pop,pop music", "80s,80's", "méxico,mexico", "jazz,Jazz,JAZZ", "top 40,top40,Top-40,TOP 40",
		"hiphop,hip-hop,hip hop,Hip Hop,#hiphop", "rnb,r'n'b,R’n’B,r n b", "lofi,lo-fi,Lo Fi", "80’s,80S",
		strings.Repeat("long tag without end ", 47) + "and then some", "the best music from the eighties nineties and today",
		"community radio station broadcasting from the valley", "news, talk,  sport ,", ",pop,,rock,",
	} {
		add(us, func(s *station) { s.Tags = t })
	}
	add(us, func(s *station) {
		var tags []string
		for i := range 311 {
			tags = append(tags, fmt.Sprintf("%s %d", genreTags[i%len(genreTags)], 1950+i/len(genreTags)))
		}
		s.Tags = strings.Join(tags, ",")
	})

	// Numbers: bitrate unknown and absurd, huge votes.
	for _, b := range []int{0, 0, 1, 1411, 64000, 128000} {
		add(de, func(s *station) { s.Bitrate = b })
	}
	for _, v := range []int{726846, 250000, 98765} {
		add(us, func(s *station) { s.Votes, s.ClickCount = v, v/10 })
	}

	// Coordinates: latitude without longitude, out of range, a whole
	// number, and stations around the places the tests search near.
	for i := range 4 {
		add(de, func(s *station) {
			lat := 48 + float64(i)
			s.GeoLat, s.GeoLong = &lat, nil
		})
	}
	add(fr, func(s *station) { g.geo(s, 95.3, 2.35) })
	add(gb, func(s *station) { g.geo(s, 51, -1) })
	for i := range 30 {
		add(de, func(s *station) {
			s.State = "Berlin"
			g.geo(s, 52.52+float64(i%7-3)*0.05, 13.405+float64(i%5-2)*0.07)
		})
		add(fr, func(s *station) {
			s.State = "Paris"
			g.geo(s, 48.85+float64(i%7-3)*0.06, 2.35+float64(i%5-2)*0.08)
		})
		add(de, func(s *station) {
			s.State = "Hessen"
			g.geo(s, 50.11+float64(i%7-3)*0.09, 8.68+float64(i%5-2)*0.12)
		})
	}

	// URLs: very long, malformed, a homepage with a doubled scheme, a
	// stream shared by many stations.
	add(us, func(s *station) {
		s.URL = "http://stream.longtoken.example/live?token=" + strings.Repeat("a1b2c3d4e5", 1493)
		s.URLResolved = s.URL
	})
	for _, u := range []string{"http:host.example:8000/stream", "htp://radio.example/live", "stream.example:8000/live", "http://", "http://bad host.example/"} {
		add(de, func(s *station) { s.URL, s.URLResolved = u, "" })
	}
	add(us, func(s *station) { s.Homepage = "hthttps://www.radio.example/" })
	for i := range 60 { // more than a page of entries of one stream
		add(&countries[i%len(countries)], func(s *station) {
			s.URL, s.URLResolved = "http://relay.network.example:8000/shared", "http://relay.network.example:8000/shared"
		})
	}

	// The newest check, which a build reports as the snapshot's time.
	add(de, func(s *station) {
		s.LastCheckOK = 1
		s.LastCheckTime, s.LastCheckTimeISO = stamp(SampleNewestCheck), isoPtr(SampleNewestCheck)
		s.LastCheckOKTime, s.LastCheckOKTimeISO = s.LastCheckTime, isoPtr(SampleNewestCheck)
	})
	// Checked never: the times empty, their ISO twins null.
	add(us, func(s *station) {
		s.LastCheckOK = 0
		s.LastCheckTime, s.LastCheckTimeISO, s.LastCheckOKTime, s.LastCheckOKTimeISO = "", nil, "", nil
		s.LastLocalCheckTime, s.LastLocalCheckTimeISO, s.ClickTimestamp, s.ClickTimestampISO = "", nil, "", nil
		s.Codec, s.Bitrate = "", 0
	})
	return out
}

// stuffed is a keyword-stuffed name of n runes.
func stuffed(n int) string {
	const words = "Best Radio - Hits Pop Rock Dance 80s 90s 2000s News Talk Music Online Free Listen Live Stream Top Charts Oldies Jazz Lounge Chill "
	return strings.TrimSpace(strings.Repeat(words, n/len(words)+1)[:n-1]) + "!"
}

package indexer

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// Cases are written for these tests after the quirks listed in
// ../shared/data/README.md; none is copied from the dump.

func TestCleanName(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "Radio One", "Radio One"},
		{"surrounding space", "  Radio One \n", "Radio One"},
		{"whitespace only", " \t ", ""},
		{"double space", "Radio  One", "Radio One"},
		{"tab inside", "name\tRadio X ", "name Radio X"},
		{"CR LF", "Chanson\r\n", "Chanson"},
		{"zero-width space", "Radio\u200b  One", "Radio One"},
		{"word joiners", "\u2061\u2061FM 90", "FM 90"},
		{"BOM", "\ufeff\ufeffRadio B", "Radio B"},
		{"bidi mark", "Persia\u200e  Radio", "Persia Radio"},
		{"ZWJ emoji sequence kept", "Family 👨\u200d👩 FM", "Family 👨\u200d👩 FM"},
		{"no-break space", "Yoshlar\u00a0Ovozi\u00a0", "Yoshlar Ovozi"},
		{"numeric entities", "&#1056;&#1072;&#1076;&#1080;&#1086; FM+", "Радио FM+"},
		{"named entity", "Rock &amp; Roll", "Rock & Roll"},
		{"entity of a control char", "A&#9;B", "A B"},
		{"only zero width", "\u200b\u200b", ""},
		{"invalid UTF-8", "Radio \xff One", "Radio \uFFFD One"},
		{"styled letters kept", "𝐑𝐚𝐝𝐢𝐨", "𝐑𝐚𝐝𝐢𝐨"},
		{"leading punctuation kept", "-=Metal=-", "-=Metal=-"},
		{"long name cut", strings.Repeat("ab ", 100), strings.TrimSpace(strings.Repeat("ab ", 67))},
		{"cut leaves no trailing space", strings.Repeat("x", 199) + " yz", strings.Repeat("x", 199)},
		{"cut at rune boundary", strings.Repeat("é", 250), strings.Repeat("é", MaxNameRunes)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cleanName(tt.in); got != tt.want {
				t.Errorf("cleanName(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCleanCountryCode(t *testing.T) {
	tests := map[string]string{
		"DE": "DE", "fr": "FR", " gr ": "GR", "": "", "D": "", "DEU": "", "1A": "", "ÄB": "", "d e": "",
	}
	for in, want := range tests {
		if got := cleanCountryCode(in); got != want {
			t.Errorf("cleanCountryCode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCleanLocation(t *testing.T) {
	tests := map[string]string{
		"Bavaria":          "Bavaria",
		"  Ile-de-France ": "Ile-de-France",
		"-":                "",
		"--":               "",
		"?":                "",
		"- None -":         "",
		"n/a":              "",
		"N/A":              "",
		"NA":               "",
		"none":             "",
		"Unknown":          "",
		"null":             "",
		"":                 "",
		"São  Paulo":       "São Paulo",
		"北海道":              "北海道",
		"NRW":              "NRW",
	}
	for in, want := range tests {
		if got := cleanLocation(in); got != want {
			t.Errorf("cleanLocation(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCleanLanguages(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", []string{}},
		{"english", []string{"english"}},
		{"english,german", []string{"english", "german"}},
		{"castellano. español", []string{"castellano", "español"}},
		{"andaluz.español", []string{"andaluz", "español"}},
		{"english/russian", []string{"english", "russian"}},
		{"inglés/portugués/español", []string{"inglés", "portugués", "español"}},
		{"english/", []string{"english"}},
		{"arabic.", []string{"arabic"}},
		{"swahili-", []string{"swahili"}},
		{"#spanish,#english", []string{"spanish", "english"}},
		{"english/ spain/ russian /french", []string{"english", "spain", "russian", "french"}},
		{"pashto; urdu | dari", []string{"pashto", "urdu", "dari"}},
		{"kinyarwanda & kiswahili", []string{"kinyarwanda", "kiswahili"}},
		{"español - latinoamerica", []string{"español - latinoamerica"}},
		{"carpatho-rusyn,pt-br", []string{"carpatho-rusyn", "pt-br"}},
		{"português  brasil", []string{"português brasil"}},
		{"english,English, ENGLISH ", []string{"english"}},
		{"español,espanol", []string{"español"}},
		{",, ,", []string{}},
		{"frenchhttps://stream.example/x", []string{"french"}},
		{"http://stream.example:80/aac-32", []string{}},
		{"german,http://stream.example/a,dutch", []string{"german", "dutch"}},
		{"язык: русский", []string{"язык: русский"}},
	}
	for _, tt := range tests {
		if got := cleanLanguages(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("cleanLanguages(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	many := strings.Repeat("x,", 40) // one label, deduplicated
	if got := cleanLanguages(many); len(got) != 1 {
		t.Errorf("cleanLanguages(x,x,...) = %q", got)
	}
	var distinct []string
	for c := 'a'; c <= 'z'; c++ {
		distinct = append(distinct, string(c)+"lang", string(c)+"tongue")
	}
	if got := cleanLanguages(strings.Join(distinct, ",")); len(got) != MaxLanguages {
		t.Errorf("%d languages kept, want the cap %d", len(got), MaxLanguages)
	}
}

func TestLanguageCodes(t *testing.T) {
	tests := []struct {
		field  string
		labels []string
		want   []string
	}{
		{"", nil, []string{}},
		{"en", []string{"english"}, []string{"en"}},
		{"DE", nil, []string{"de"}},
		{"EN,de", nil, []string{"en", "de"}},
		{"eng,deu", nil, []string{"en", "de"}},
		{"ger", nil, []string{"de"}},
		{"in", nil, []string{"id"}},
		{"en, en ,EN", nil, []string{"en"}},
		{"", []string{"german"}, []string{"de"}},
		{"", []string{"deutsch", "français"}, []string{"de", "fr"}},
		{"", []string{"brazilian portuguese"}, []string{"pt"}},
		{"", []string{"80s"}, []string{}},
		{"en", []string{"english", "german"}, []string{"en", "de"}},
		{"xx1,e,english,zz", nil, []string{}},
		{"yue", nil, []string{"yue"}},
		{"ji", []string{"yiddish"}, []string{"yi"}},
		{"mo", nil, []string{"ro"}},
	}
	for _, tt := range tests {
		if got := languageCodes(tt.field, tt.labels); !slices.Equal(got, tt.want) {
			t.Errorf("languageCodes(%q, %q) = %q, want %q", tt.field, tt.labels, got, tt.want)
		}
	}
}

func TestCleanGenres(t *testing.T) {
	long := strings.Repeat("ü", 990)
	tests := []struct {
		in   string
		want []string
	}{
		{"", []string{}},
		{"pop,rock", []string{"pop", "rock"}},
		{" pop , Pop,POP", []string{"pop"}},
		{"méxico,mexico", []string{"méxico"}},
		{"pop,pop music,80s,80's", []string{"pop", "pop music", "80s", "80's"}},
		{"jazz,,  ,", []string{"jazz"}},
		{"hip  hop", []string{"hip hop"}},
		{"2000,80", []string{"2000", "80"}},
		{"news\ttalk", []string{"news talk"}},
		{long, []string{strings.Repeat("ü", MaxGenreRunes)}},
	}
	for _, tt := range tests {
		if got := cleanGenres(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("cleanGenres(%.40q) = %.80q, want %.80q", tt.in, got, tt.want)
		}
	}
	var tags []string
	for i := range 311 {
		tags = append(tags, "tag"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	if got := cleanGenres(strings.Join(tags, ",")); len(got) != MaxGenres {
		t.Errorf("%d genres kept of 311, want the cap %d", len(got), MaxGenres)
	}
}

func TestCleanBitrate(t *testing.T) {
	tests := map[int64]uint32{0: 0, -1: 0, 128: 128, 1411: 1411, MaxBitrateKbps: MaxBitrateKbps, MaxBitrateKbps + 1: 0, 128000: 0, 1 << 40: 0}
	for in, want := range tests {
		if got := cleanBitrate(in); got != want {
			t.Errorf("cleanBitrate(%d) = %d, want %d", in, got, want)
		}
	}
}

func TestCleanURL(t *testing.T) {
	tests := map[string]string{
		"https://www.example.org/":       "https://www.example.org/",
		" http://example.org:8000/live ": "http://example.org:8000/live",
		"HTTP://EXAMPLE.ORG/":            "HTTP://EXAMPLE.ORG/",
		"hthttps://www.example.org":      "",
		"http:host:8000/stream":          "",
		"http:/example.org":              "",
		"//example.org/x":                "",
		"www.example.org":                "",
		"ftp://example.org/x":            "",
		"javascript:alert(1)":            "",
		"mms://example.org/x":            "",
		"http://":                        "",
		"http://:80/x":                   "",
		"http://exa mple.org/":           "",
		"http://example.org/a b":         "",
		"http://example.org/\x00":        "",
		"":                               "",
		"http://example.org/" + strings.Repeat("a", MaxURLBytes): "",
	}
	for in, want := range tests {
		if got := cleanURL(in); got != want {
			t.Errorf("cleanURL(%.60q) = %q, want %q", in, got, want)
		}
	}
}

// TestPlainHTTPURL holds plainHTTPURL, cleanURL's shortcut, to the long
// way: every URL it takes, url.Parse takes too, as an http(s) URL with a
// host name; what it leaves (false) goes the long way.
func TestPlainHTTPURL(t *testing.T) {
	for in, want := range map[string]bool{
		"http://example.org": true, "https://example.org/": true, "http://a:/x": true,
		"https://a/%41%4a/b?c#d": true, "https://a.b:1/?": true, "http://a.b-c_d~e:8000/x?y=1#f%41": true,
		"http://a.b-c_d~e:8000/x?y=%zz": false, "http://example.org/a%4": false, "http://example.org/a%zz": false,
		"http://example.org#%zz": false, "http://:80/x": false, "http://a::80/x": false, "http://a:8b/x": false,
		"http://[::1]:80/": false, "http://user@example.org/": false, "http://%41/": false, "http:///x": false,
		"http://?x": false, "http://#x": false, "http://a/\x7f": false, "http://a/é": false, "http://": false,
		"http://exa mple.org/": false, "http://a/#?%": false, "HTTP://a/": false, "http:/a/": false,
	} {
		if got := plainHTTPURL(in); got != want {
			t.Errorf("plainHTTPURL(%q) = %v, want %v", in, got, want)
		}
		if !want {
			continue
		}
		u, err := url.Parse(in)
		if err != nil || u.Hostname() == "" || (u.Scheme != "http" && u.Scheme != "https") {
			t.Errorf("plainHTTPURL(%q) = true, url.Parse: %+v, %v", in, u, err)
		}
	}
}

func TestCleanStation(t *testing.T) {
	raw := rawStation{
		StationUUID: "DB93A00F-9191-46AB-9EC9-000000000001", Name: " Test&amp;Radio ",
		CountryCode: "at", Country: " Austria ", State: "n/a",
		Language: "german,", LanguageCodes: "", Tags: "Pop,pop",
		Bitrate: 128, Homepage: "hthttps://x", URLResolved: "", URL: "https://s.example/live",
	}
	rec, reason := cleanStation(&raw)
	if reason != kept {
		t.Fatalf("skipped: %s", reason)
	}
	if rec.ID.String() != "db93a00f-9191-46ab-9ec9-000000000001" || rec.Name != "Test&Radio" ||
		rec.CountryCode != "AT" || rec.Country != "Austria" || rec.Location != "" ||
		!slices.Equal(rec.Languages, []string{"german"}) || !slices.Equal(rec.LanguageCodes, []string{"de"}) ||
		!slices.Equal(rec.Genres, []string{"Pop"}) || rec.BitrateKbps != 128 ||
		rec.OfficialURL != "" || rec.StreamURL != "https://s.example/live" {
		t.Errorf("cleaned %+v", rec)
	}
	skips := []struct {
		raw  rawStation
		want skipReason
	}{
		{rawStation{StationUUID: "", Name: "x"}, skipInvalidUUID},
		{rawStation{StationUUID: "not-a-uuid", Name: "x"}, skipInvalidUUID},
		{rawStation{StationUUID: "{db93a00f-9191-46ab-9ec9-000000000001}", Name: "x"}, skipInvalidUUID},
		{rawStation{StationUUID: "db93a00f919146ab9ec9000000000001", Name: "x"}, skipInvalidUUID},
		{rawStation{StationUUID: "db93a00f-9191-46ab-9ec9-00000000000g", Name: "x"}, skipInvalidUUID},
		{rawStation{StationUUID: "db93a00f-9191-46ab-9ec9-000000000001", Name: " \t"}, skipEmptyName},
		{rawStation{StationUUID: "db93a00f-9191-46ab-9ec9-000000000001", Name: "\u200b"}, skipEmptyName},
	}
	for _, s := range skips {
		if _, got := cleanStation(&s.raw); got != s.want {
			t.Errorf("cleanStation(%+v) = %s, want %s", s.raw, got, s.want)
		}
	}
}

func TestNewestTime(t *testing.T) {
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	tests := []struct {
		raw  rawStation
		want time.Time
	}{
		{rawStation{}, time.Time{}},
		{rawStation{LastCheckTime: "2025-02-27 12:38:23"}, at("2025-02-27T12:38:23Z")},
		{rawStation{LastCheckTime: "2025-02-01 00:00:00", LastChangeTime: "2025-02-02 00:00:00"}, at("2025-02-02T00:00:00Z")},
		{rawStation{LastCheckTime: "", LastCheckTimeTZ: "2025-02-03T00:00:00Z"}, at("2025-02-03T00:00:00Z")},
		{rawStation{LastCheckTime: "garbage", LastCheckTimeTZ: "2025-02-03T01:00:00+01:00"}, at("2025-02-03T00:00:00Z")},
		{rawStation{LastChangeTime: "2025-13-01 00:00:00"}, time.Time{}},
	}
	for _, tt := range tests {
		got := newestTime(&tt.raw)
		if !got.Equal(tt.want) || (!got.IsZero() && got.Location() != time.UTC) {
			t.Errorf("newestTime(%+v) = %s, want %s", tt.raw, got, tt.want)
		}
	}
}

func TestCleanCodec(t *testing.T) {
	for in, want := range map[string]string{
		"MP3": "MP3", "mp3": "MP3", " AAC+ ": "AAC+", "aacp": "AAC+", "AAC": "AAC", "AAC,H.264": "AAC",
		"AAC+,H.264": "AAC+", "OGG": "OGG", "flac": "FLAC", "Opus": "OPUS",
		"UNKNOWN": "", "UNKNOWN,H.264": "", "FLV": "", "": "", "<b>MP3</b>": "",
	} {
		if got := cleanCodec(in); got != want {
			t.Errorf("cleanCodec(%q) = %q, want %q", in, got, want)
		}
	}
}

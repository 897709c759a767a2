package indexer

import (
	"bufio"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"stationdex/internal/format"
)

// FuzzCleanRecord feeds raw JSON lines through decoding and cleaning: they
// must never panic, and every record kept must satisfy the invariants the
// query engine and the API rely on.
func FuzzCleanRecord(f *testing.F) {
	seeds, err := os.Open(fixture)
	if err != nil {
		f.Fatal(err)
	}
	sc := bufio.NewScanner(seeds)
	for sc.Scan() {
		f.Add([]byte(sc.Text()))
	}
	seeds.Close()
	f.Add([]byte(`{"stationuuid":"00000001-0000-4000-8000-000000000001","name":"a\u0000b","language":"x/y.z|w;v&u","languagecodes":"EN,xx,ger","tags":",,a,A,","bitrate":99999,"homepage":"http://h/","url_resolved":"https://[::1]:80/"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var st rawInput
		if decodeStation(line, &st, format.SectionRBAPI) != nil {
			return
		}
		rec, reason := cleanStation(&st.rawStation)
		if reason != kept {
			return
		}
		if err := checkRecord(&rec); err != nil {
			t.Fatalf("%v\nrecord %+v", err, rec)
		}
		var back format.Record
		if err := format.DecodeRecord(format.AppendRecord(nil, &rec), &back); err != nil || !reflect.DeepEqual(back, rec) {
			t.Fatalf("round trip: %v\n%+v\n%+v", err, rec, back)
		}
	})
}

// checkRecord states the invariants of a cleaned record.
func checkRecord(r *format.Record) error {
	if r.Name == "" {
		return fmt.Errorf("empty name")
	}
	texts := []struct {
		what string
		s    string
		max  int
	}{{"name", r.Name, MaxNameRunes}, {"country", r.Country, MaxLabelRunes}, {"location", r.Location, MaxLabelRunes}}
	for _, l := range r.Languages {
		texts = append(texts, struct {
			what string
			s    string
			max  int
		}{"language", l, MaxLabelRunes})
	}
	for _, g := range r.Genres {
		texts = append(texts, struct {
			what string
			s    string
			max  int
		}{"genre", g, MaxGenreRunes})
	}
	for _, x := range texts {
		if err := checkText(x.s, x.max); err != nil {
			return fmt.Errorf("%s %q: %w", x.what, x.s, err)
		}
	}
	if c := r.CountryCode; c != "" && (len(c) != 2 || c[0] < 'A' || c[0] > 'Z' || c[1] < 'A' || c[1] > 'Z') {
		return fmt.Errorf("country code %q", c)
	}
	if err := checkList(r.Languages, MaxLanguages, ",;/|&."); err != nil {
		return fmt.Errorf("languages: %w", err)
	}
	if err := checkList(r.Genres, MaxGenres, ","); err != nil {
		return fmt.Errorf("genres: %w", err)
	}
	if err := checkCodes(r.LanguageCodes); err != nil {
		return err
	}
	if r.BitrateKbps > MaxBitrateKbps {
		return fmt.Errorf("bitrate %d", r.BitrateKbps)
	}
	for _, u := range []string{r.OfficialURL, r.StreamURL} {
		if u != "" && (len(u) > MaxURLBytes || !(hasPrefixFold(u, "http://") || hasPrefixFold(u, "https://"))) {
			return fmt.Errorf("url %q", u)
		}
	}
	return nil
}

// checkText: valid UTF-8, no control or invisible characters but ZWJ/ZWNJ,
// trimmed, single-spaced, at most max runes.
func checkText(s string, max int) error {
	switch {
	case !utf8.ValidString(s):
		return fmt.Errorf("invalid UTF-8")
	case utf8.RuneCountInString(s) > max:
		return fmt.Errorf("longer than %d runes", max)
	case s != strings.TrimSpace(s) || strings.Contains(s, "  "):
		return fmt.Errorf("untrimmed or double space")
	}
	for _, r := range s {
		if unicode.IsControl(r) || (unicode.Is(unicode.Cf, r) && r != '\u200c' && r != '\u200d') || (unicode.IsSpace(r) && r != ' ') {
			return fmt.Errorf("character %U", r)
		}
	}
	return nil
}

// checkList: at most max entries, none empty, none holding a separator,
// facet keys distinct.
func checkList(l []string, max int, seps string) error {
	if l == nil || len(l) > max {
		return fmt.Errorf("%d entries (nil: %t)", len(l), l == nil)
	}
	seen := map[string]bool{}
	for _, s := range l {
		k := format.FacetKey(s)
		if s == "" || k == "" || seen[k] || strings.ContainsAny(s, seps) {
			return fmt.Errorf("entry %q", s)
		}
		seen[k] = true
	}
	return nil
}

func checkCodes(codes []string) error {
	if codes == nil {
		return fmt.Errorf("nil language codes")
	}
	seen := map[string]bool{}
	for _, c := range codes {
		if !isCodeShaped(c) || seen[c] {
			return fmt.Errorf("language code %q", c)
		}
		seen[c] = true
	}
	return nil
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// FuzzPlainHTTPURL holds cleanURL's shortcut to url.Parse on any string:
// what plainHTTPURL takes, the long way takes too.
func FuzzPlainHTTPURL(f *testing.F) {
	for _, s := range []string{"http://a.b:80/x?y#z", "https://a/%41", "http://a:/", "http://a/%4g", "http://[::1]/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !plainHTTPURL(s) {
			return
		}
		u, err := url.Parse(s)
		if err != nil || u.Hostname() == "" || (u.Scheme != "http" && u.Scheme != "https") {
			t.Fatalf("plainHTTPURL(%q) = true, url.Parse: %+v, %v", s, u, err)
		}
	})
}

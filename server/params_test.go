package server

import (
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"stationdex/query"
)

// paramCases covers every parameter rule of the spec and of this server: each
// rule has cases on both sides of its boundary. want is the error code, or ""
// for a valid query, whose parse result is ok.
var paramCases = []struct {
	name, raw string
	want      Code
	ok        searchParams
}{
	// Defaults and harmless shapes.
	{"none", "", "", searchParams{Limit: 20}},
	{"lone ampersand", "&", "", searchParams{Limit: 20}},
	{"empty pairs", "q=a&&limit=5&", "", searchParams{Q: "a", Limit: 5}},
	{"empty q", "q=", "", searchParams{Limit: 20}},
	{"q without =", "q", "", searchParams{Limit: 20}},
	{"plus is space", "q=radio+star", "", searchParams{Q: "radio star", Limit: 20}},
	{"escaped plus", "q=a%2Bb", "", searchParams{Q: "a+b", Limit: 20}},
	{"utf-8 q", "q=caf%C3%A9", "", searchParams{Q: "café", Limit: 20}},
	{"raw utf-8 q", "q=café", "", searchParams{Q: "café", Limit: 20}},
	{"semicolon is text", "q=a;b", "", searchParams{Q: "a;b", Limit: 20}},
	{"escaped name", "%71=x", "", searchParams{Q: "x", Limit: 20}},
	{"all", "q=jazz&country=Us&language=English&genre=jazz&limit=5&offset=10", "",
		searchParams{Q: "jazz", Filter: filt("Us", "English", "jazz"), Limit: 5, Offset: 10}},

	// Unknown parameters: names are case-sensitive and nothing else is taken.
	{"unknown", "foo=1", CodeUnknownParameter, searchParams{}},
	{"unknown upper-case Q", "Q=jazz", CodeUnknownParameter, searchParams{}},
	{"unknown page", "q=a&page=2", CodeUnknownParameter, searchParams{}},
	{"unknown empty name", "=x", CodeUnknownParameter, searchParams{}},
	{"unknown bracket", "q[]=a", CodeUnknownParameter, searchParams{}},

	// Repeats, also of empty and equal values.
	{"repeated q", "q=a&q=b", CodeRepeatedParameter, searchParams{}},
	{"repeated empty q", "q=&q=", CodeRepeatedParameter, searchParams{}},
	{"repeated limit", "limit=5&limit=5", CodeRepeatedParameter, searchParams{}},
	{"repeated country", "country=de&country=DE", CodeRepeatedParameter, searchParams{}},
	{"repeated via escape", "q=a&%71=b", CodeRepeatedParameter, searchParams{}},
	{"repeated offset", "offset=0&limit=2&offset=1", CodeRepeatedParameter, searchParams{}},
	{"repeated language", "language=de&language=fr", CodeRepeatedParameter, searchParams{}},
	{"repeated genre", "genre=pop&genre=pop", CodeRepeatedParameter, searchParams{}},

	// q: at most 120 characters, counted as characters, not bytes.
	{"q 120 ascii", "q=" + strings.Repeat("a", 120), "", searchParams{Q: strings.Repeat("a", 120), Limit: 20}},
	{"q 120 two-byte", "q=" + strings.Repeat("%C3%BC", 120), "", searchParams{Q: strings.Repeat("ü", 120), Limit: 20}},
	{"q 121", "q=" + strings.Repeat("a", 121), CodeInvalidParameter, searchParams{}},
	{"q 121 two-byte", "q=" + strings.Repeat("%C3%BC", 121), CodeInvalidParameter, searchParams{}},

	// language and genre: 1 to 60 characters.
	{"language 60", "language=" + strings.Repeat("l", 60), "", searchParams{Filter: filt("", strings.Repeat("l", 60), ""), Limit: 20}},
	{"language 61", "language=" + strings.Repeat("l", 61), CodeInvalidParameter, searchParams{}},
	{"language empty", "language=", CodeInvalidParameter, searchParams{}},
	{"genre 60 multibyte", "genre=" + strings.Repeat("%E6%B5%81", 60), "", searchParams{Filter: filt("", "", strings.Repeat("流", 60)), Limit: 20}},
	{"genre 61", "genre=" + strings.Repeat("g", 61), CodeInvalidParameter, searchParams{}},
	{"genre empty", "genre", CodeInvalidParameter, searchParams{}},

	// country: ^[A-Za-z]{2}$.
	{"country lower", "country=de", "", searchParams{Filter: filt("de", "", ""), Limit: 20}},
	{"country mixed", "country=dE", "", searchParams{Filter: filt("dE", "", ""), Limit: 20}},
	{"country empty", "country=", CodeInvalidParameter, searchParams{}},
	{"country one letter", "country=d", CodeInvalidParameter, searchParams{}},
	{"country three letters", "country=deu", CodeInvalidParameter, searchParams{}},
	{"country digit", "country=d1", CodeInvalidParameter, searchParams{}},
	{"country space", "country=de+", CodeInvalidParameter, searchParams{}},
	{"country non-ascii", "country=%C3%BC%C3%BC", CodeInvalidParameter, searchParams{}},
	{"country dash", "country=d-", CodeInvalidParameter, searchParams{}},

	// limit: integer 1..50.
	{"limit 1", "limit=1", "", searchParams{Limit: 1}},
	{"limit 50", "limit=50", "", searchParams{Limit: 50}},
	{"limit leading zeros", "limit=007", "", searchParams{Limit: 7}},
	{"limit 0", "limit=0", CodeInvalidParameter, searchParams{}},
	{"limit 51", "limit=51", CodeInvalidParameter, searchParams{}},
	{"limit negative", "limit=-1", CodeInvalidParameter, searchParams{}},
	{"limit plus sign", "limit=%2B5", CodeInvalidParameter, searchParams{}},
	{"limit plus as space", "limit=+5", CodeInvalidParameter, searchParams{}},
	{"limit empty", "limit=", CodeInvalidParameter, searchParams{}},
	{"limit no value", "limit", CodeInvalidParameter, searchParams{}},
	{"limit decimal", "limit=5.0", CodeInvalidParameter, searchParams{}},
	{"limit exponent", "limit=1e1", CodeInvalidParameter, searchParams{}},
	{"limit hex", "limit=0x10", CodeInvalidParameter, searchParams{}},
	{"limit underscore", "limit=1_0", CodeInvalidParameter, searchParams{}},
	{"limit word", "limit=ten", CodeInvalidParameter, searchParams{}},
	{"limit overflow", "limit=99999999999999999999999", CodeInvalidParameter, searchParams{}},
	{"limit 2^32+5", "limit=4294967301", CodeInvalidParameter, searchParams{}},
	{"limit fullwidth digit", "limit=%EF%BC%95", CodeInvalidParameter, searchParams{}},

	// offset: integer 0..5000.
	{"offset 0", "offset=0", "", searchParams{Limit: 20}},
	{"offset 5000", "offset=5000", "", searchParams{Limit: 20, Offset: 5000}},
	{"offset 5001", "offset=5001", CodeInvalidParameter, searchParams{}},
	{"offset negative zero", "offset=-0", CodeInvalidParameter, searchParams{}},
	{"offset negative", "offset=-20", CodeInvalidParameter, searchParams{}},
	{"offset empty", "offset=", CodeInvalidParameter, searchParams{}},
	{"offset overflow", "offset=18446744073709551617", CodeInvalidParameter, searchParams{}},
	{"offset space", "offset=1%200", CodeInvalidParameter, searchParams{}},

	// location: 1 to 60 characters, folded by the engine; https: true or false.
	{"location", "location=Z%C3%BCrich", "", searchParams{Filter: dims(query.DimLocation, "Zürich"), Limit: 20}},
	{"location 60", "location=" + strings.Repeat("l", 60), "", searchParams{Filter: dims(query.DimLocation, strings.Repeat("l", 60)), Limit: 20}},
	{"location 61", "location=" + strings.Repeat("l", 61), CodeInvalidParameter, searchParams{}},
	{"location empty", "location=", CodeInvalidParameter, searchParams{}},
	{"repeated location", "location=a&location=b", CodeRepeatedParameter, searchParams{}},
	{"https true", "https=true", "", searchParams{Filter: dims(query.DimHTTPS, "true"), Limit: 20}},
	{"https false", "https=false", "", searchParams{Filter: dims(query.DimHTTPS, "false"), Limit: 20}},
	{"https upper case", "https=TRUE", CodeInvalidParameter, searchParams{}},
	{"https 1", "https=1", CodeInvalidParameter, searchParams{}},
	{"https empty", "https=", CodeInvalidParameter, searchParams{}},
	{"distinct true", "distinct=true&q=fm", "", searchParams{Q: "fm", Distinct: "true", Limit: 20}},
	{"distinct false", "distinct=false", "", searchParams{Distinct: "false", Limit: 20}},
	{"distinct yes", "distinct=yes", CodeInvalidParameter, searchParams{}},
	{"distinct empty", "distinct=", CodeInvalidParameter, searchParams{}},
	{"distinct twice", "distinct=true&distinct=true", CodeRepeatedParameter, searchParams{}},
	{"repeated https", "https=true&https=true", CodeRepeatedParameter, searchParams{}},

	// List parameters: a,b or the parameter repeated, the same rules on
	// the items of both.
	{"codec repeated", "codec=aac&codec=mp3", "", searchParams{Filter: filt("", "", "", "MP3", "AAC"), Limit: 20}},
	{"codec both forms", "codec=ogg,opus&codec=MP3", "", searchParams{Filter: filt("", "", "", "MP3", "OGG", "OPUS"), Limit: 20}},
	{"codec repeated twice the same", "codec=mp3&codec=MP3", CodeInvalidParameter, searchParams{}},
	{"codec repeated empty", "codec=mp3&codec=", CodeInvalidParameter, searchParams{}},
	{"facets repeated", "facets=genre&facets=country", "", searchParams{Facets: query.DimsOf(query.DimCountry, query.DimGenre), FacetLimit: 10, Limit: 20}},
	{"facets new dimensions", "facets=codec,location", "", searchParams{Facets: query.DimsOf(query.DimLocation, query.DimCodec), FacetLimit: 10, Limit: 20}},
	{"facets repeated twice the same", "facets=genre&facets=genre", CodeInvalidParameter, searchParams{}},
	{"facets no https facet", "facets=https", CodeInvalidParameter, searchParams{}},
	{"facets past the items", "facets=" + strings.Repeat("genre,", 16) + "genre", CodeInvalidParameter, searchParams{}},

	// Encoding: invalid UTF-8, control characters, malformed escapes.
	{"q invalid utf-8", "q=%FF", CodeInvalidParameter, searchParams{}},
	{"q truncated utf-8", "q=%C3", CodeInvalidParameter, searchParams{}},
	{"q surrogate", "q=%ED%A0%80", CodeInvalidParameter, searchParams{}},
	{"genre invalid utf-8", "genre=a%C0%AFb", CodeInvalidParameter, searchParams{}},
	{"name invalid utf-8", "%FF=1", CodeInvalidParameter, searchParams{}},
	{"q NUL", "q=a%00b", CodeInvalidParameter, searchParams{}},
	{"q newline", "q=a%0Ab", CodeInvalidParameter, searchParams{}},
	{"q tab", "q=a%09b", CodeInvalidParameter, searchParams{}},
	{"q DEL", "q=%7F", CodeInvalidParameter, searchParams{}},
	{"q C1 control", "q=%C2%85", CodeInvalidParameter, searchParams{}},
	{"language control", "language=de%0D", CodeInvalidParameter, searchParams{}},
	{"q lone percent", "q=%", CodeInvalidParameter, searchParams{}},
	{"q short escape", "q=%4", CodeInvalidParameter, searchParams{}},
	{"q bad hex", "q=%zz", CodeInvalidParameter, searchParams{}},
	{"name bad escape", "q%=1", CodeInvalidParameter, searchParams{}},
	{"bad escape in unknown name", "%=1", CodeInvalidParameter, searchParams{}},
}

func TestParseSearchParams(t *testing.T) {
	for _, tc := range paramCases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := parseSearchParams(tc.raw)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("parse %q: %v", tc.raw, err)
				}
				if !reflect.DeepEqual(p, tc.ok) {
					t.Fatalf("parse %q = %+v, want %+v", tc.raw, p, tc.ok)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Code != tc.want {
				t.Fatalf("parse %q: error %v, want code %s", tc.raw, err, tc.want)
			}
			if e.Message == "" || !utf8.ValidString(e.Message) {
				t.Fatalf("parse %q: unusable message %q", tc.raw, e.Message)
			}
		})
	}
}

// TestParamRulesOverHTTP: the same table through the handler, so that every
// rule is also checked for its status and error body, and the valid queries
// for a 200.
func TestParamRulesOverHTTP(t *testing.T) {
	s := newDemoServer(t, nil)
	for _, tc := range paramCases {
		t.Run(tc.name, func(t *testing.T) {
			rec := serve(s, http.MethodGet, "/api/stations?"+tc.raw)
			if tc.want == "" {
				if rec.Code != http.StatusOK {
					t.Fatalf("status %d, want 200: %s", rec.Code, rec.Body)
				}
				return
			}
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("status %d, want 400", rec.Code)
			}
			if got := errorCode(t, rec); got != tc.want {
				t.Fatalf("code %q, want %q", got, tc.want)
			}
		})
	}
}

// TestErrorMessagesNameTheRule: a message says which parameter was wrong and
// what is allowed, so a user can fix the request.
func TestErrorMessagesNameTheRule(t *testing.T) {
	for raw, words := range map[string][]string{
		"limit=0":           {"limit", "1", "50"},
		"offset=9999":       {"offset", "0", "5000"},
		"country=deu":       {"country", "two-letter"},
		"q=" + long(121):    {"q", "120"},
		"genre=" + long(61): {"genre", "60"},
		"sort=name":         {`"sort"`, "q, country, language, genre, location, codec, https, bitrate_min, bitrate_max, near, radius_km, facets, facet_limit, distinct, limit, offset"},
		"q=a&q=b":           {"q", "once"},
		"q=%ZZ":             {"percent-encoding"},
	} {
		_, err := parseSearchParams(raw)
		if err == nil {
			t.Errorf("%s: no error", raw)
			continue
		}
		for _, w := range words {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: message %q does not mention %q", raw, err, w)
			}
		}
	}
}

// TestErrorMessageClipsInput: a huge or hostile value is not reflected whole.
func TestErrorMessageClipsInput(t *testing.T) {
	_, err := parseSearchParams(strings.Repeat("x", 10000) + "=1")
	if err == nil || len(err.Error()) > 300 {
		t.Fatalf("error %q", err)
	}
}

func long(n int) string { return strings.Repeat("a", n) }

func TestCanonicalQuery(t *testing.T) {
	for _, tc := range []struct {
		p    searchParams
		want string
	}{
		{searchParams{Limit: 20}, "limit=20&offset=0"},
		{searchParams{Q: "rádio & co", Filter: filt("pt", "Portuguese", "80's"), Limit: 5, Offset: 10},
			"q=r%C3%A1dio+%26+co&country=pt&language=Portuguese&genre=80%27s&limit=5&offset=10"},
	} {
		got := tc.p.canonicalQuery()
		if got != tc.want {
			t.Errorf("canonicalQuery(%+v) = %q, want %q", tc.p, got, tc.want)
		}
		back, err := parseSearchParams(got)
		if err != nil || !reflect.DeepEqual(back, tc.p) {
			t.Errorf("canonical query %q parses to %+v, %v", got, back, err)
		}
	}
}

// TestAppendQueryEscape holds the search key's escaper to url.QueryEscape
// with commas kept, on every byte and on mixed text.
func TestAppendQueryEscape(t *testing.T) {
	want := func(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "%2C", ",") }
	var all []string
	for c := range 256 {
		all = append(all, string([]byte{byte(c)}))
	}
	all = append(all, "", "istanbul fm", "a,b c", "%2C", "ü,é~x-y_z.w", "rock & roll+jazz=1?/#", "\x00\xff日本")
	for _, s := range all {
		if got := string(appendQueryEscape([]byte("k="), s)); got != "k="+want(s) {
			t.Errorf("appendQueryEscape(%q) = %q, want %q", s, got, "k="+want(s))
		}
	}
}

// TestParamRows: every allowed parameter is one row, found by its name,
// with a bit of its own in paramSet, and nothing else is.
func TestParamRows(t *testing.T) {
	if len(searchParamTable) > 32 {
		t.Fatalf("%d rows: paramSet has 32 bits", len(searchParamTable))
	}
	names := strings.Split(allowedParams, ", ")
	if len(names) != len(searchParamTable) {
		t.Fatalf("%d allowed parameters, %d rows", len(names), len(searchParamTable))
	}
	for i, name := range names {
		if paramIndex(name) != i || searchParamTable[i].spec.Accepts == "" ||
			searchParamTable[i].kind == kindFilter && searchParamTable[i].check == nil {
			t.Errorf("parameter %s: row %d of %d, or a row without parser, writer or words", name, paramIndex(name), i)
		}
	}
	for _, name := range []string{"", "Q", "limit ", "sort", "page"} {
		if paramIndex(name) >= 0 {
			t.Errorf("%q has a row", name)
		}
	}
}

// dims is the Filters of one dimension's value.
func dims(d query.Dim, v string) query.Filters {
	var f query.Filters
	f[d] = []string{v}
	return f
}

// filt is the Filters of a country, language and genre ("" for none) and
// any codecs, as the parser keeps them.
func filt(country, language, genre string, codecs ...string) query.Filters {
	var f query.Filters
	for d, v := range [...]string{query.DimCountry: country, query.DimLanguage: language, query.DimGenre: genre} {
		if v != "" {
			f[d] = []string{v}
		}
	}
	if len(codecs) > 0 {
		f[query.DimCodec] = codecs
	}
	return f
}

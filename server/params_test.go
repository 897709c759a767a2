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
	"stationdex/server/core"
	"stationdex/server/params"
)

// paramCases covers every parameter rule of the spec and of this server: each
// rule has cases on both sides of its boundary. want is the error code, or ""
// for a valid query, whose parse result is ok.
var paramCases = []struct {
	name, raw string
	want      core.Code
	ok        params.SearchParams
}{
	// Defaults and harmless shapes.
	{"none", "", "", params.SearchParams{Limit: 20}},
	{"lone ampersand", "&", "", params.SearchParams{Limit: 20}},
	{"empty pairs", "q=a&&limit=5&", "", params.SearchParams{Q: "a", Limit: 5}},
	{"empty q", "q=", "", params.SearchParams{Limit: 20}},
	{"q without =", "q", "", params.SearchParams{Limit: 20}},
	{"plus is space", "q=radio+star", "", params.SearchParams{Q: "radio star", Limit: 20}},
	{"escaped plus", "q=a%2Bb", "", params.SearchParams{Q: "a+b", Limit: 20}},
	{"utf-8 q", "q=caf%C3%A9", "", params.SearchParams{Q: "café", Limit: 20}},
	{"raw utf-8 q", "q=café", "", params.SearchParams{Q: "café", Limit: 20}},
	{"semicolon is text", "q=a;b", "", params.SearchParams{Q: "a;b", Limit: 20}},
	{"escaped name", "%71=x", "", params.SearchParams{Q: "x", Limit: 20}},
	{"all", "q=jazz&country=Us&language=English&genre=jazz&limit=5&offset=10", "",
		params.SearchParams{Q: "jazz", Filter: filt("Us", "English", "jazz"), Limit: 5, Offset: 10}},

	// Unknown parameters: names are case-sensitive and nothing else is taken.
	{"unknown", "foo=1", core.CodeUnknownParameter, params.SearchParams{}},
	{"unknown upper-case Q", "Q=jazz", core.CodeUnknownParameter, params.SearchParams{}},
	{"unknown page", "q=a&page=2", core.CodeUnknownParameter, params.SearchParams{}},
	{"unknown empty name", "=x", core.CodeUnknownParameter, params.SearchParams{}},
	{"unknown bracket", "q[]=a", core.CodeUnknownParameter, params.SearchParams{}},

	// Repeats, also of empty and equal values.
	{"repeated q", "q=a&q=b", core.CodeRepeatedParameter, params.SearchParams{}},
	{"repeated empty q", "q=&q=", core.CodeRepeatedParameter, params.SearchParams{}},
	{"repeated limit", "limit=5&limit=5", core.CodeRepeatedParameter, params.SearchParams{}},
	{"repeated country", "country=de&country=DE", core.CodeRepeatedParameter, params.SearchParams{}},
	{"repeated via escape", "q=a&%71=b", core.CodeRepeatedParameter, params.SearchParams{}},
	{"repeated offset", "offset=0&limit=2&offset=1", core.CodeRepeatedParameter, params.SearchParams{}},
	{"repeated language", "language=de&language=fr", core.CodeRepeatedParameter, params.SearchParams{}},
	{"repeated genre", "genre=pop&genre=pop", core.CodeRepeatedParameter, params.SearchParams{}},

	// q: at most 120 characters, counted as characters, not bytes.
	{"q 120 ascii", "q=" + strings.Repeat("a", 120), "", params.SearchParams{Q: strings.Repeat("a", 120), Limit: 20}},
	{"q 120 two-byte", "q=" + strings.Repeat("%C3%BC", 120), "", params.SearchParams{Q: strings.Repeat("ü", 120), Limit: 20}},
	{"q 121", "q=" + strings.Repeat("a", 121), core.CodeInvalidParameter, params.SearchParams{}},
	{"q 121 two-byte", "q=" + strings.Repeat("%C3%BC", 121), core.CodeInvalidParameter, params.SearchParams{}},

	// language and genre: 1 to 60 characters.
	{"language 60", "language=" + strings.Repeat("l", 60), "", params.SearchParams{Filter: filt("", strings.Repeat("l", 60), ""), Limit: 20}},
	{"language 61", "language=" + strings.Repeat("l", 61), core.CodeInvalidParameter, params.SearchParams{}},
	{"language empty", "language=", core.CodeInvalidParameter, params.SearchParams{}},
	{"genre 60 multibyte", "genre=" + strings.Repeat("%E6%B5%81", 60), "", params.SearchParams{Filter: filt("", "", strings.Repeat("流", 60)), Limit: 20}},
	{"genre 61", "genre=" + strings.Repeat("g", 61), core.CodeInvalidParameter, params.SearchParams{}},
	{"genre empty", "genre", core.CodeInvalidParameter, params.SearchParams{}},

	// country: ^[A-Za-z]{2}$.
	{"country lower", "country=de", "", params.SearchParams{Filter: filt("de", "", ""), Limit: 20}},
	{"country mixed", "country=dE", "", params.SearchParams{Filter: filt("dE", "", ""), Limit: 20}},
	{"country empty", "country=", core.CodeInvalidParameter, params.SearchParams{}},
	{"country one letter", "country=d", core.CodeInvalidParameter, params.SearchParams{}},
	{"country three letters", "country=deu", core.CodeInvalidParameter, params.SearchParams{}},
	{"country digit", "country=d1", core.CodeInvalidParameter, params.SearchParams{}},
	{"country space", "country=de+", core.CodeInvalidParameter, params.SearchParams{}},
	{"country non-ascii", "country=%C3%BC%C3%BC", core.CodeInvalidParameter, params.SearchParams{}},
	{"country dash", "country=d-", core.CodeInvalidParameter, params.SearchParams{}},

	// limit: integer 1..50.
	{"limit 1", "limit=1", "", params.SearchParams{Limit: 1}},
	{"limit 50", "limit=50", "", params.SearchParams{Limit: 50}},
	{"limit leading zeros", "limit=007", "", params.SearchParams{Limit: 7}},
	{"limit 0", "limit=0", core.CodeInvalidParameter, params.SearchParams{}},
	{"limit 51", "limit=51", core.CodeInvalidParameter, params.SearchParams{}},
	{"limit negative", "limit=-1", core.CodeInvalidParameter, params.SearchParams{}},
	{"limit plus sign", "limit=%2B5", core.CodeInvalidParameter, params.SearchParams{}},
	{"limit plus as space", "limit=+5", core.CodeInvalidParameter, params.SearchParams{}},
	{"limit empty", "limit=", core.CodeInvalidParameter, params.SearchParams{}},
	{"limit no value", "limit", core.CodeInvalidParameter, params.SearchParams{}},
	{"limit decimal", "limit=5.0", core.CodeInvalidParameter, params.SearchParams{}},
	{"limit exponent", "limit=1e1", core.CodeInvalidParameter, params.SearchParams{}},
	{"limit hex", "limit=0x10", core.CodeInvalidParameter, params.SearchParams{}},
	{"limit underscore", "limit=1_0", core.CodeInvalidParameter, params.SearchParams{}},
	{"limit word", "limit=ten", core.CodeInvalidParameter, params.SearchParams{}},
	{"limit overflow", "limit=99999999999999999999999", core.CodeInvalidParameter, params.SearchParams{}},
	{"limit 2^32+5", "limit=4294967301", core.CodeInvalidParameter, params.SearchParams{}},
	{"limit fullwidth digit", "limit=%EF%BC%95", core.CodeInvalidParameter, params.SearchParams{}},

	// offset: integer 0..5000.
	{"offset 0", "offset=0", "", params.SearchParams{Limit: 20}},
	{"offset 5000", "offset=5000", "", params.SearchParams{Limit: 20, Offset: 5000}},
	{"offset 5001", "offset=5001", core.CodeInvalidParameter, params.SearchParams{}},
	{"offset negative zero", "offset=-0", core.CodeInvalidParameter, params.SearchParams{}},
	{"offset negative", "offset=-20", core.CodeInvalidParameter, params.SearchParams{}},
	{"offset empty", "offset=", core.CodeInvalidParameter, params.SearchParams{}},
	{"offset overflow", "offset=18446744073709551617", core.CodeInvalidParameter, params.SearchParams{}},
	{"offset space", "offset=1%200", core.CodeInvalidParameter, params.SearchParams{}},

	// location: 1 to 60 characters, folded by the engine; https: true or false.
	{"location", "location=Z%C3%BCrich", "", params.SearchParams{Filter: dims(query.DimLocation, "Zürich"), Limit: 20}},
	{"location 60", "location=" + strings.Repeat("l", 60), "", params.SearchParams{Filter: dims(query.DimLocation, strings.Repeat("l", 60)), Limit: 20}},
	{"location 61", "location=" + strings.Repeat("l", 61), core.CodeInvalidParameter, params.SearchParams{}},
	{"location empty", "location=", core.CodeInvalidParameter, params.SearchParams{}},
	{"repeated location", "location=a&location=b", core.CodeRepeatedParameter, params.SearchParams{}},
	{"https true", "https=true", "", params.SearchParams{Filter: dims(query.DimHTTPS, "true"), Limit: 20}},
	{"https false", "https=false", "", params.SearchParams{Filter: dims(query.DimHTTPS, "false"), Limit: 20}},
	{"https upper case", "https=TRUE", core.CodeInvalidParameter, params.SearchParams{}},
	{"https 1", "https=1", core.CodeInvalidParameter, params.SearchParams{}},
	{"https empty", "https=", core.CodeInvalidParameter, params.SearchParams{}},
	{"distinct true", "distinct=true&q=fm", "", params.SearchParams{Q: "fm", Distinct: "true", Limit: 20}},
	{"distinct false", "distinct=false", "", params.SearchParams{Distinct: "false", Limit: 20}},
	{"distinct yes", "distinct=yes", core.CodeInvalidParameter, params.SearchParams{}},
	{"distinct empty", "distinct=", core.CodeInvalidParameter, params.SearchParams{}},
	{"distinct twice", "distinct=true&distinct=true", core.CodeRepeatedParameter, params.SearchParams{}},
	{"repeated https", "https=true&https=true", core.CodeRepeatedParameter, params.SearchParams{}},

	// List parameters: a,b or the parameter repeated, the same rules on
	// the items of both.
	{"codec repeated", "codec=aac&codec=mp3", "", params.SearchParams{Filter: filt("", "", "", "MP3", "AAC"), Limit: 20}},
	{"codec both forms", "codec=ogg,opus&codec=MP3", "", params.SearchParams{Filter: filt("", "", "", "MP3", "OGG", "OPUS"), Limit: 20}},
	{"codec repeated twice the same", "codec=mp3&codec=MP3", core.CodeInvalidParameter, params.SearchParams{}},
	{"codec repeated empty", "codec=mp3&codec=", core.CodeInvalidParameter, params.SearchParams{}},
	{"facets repeated", "facets=genre&facets=country", "", params.SearchParams{Facets: query.DimsOf(query.DimCountry, query.DimGenre), FacetLimit: 10, Limit: 20}},
	{"facets new dimensions", "facets=codec,location", "", params.SearchParams{Facets: query.DimsOf(query.DimLocation, query.DimCodec), FacetLimit: 10, Limit: 20}},
	{"facets repeated twice the same", "facets=genre&facets=genre", core.CodeInvalidParameter, params.SearchParams{}},
	{"facets no https facet", "facets=https", core.CodeInvalidParameter, params.SearchParams{}},
	{"facets past the items", "facets=" + strings.Repeat("genre,", 16) + "genre", core.CodeInvalidParameter, params.SearchParams{}},

	// Encoding: invalid UTF-8, control characters, malformed escapes.
	{"q invalid utf-8", "q=%FF", core.CodeInvalidParameter, params.SearchParams{}},
	{"q truncated utf-8", "q=%C3", core.CodeInvalidParameter, params.SearchParams{}},
	{"q surrogate", "q=%ED%A0%80", core.CodeInvalidParameter, params.SearchParams{}},
	{"genre invalid utf-8", "genre=a%C0%AFb", core.CodeInvalidParameter, params.SearchParams{}},
	{"name invalid utf-8", "%FF=1", core.CodeInvalidParameter, params.SearchParams{}},
	{"q NUL", "q=a%00b", core.CodeInvalidParameter, params.SearchParams{}},
	{"q newline", "q=a%0Ab", core.CodeInvalidParameter, params.SearchParams{}},
	{"q tab", "q=a%09b", core.CodeInvalidParameter, params.SearchParams{}},
	{"q DEL", "q=%7F", core.CodeInvalidParameter, params.SearchParams{}},
	{"q C1 control", "q=%C2%85", core.CodeInvalidParameter, params.SearchParams{}},
	{"language control", "language=de%0D", core.CodeInvalidParameter, params.SearchParams{}},
	{"q lone percent", "q=%", core.CodeInvalidParameter, params.SearchParams{}},
	{"q short escape", "q=%4", core.CodeInvalidParameter, params.SearchParams{}},
	{"q bad hex", "q=%zz", core.CodeInvalidParameter, params.SearchParams{}},
	{"name bad escape", "q%=1", core.CodeInvalidParameter, params.SearchParams{}},
	{"bad escape in unknown name", "%=1", core.CodeInvalidParameter, params.SearchParams{}},
}

func TestParseSearchParams(t *testing.T) {
	for _, tc := range paramCases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := params.ParseSearchParams(tc.raw)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("parse %q: %v", tc.raw, err)
				}
				if !reflect.DeepEqual(p, tc.ok) {
					t.Fatalf("parse %q = %+v, want %+v", tc.raw, p, tc.ok)
				}
				return
			}
			var e *core.Error
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
		"order=name":        {`"order"`, "q, country, language, genre, location, codec, https, working, bitrate_min, bitrate_max, near, radius_km, facets, facet_limit, distinct, sort, limit, offset"},
		"q=a&q=b":           {"q", "once"},
		"q=%ZZ":             {"percent-encoding"},
	} {
		_, err := params.ParseSearchParams(raw)
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
	_, err := params.ParseSearchParams(strings.Repeat("x", 10000) + "=1")
	if err == nil || len(err.Error()) > 300 {
		t.Fatalf("error %q", err)
	}
}

func long(n int) string { return strings.Repeat("a", n) }

func TestCanonicalQuery(t *testing.T) {
	for _, tc := range []struct {
		p    params.SearchParams
		want string
	}{
		{params.SearchParams{Limit: 20}, "limit=20&offset=0"},
		{params.SearchParams{Q: "rádio & co", Filter: filt("pt", "Portuguese", "80's"), Limit: 5, Offset: 10},
			"q=r%C3%A1dio+%26+co&country=pt&language=Portuguese&genre=80%27s&limit=5&offset=10"},
	} {
		got := tc.p.CanonicalQuery()
		if got != tc.want {
			t.Errorf("canonicalQuery(%+v) = %q, want %q", tc.p, got, tc.want)
		}
		back, err := params.ParseSearchParams(got)
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
		if got := string(params.AppendQueryEscape([]byte("k="), s)); got != "k="+want(s) {
			t.Errorf("appendQueryEscape(%q) = %q, want %q", s, got, "k="+want(s))
		}
	}
}

// TestParamRows: every allowed parameter is one row, found by its name,
// with a bit of its own in paramSet, and nothing else is.
func TestParamRows(t *testing.T) {
	if len(params.SearchParamTable) > 32 {
		t.Fatalf("%d rows: paramSet has 32 bits", len(params.SearchParamTable))
	}
	names := strings.Split(params.AllowedParams, ", ")
	if len(names) != len(params.SearchParamTable) {
		t.Fatalf("%d allowed parameters, %d rows", len(names), len(params.SearchParamTable))
	}
	for i, name := range names {
		if params.ParamIndex(name) != i || params.SearchParamTable[i].Spec.Accepts == "" ||
			params.SearchParamTable[i].Kind == params.KindFilter && params.SearchParamTable[i].Check == nil {
			t.Errorf("parameter %s: row %d of %d, or a row without parser, writer or words", name, params.ParamIndex(name), i)
		}
	}
	for _, name := range []string{"", "Q", "limit ", "order", "page"} {
		if params.ParamIndex(name) >= 0 {
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

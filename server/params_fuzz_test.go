package server

import (
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"stationdex/query"
	"stationdex/server/core"
	"stationdex/server/params"
)

// FuzzSearchParams feeds raw query strings to the parameter parser. Whatever
// the input, the parser must not panic and must either return a query that
// satisfies every rule (and survives a round trip through its canonical
// form, which the next links are made of) or a 400 error with one of the
// parameter codes. Plain `go test` runs the seed corpus; fuzz with
//
//	go test ./server -run '^$' -fuzz FuzzSearchParams -fuzztime 30s
func FuzzSearchParams(f *testing.F) {
	for _, tc := range paramCases {
		f.Add(tc.raw)
	}
	for _, seed := range []string{
		"q=%E2%80%AEoidar", "q=%F0%9F%93%BB", "q=%EF%BB%BF", "limit=00000000000000000000000050",
		"q=a=b", "q==", "==", "&&&", "q=%25", "q=%2525", "q=%%", "q=\x00", "q=\xff", "q=\u2028",
		"country=%44%45", "country=%C4%B1n", "offset=5000&limit=50&q=z", "q+=a", "+q=a",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		p, err := params.ParseSearchParams(raw)
		if err != nil {
			checkParamError(t, raw, err)
			return
		}
		checkParams(t, raw, p)
		back, err := params.ParseSearchParams(p.CanonicalQuery())
		if err != nil || !reflect.DeepEqual(back, p) {
			t.Fatalf("%q: canonical %q parses to %+v, %v; want %+v", raw, p.CanonicalQuery(), back, err, p)
		}
	})
}

func checkParamError(t *testing.T, raw string, err error) {
	var e *core.Error
	if !errors.As(err, &e) {
		t.Fatalf("%q: error %v is not an *Error", raw, err)
	}
	switch e.Code {
	case core.CodeInvalidParameter, core.CodeUnknownParameter, core.CodeRepeatedParameter:
	default:
		t.Fatalf("%q: code %q", raw, e.Code)
	}
	if status, _ := core.ErrorStatus(err); status != http.StatusBadRequest {
		t.Fatalf("%q: status %d", raw, status)
	}
	if e.Message == "" || !utf8.ValidString(e.Message) {
		t.Fatalf("%q: message %q", raw, e.Message)
	}
}

func checkParams(t *testing.T, raw string, p params.SearchParams) {
	if p.Limit < 1 || p.Limit > 50 || p.Offset < 0 || p.Offset > 5000 {
		t.Fatalf("%q: limit %d offset %d out of range", raw, p.Limit, p.Offset)
	}
	for _, f := range [...]struct {
		v   string
		max int
	}{{p.Q, 120}, {p.One(query.DimLanguage), 60}, {p.One(query.DimGenre), 60}, {p.One(query.DimCountry), 2},
		{p.One(query.DimLocation), 60}} {
		if !utf8.ValidString(f.v) || strings.ContainsFunc(f.v, unicode.IsControl) || utf8.RuneCountInString(f.v) > f.max {
			t.Fatalf("%q: bad value %q", raw, f.v)
		}
	}
	if c := p.One(query.DimCountry); c != "" && (len(c) != 2 || !params.IsASCIILetter(c[0]) || !params.IsASCIILetter(c[1])) {
		t.Fatalf("%q: country %q", raw, c)
	}
	if h := p.One(query.DimHTTPS); h != "" && h != "true" && h != "false" {
		t.Fatalf("%q: https %q", raw, h)
	}
}

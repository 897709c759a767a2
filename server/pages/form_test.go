package pages

import (
	"net/url"
	"strings"
	"testing"

	"stationdex/server/params"
)

// sentQueries are query strings as forms, people and fuzzers send them.
var sentQueries = []string{
	"", "q=jazz", "q=jazz&country=DE", "q=&country=&language=de", "q=a+b&q=c", "q=%C3%BC%2B",
	"q=%zz&q=ok", "q%3D=x&q=y", "%71=escaped+name", "q=1;2&q=3", "q;x=1&q=2", "=&&q==x", "q",
	"country=de&q=x=y", "q=%&q=second", "genre=rock%20pop&sort=name&bitrate_min=", "q=a%2",
	"language=&&&q=%E2%80%AEx", "q+=space+name&q=later", "Q=upper&q=lower",
}

// TestSentValue: the form reads each field's value as url.ParseQuery and
// Get read it.
func TestSentValue(t *testing.T) {
	for _, raw := range sentQueries {
		v, _ := url.ParseQuery(raw)
		for i := range params.SearchParamTable {
			name := params.SearchParamTable[i].Name
			if got, want := sentValue(raw, name), v.Get(name); got != want {
				t.Errorf("%q, %s: %q, url.ParseQuery gets %q", raw, name, got, want)
			}
		}
		for _, name := range []string{"q", "q ", "Q"} {
			if got, want := sentValue(raw, name), v.Get(name); got != want {
				t.Errorf("%q, %q: %q, url.ParseQuery gets %q", raw, name, got, want)
			}
		}
	}
}

// TestUnsetFieldsAsWritten: a field the form keeps written with no value
// is what the writer writes for it, and a form of sent values is the
// same page with or without the kept fields.
func TestUnsetFieldsAsWritten(t *testing.T) {
	for _, raw := range sentQueries {
		kept := formValues("/search/", raw)
		plain := makeSearchForm("/search/", func(name string) string { return sentValue(raw, name) }, nil)
		if got, want := string(appendForm(nil, kept)), string(appendForm(nil, plain)); got != want {
			t.Errorf("%q: the form with its kept fields differs:\n%s\nwritten:\n%s", raw, got, want)
		}
	}
	n := 0
	for _, s := range unsetFields {
		if s != "" {
			n++
			if !strings.HasPrefix(s, "\n<p><label for=\"") || !strings.HasSuffix(s, "</p>") {
				t.Errorf("kept field %q is not a field's line", s)
			}
		}
	}
	if n != formFields {
		t.Errorf("%d fields kept, the form has %d", n, formFields)
	}
}

// TestDropEmptyPairs: pairs a form sends for blank fields are dropped,
// and a query without any is kept as it is.
func TestDropEmptyPairs(t *testing.T) {
	for raw, want := range map[string]string{
		"": "", "q=jazz": "q=jazz", "q=&country=DE": "country=DE", "q=jazz&&country=": "q=jazz",
		"a==&b=": "a==", "q=a&q=b": "q=a&q=b", "=": "", "x": "x",
	} {
		if got := dropEmptyPairs(raw); got != want {
			t.Errorf("%q: %q, want %q", raw, got, want)
		}
	}
}

// TestFormIntoReusedFields: a search page's form filled into the fields'
// array of the page before (its pooled model's) is the form formValues
// makes anew, whatever that page had sent: no value of one page reaches
// the next.
func TestFormIntoReusedFields(t *testing.T) {
	var f SearchForm
	var all []FormInput
	for i, raw := range sentQueries {
		all = fillFormValues(&f, all, "/search/", raw)
		want := formValues("/search/", raw)
		if got, want := string(appendForm(nil, &f)), string(appendForm(nil, want)); got != want {
			t.Errorf("%q after %q: the form in reused fields differs:\n%s\nanew:\n%s", raw, sentQueries[(i+len(sentQueries)-1)%len(sentQueries)], got, want)
		}
	}
	if cap(all) != formFields {
		t.Errorf("the fields' array grew to %d, the form has %d fields", cap(all), formFields)
	}
}

// formValues is the form fillFormValues fills, made anew.
func formValues(action, rawQuery string) *SearchForm {
	f := &SearchForm{}
	fillFormValues(f, nil, action, rawQuery)
	return f
}

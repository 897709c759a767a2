package mix

import (
	"net/url"
	"strings"
	"testing"
)

// TestCommittedMix checks the committed file: every class present with its
// share, parameters within the API's limits, and paths that parse back.
func TestCommittedMix(t *testing.T) {
	qs, err := Load("../../queries/mix.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 2000 {
		t.Fatalf("%d queries, want a few thousand", len(qs))
	}
	by := ByClass(qs)
	for _, c := range Classes {
		if len(by[c.Name]) < 100 {
			t.Errorf("class %s: %d queries", c.Name, len(by[c.Name]))
		}
	}
	if len(by) != len(Classes) {
		t.Errorf("%d classes in the file, %d known", len(by), len(Classes))
	}
	for _, q := range qs {
		if len([]rune(q.Q)) > 120 || len([]rune(q.Language)) > 60 || len([]rune(q.Genre)) > 60 {
			t.Errorf("%+v: over the API's length limits", q)
		}
		u, err := url.Parse(q.Path())
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		v := u.Query()
		if v.Get("q") != q.Q || v.Get("genre") != q.Genre || v.Get("language") != q.Language || strings.ToUpper(v.Get("country")) != strings.ToUpper(q.Country) {
			t.Errorf("%+v: path %s does not round-trip", q, q.Path())
		}
	}
	if s := Sample(qs, 3); len(s) != 3*len(Classes) {
		t.Errorf("Sample(3) = %d queries", len(s))
	}
}

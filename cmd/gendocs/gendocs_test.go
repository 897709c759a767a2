package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"stationdex/internal/dim"
)

const root = "../.."

// TestDocumentsAreGenerated: the committed documents are what gendocs
// writes from the rows; after a change of a row, run go generate
// ./internal/dim.
func TestDocumentsAreGenerated(t *testing.T) {
	out, err := stale(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > 0 {
		t.Errorf("%v not as the rows write them: run go generate ./internal/dim", out)
	}
}

// TestRowWritesItsEntries: with every entry of the last dimension taken
// out of both documents, gendocs writes them back as committed, so a new
// row takes no line of either by hand.
func TestRowWritesItsEntries(t *testing.T) {
	last := dim.Rows[dim.Count-1]
	tmp := t.TempDir()
	raw, err := os.ReadFile(filepath.Join(root, openAPIFile))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	params := doc.path("paths", searchPath, "get", "parameters")
	params.items = slices.DeleteFunc(params.items, func(p *value) bool { return p.get("name").text() == last.Name })
	answer := doc.path("components", "schemas", searchResponse, "properties")
	for _, obj := range []*value{answer, answer.path("facets", "properties")} {
		obj.members = slices.DeleteFunc(obj.members, func(m member) bool { return m.key == last.Name })
	}
	doc.walkStrings(func(s string) string { return strings.ReplaceAll(s, ", "+last.Name, "") })
	var b strings.Builder
	doc.write(&b, "")
	md, err := os.ReadFile(filepath.Join(root, apiMDFile))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(string(md), "\n") {
		if !strings.HasPrefix(l, "| `"+last.Name+"` |") {
			kept = append(kept, strings.ReplaceAll(l, ", `"+last.Name+"`", ""))
		}
	}
	if b.String()+"\n" == string(raw) || strings.Join(kept, "\n") == string(md) {
		t.Fatalf("taking %s out changed nothing", last.Name)
	}
	for name, text := range map[string]string{openAPIFile: b.String() + "\n", apiMDFile: strings.Join(kept, "\n")} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(tmp, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := generate(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{openAPIFile, apiMDFile} {
		want, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got[name]) != string(want) {
			t.Errorf("%s: %s's entries not written back as committed", name, last.Name)
		}
	}
}

// TestJSONRoundTrip: a document read and written unchanged is the same
// bytes.
func TestJSONRoundTrip(t *testing.T) {
	for _, s := range []string{"{}", "[]", `{"a": [1, 2.50, "x<y"], "b": {"c": null, "d": []}}`} {
		v, err := parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		v.write(&b, "")
		back, err := parse([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		var again strings.Builder
		back.write(&again, "")
		if again.String() != b.String() || !strings.Contains(b.String(), "2.50") && strings.Contains(s, "2.50") {
			t.Errorf("%s: written %s, then %s", s, b.String(), again.String())
		}
	}
}

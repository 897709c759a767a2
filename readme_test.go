package stationdex_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeOrder: a newcomer reading the README from the top finds the
// set-up, the two commands, ports and data, then operations and
// benchmarks; every "above" or "below" that points at a table or section
// points the right way; and the help a stuck user needs is named.
func TestReadmeOrder(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	last := -1
	for _, h := range []string{"## Set-up", "## Two commands", "## Ports and addresses", "## Data:", "## Operations", "## Benchmarks"} {
		at := strings.Index(readme, "\n"+h)
		if at < last {
			t.Errorf("%q is missing or comes before the section it should follow", h)
		}
		last = at
	}
	if m := regexp.MustCompile(`(table|section|figures?) above`).FindStringIndex(readme); m != nil {
		if strings.Index(readme, "<!-- results:start -->") > m[0] {
			t.Errorf("%q points up to the benchmark table, which stands below it", readme[m[0]:m[1]])
		}
	}
	for _, want := range []string{"make run ADDR=", "make help"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README does not mention %q", want)
		}
	}
}

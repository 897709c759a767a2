package server

import (
	"strings"
	"testing"

	"stationdex/server/files"
	"stationdex/server/pages"
)

// TestRBAPIDocsFollowTheIndex: the guide and llms.txt say whether this
// node serves /json/, from its index: served, they show it and link its
// stats; not served, they say how to rebuild and llms.txt links the guide
// (a /json/ link would answer 404).
func TestRBAPIDocsFollowTheIndex(t *testing.T) {
	const b = "https://radio.example"
	for _, tc := range []struct {
		served   bool
		text     string
		llmsLink string
	}{
		{true, "built with stationdex index -compat, so it answers these paths", b + "/json/stats"},
		{false, "every /json/ path answers 404 compat_not_indexed until the index is rebuilt with stationdex index -compat", b + "/guide/index.md"},
	} {
		blocks := pages.RBAPIBlocks(b, "some-id", tc.served)
		if text := strings.Join(blocks[0].Text, " "); !strings.Contains(text, tc.text) {
			t.Errorf("served %v: the guide says %q", tc.served, text)
		}
		if l := files.RBAPILLMsLink(b, tc.served); l[1] != tc.llmsLink || !strings.Contains(l[2], "radio-browser-compatible") {
			t.Errorf("served %v: llms.txt entry %q", tc.served, l)
		}
	}
	for _, f := range pages.ClientFacts(b) {
		if len(f.Values) != 1 || f.Values[0].Text == "" {
			t.Errorf("client %s: %v", f.Name, f.Values)
		}
	}
}

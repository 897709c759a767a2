package server

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"stationdex/internal/fold"
	"stationdex/internal/stationjson"
	"stationdex/server/api"
	"stationdex/server/core"
	"stationdex/server/pages"
)

// TestAdversarialFixture: the demo's hostile names, tags and URLs (markup,
// script, Markdown link syntax, javascript: URLs, bidi controls, a
// 990-character tag) render safely on every page and in every format that
// shows them: each output is parsed and may contain no element, attribute
// or link the service did not put there, and links only to http(s).
func TestAdversarialFixture(t *testing.T) {
	s := newDemoServer(t, nil)
	ix := demoIx(t)
	for _, id := range allStationIDs(t, ix) {
		st := stationOf(t, s, id)
		ext := externalOf(t, ix, id)
		for _, page := range []string{st.PageURL, st.ListenURL} {
			target := local(t, testBase, page)
			p := checkHTMLPage(t, fetchOK(t, s, target), testBase, ext)
			if want := pages.CleanText(st.Name); !strings.HasSuffix(p.h1[0], want) {
				t.Errorf("%s: h1 %q does not show the name %q as text", target, p.h1[0], want)
			}
			d := checkMarkdownPage(t, fetchOK(t, s, target+core.MarkdownIndex), testBase, ext)
			if want := strings.Join(strings.Fields(pages.CleanText(st.Name)), " "); !strings.HasSuffix(mdUnescape(d.headings[1][0]), want) {
				t.Errorf("%s: Markdown heading %q does not show %q", target, d.headings[1][0], want)
			}
		}
		for _, u := range stationURLs(&st)[2:] {
			target := local(t, testBase, u)
			checkHTMLPage(t, fetchOK(t, s, target), testBase, nil)
			checkMarkdownPage(t, fetchOK(t, s, target+core.MarkdownIndex), testBase, nil)
		}
		if words := fold.Tokens(st.Name); len(words) > 0 {
			target := "/search/?q=" + url.QueryEscape(words[0])
			checkHTMLPage(t, fetchOK(t, s, target), testBase, nil)
			checkMarkdownPage(t, fetchOK(t, s, target, "Accept", "text/markdown"), testBase, nil)
		}
	}
}

// TestHostileStationsSpecifically pins the cases the fixture was written
// for, so that a change to it cannot quietly remove them.
func TestHostileStationsSpecifically(t *testing.T) {
	s := newDemoServer(t, nil)
	for _, tc := range []struct{ q, name string }{
		{"markup", "<script>alert('x')</script> Markup Radio"},
		{"click", "[Click me](https://evil.example) *bold* _radio_ | table |"},
		{"bidi", "Bidi oidar Radio"},
	} {
		var env api.SearchEnvelope
		if err := json.Unmarshal(fetchOK(t, s, "/api/stations?q="+tc.q).Body.Bytes(), &env); err != nil {
			t.Fatal(err)
		}
		var found *stationjson.Station
		for i := range env.Results {
			if pages.CleanText(env.Results[i].Name) == tc.name {
				found = &env.Results[i]
			}
		}
		if found == nil {
			t.Errorf("fixture station %q not found", tc.name)
			continue
		}
		target := local(t, testBase, found.PageURL)
		d := parseMarkdown(t, fetchOK(t, s, target+core.MarkdownIndex).Body.Bytes())
		for _, l := range d.links {
			if strings.Contains(l, "evil.example") || strings.HasPrefix(strings.ToLower(l), "javascript:") {
				t.Errorf("%s: Markdown link to %q", tc.name, l)
			}
		}
		p := parseHTMLPage(t, fetchOK(t, s, target).Body.Bytes())
		if p.elements["script"] > 0 || p.elements["img"] > 0 {
			t.Errorf("%s: injected elements %v", tc.name, p.elements)
		}
	}
	// The 990-character tag has a working directory page.
	checkHTMLPage(t, fetchOK(t, s, "/search/?q=overflow"), testBase, nil)
}

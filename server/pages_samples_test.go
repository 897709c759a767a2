package server

import (
	"path/filepath"
	"strings"
	"testing"
)

// samplePages are demo pages kept, both representations, in
// testdata/pages as golden files. The test compares them (regenerate with
// go test ./server -run TestSamplePages -update), and make test lints them
// with html-validate and markdownlint (configs in server/), so a layout
// change is seen in review and checked by real validators.
var samplePages = []struct{ name, target string }{
	{"home", "/"},
	{"search", "/search/?q=radio&limit=5&offset=5"},
	{"search_invalid", "/search/?q=radio&limit=99"},
	{"search_did_you_mean", "/search/?q=jaz+cornr"},
	{"search_near_codec", "/search/?near=48.2082,16.3738&radius_km=300&codec=MP3&bitrate_min=64"},
	{"search_sorted", "/search/?near=48.2082,16.3738&radius_km=3000&sort=distance&limit=5"},
	{"guide", "/guide/"},
	{"countries", "/countries/"},
	{"country", "/countries/pt/"},
	{"genres", "/genres/"},
	{"genre", "/genres/80s/"},
	{"languages", "/languages/"},
	{"genre_hostile", "/genres/%3Cimg%20src=x%20onerror=alert%281%29%3E/"},
	{"station", "/stations/" + demoStationID + "/"},
	{"station_hostile", "/stations/162f474f-9f60-49f6-a51d-af167c5ded1a/"},
	{"station_bidi", "/stations/b21a6676-6e02-4a25-aed3-8e51fcdcf186/"},
	{"listen", "/stations/" + demoStationID + "/listen/"},
	{"listen_hostile", "/stations/162f474f-9f60-49f6-a51d-af167c5ded1a/listen/"},
	{"listen_http", "/stations/" + httpStationID + "/listen/"},
	{"not_found", "/stations/00000000-0000-0000-0000-000000000000/"},
	{"unknown_path", "/no/such/page/"},
}

// maxPageBytes keeps pages small: the largest demo page is a directory
// index of 100 values.
const maxPageBytes = 32 << 10

func TestSamplePages(t *testing.T) {
	s := newDemoServer(t, nil)
	for _, sp := range samplePages {
		t.Run(sp.name, func(t *testing.T) {
			page := serve(s, "GET", sp.target)
			md := serve(s, "GET", sp.target, "Accept", "text/markdown")
			if page.Body.Len() > maxPageBytes || md.Body.Len() > maxPageBytes {
				t.Errorf("%d bytes of HTML, %d of Markdown; pages stay under %d", page.Body.Len(), md.Body.Len(), maxPageBytes)
			}
			if strings.Contains(page.Body.String(), "<script") || strings.Contains(page.Body.String(), "style=") {
				t.Errorf("script or inline style in the page")
			}
			dir := filepath.Join("testdata", "pages")
			compareGolden(t, filepath.Join(dir, sp.name+".html"), page.Body.Bytes())
			compareGolden(t, filepath.Join(dir, sp.name+".md"), md.Body.Bytes())
		})
	}
}

package pages

import (
	"strconv"

	"stationdex/internal/format"
)

type CatalogAgent struct {
	Type string `json:"@type"`
	Name string `json:"name"`
	URL  string `json:"url"`
}

// Where the stations come from, said on every page, in llms.txt and in
// the data catalogue. A real snapshot is Radio Browser's public-domain
// data, credited to its contributors; the embedded demo is made-up
// stations written for stationdex, which no one else should be credited
// (or blamed) for.

// availabilityCaveat is the spec's caveat about streams, said of any data.
const availabilityCaveat = "Stream availability, schedules, broadcast rights and regional restrictions can change; " +
	"no current availability check is implied."

const (
	realDataNotice = "Station data is public domain (contributors of radio-browser.info). " + availabilityCaveat
	demoDataNotice = "These stations are fictional, written for the stationdex demo in Radio Browser's record format; " +
		"their stream addresses are invented. " + availabilityCaveat
)

// isDemo reports whether a snapshot is the embedded demo.
func isDemo(source string) bool { return source == format.DemoSource }

// DataNotice is the notice under every page for a snapshot from source
// ("" while none is loaded).
func DataNotice(source string) string {
	if isDemo(source) {
		return demoDataNotice
	}
	return realDataNotice
}

// DirectoryIntro is the sentence that says what the directory holds.
func DirectoryIntro(m format.Meta) string {
	n := strconv.Itoa(m.Stations)
	if isDemo(m.Source) {
		return "A read-only directory of " + n + " fictional radio stations, the demo snapshot stationdex serves without an index file"
	}
	return "A read-only directory of " + n + " radio stations from a fixed snapshot of " + m.Source
}

// DataCredit is the catalogue's creator and credit text.
func DataCredit(source, base string) (CatalogAgent, string) {
	if isDemo(source) {
		return CatalogAgent{Type: "Organization", Name: "stationdex", URL: base + "/"}, "Demo data: fictional stations written for stationdex"
	}
	return CatalogAgent{Type: "Organization", Name: "contributors of radio-browser.info", URL: "https://www.radio-browser.info/"},
		"Station data: contributors of radio-browser.info, public domain"
}

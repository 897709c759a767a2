package pages

import (
	"stationdex/server/core"
)

// The guide's part for programs written for the upstream directory
// (Radio Browser): what /json/ serves, how a node gets it, where it
// differs from upstream on purpose, and how each common client chooses
// its server. API.md has the full reference.

// RBAPIBlocks are the guide's blocks on the Radio Browser API; served says
// whether this node's index has its data, example is a station id.
func RBAPIBlocks(b, example string, served bool) []Block {
	status := "This node's index was built with stationdex index -compat, so it answers these paths."
	if !served {
		status = "This node's index was built without it: every /json/ path answers 404 compat_not_indexed until the index is rebuilt with stationdex index -compat."
	}
	return []Block{
		{Heading: "Radio Browser clients: the /json/ API", Text: []string{
			"Programs written for the Radio Browser directory can use a node as their server. Under /json/ it answers the upstream read API " +
				"from the same snapshot and engine: stations/search, stations and the stations/by... paths (byname, bytag, bycountrycodeexact and the others), " +
				"stations/byuuid, stations/byurl, stations/topvote, topclick, lastclick and lastchange, url/{uuid}, the lists countries, countrycodes, " +
				"codecs, languages, tags and states, and stats and servers. A station is the upstream object, every field of the snapshot record, " +
				"plus page_url, its page here. The OpenAPI description lists the paths under the tag radio-browser-compatible.",
			"A mirror writes nothing: vote and add answer 403 read_only (votes and new stations go to the upstream directory), and url/{uuid} " +
				"gives the stream address without counting a click. stations/changed and the check and click logs answer 501 not_implemented.",
			"A node serves /json/ when its index is built with -compat (about twice the file; make index-real builds so). " + status},
			Code: "stationdex index -compat -o stations.db stations.ndjson.gz\nstationdex serve -index stations.db -addr 127.0.0.1:8080\n" +
				"curl '" + b + core.PathRBAPI + "stations/search?name=radio&hidebroken=true&order=votes&reverse=true&limit=5'\n" +
				"curl '" + b + core.PathRBAPI + "stations/byuuid/" + example + "'\n" +
				"curl '" + b + core.PathRBAPI + "tags?order=stationcount&reverse=true&limit=10'\n" +
				"curl -i '" + b + core.PathRBAPI + "stations/search?has_geo_info=yes'"},
		{Heading: "Where /json/ differs from upstream", Text: []string{"On purpose, where upstream is lenient to a fault or wrong:"},
			Facts: compatDifferences},
		{Heading: "Pointing a client at a node", Text: []string{"Each client chooses its server its own way; not every one can be told to use another."},
			Facts: ClientFacts(b)},
	}
}

// compatDifferences are the deliberate differences of /json/ from
// upstream (API.md, "The upstream directory's API").
var compatDifferences = []Fact{
	{Name: "parameter names", Values: []Link{{Text: "case and underscores do not count (bitrateMin, bitratemin and bitrate_min are one name); " +
		"as upstream, a name the path does not take is ignored (and counted in a metric) and a name given twice is its first value"}}},
	{Name: "values", Values: []Link{{Text: "read as upstream reads them: a boolean other than true is false, a count that is none its default, " +
		"an unknown order name; only where upstream fails (has_geo_info, has_extended_info or is_https neither true nor false, " +
		"a list's order other than name or stationcount: its 500) is it 400 invalid_parameter"}}},
	{Name: "tags and languages", Values: []Link{{Text: "match ignoring case (upstream: case-sensitive); a substring lies within one tag or language, " +
		"not across the comma-separated list; with tagExact the whole tag as the source writes it, case aside, so that each name of /json/tags finds the stations it counts"}}},
	{Name: "order", Values: []Link{{Text: "stations of equal value follow by name, so pages never overlap (upstream has no tie-breaker); " +
		"reverse turns the whole order round; random shuffles anew on each request"}}},
	{Name: "bitrate", Values: []Link{{Text: "bitrateMin and bitrateMax leave out stations of unknown bitrate (upstream counted them as 0)"}}},
	{Name: "distance", Values: []Link{{Text: "geo_lat, geo_long and geo_distance (metres), given together, keep the stations within that distance " +
		"(upstream read them and ignored them)"}}},
	{Name: "long lists", Values: []Link{{Text: "limit defaults to 100000 as upstream, so a list holds every station unless told otherwise; " +
		"a list longer than a thousand stations is streamed a thousand at a time, compressed as it goes, never built whole; " +
		"a shorter one is cached like our own answers (but order=random)"}}},
}

// ClientFacts say how each common client finds its server and how to
// point it at the node at b.
func ClientFacts(b string) []Fact {
	return []Fact{
		{Name: "radio-browser-api (npm)", Values: []Link{{Text: "takes a base address: new RadioBrowserApi('my app') then api.setBaseUrl('" + b +
			"'); requests go to that base plus /json/. It lowercases parameter names (bitratemin, nameexact), which a node accepts"}}},
		{Name: "pyradios", Values: []Link{{Text: "RadioBrowser() picks a server itself when created (a DNS lookup of all.api.radio-browser.info, then a " +
			"reverse lookup of an address) and takes no address; set its base_url afterwards, with the trailing slash, since paths are appended: " +
			"rb = RadioBrowser(); rb.base_url = '" + b + "'. Where that lookup fails (offline) RadioBrowser() raises: replace " +
			"pyradios.radios.pick_base_url before creating it. Its stations_by_codec sends codecExact, which upstream ignores: a node " +
			"accepts it, codec being a whole codec either way (pyradios 2.1.1)"}}},
		{Name: "Shortwave", Values: []Link{{Text: "reads the setting api-lookup-domain (GSettings schema de.haeckerfelix.Shortwave, default " +
			"all.api.radio-browser.info), resolves that name, looks each address up in reverse and uses https:// and the host name found " +
			"once its /json/stats answers. It can use a node only over HTTPS, at a host name its address resolves back to (a PTR record) " +
			"with a certificate for that name; then: gsettings set de.haeckerfelix.Shortwave api-lookup-domain node.example.org " +
			"(under Flatpak: flatpak run --command=gsettings de.haeckerfelix.Shortwave set ...)"}}},
		{Name: "RadioDroid", Values: []Link{{Text: "has no server setting (the server list of its settings is disabled in its source, as of October 2023): " +
			"it takes the host names of a reverse lookup of all.api.radio-browser.info, else de1.api.radio-browser.info, always over https://. " +
			"It cannot be pointed at a node without a change to its code (RadioBrowserServerManager) or to the DNS its device uses"}}},
	}
}

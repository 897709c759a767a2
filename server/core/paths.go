package core

import (
	"strings"

	"stationdex/internal/stationjson"
)

// MarkdownIndex is what is appended to a page URL to name its twin.
const MarkdownIndex = "index.md"

// The service's fixed public paths, named once: the routes, every link the
// pages print, the capabilities document, llms.txt and the sitemap use
// these. Paths of one station or directory value are built by the page
// that owns them.
const (
	pathHome         = "/"
	PathSearch       = "/search/"
	PathGuide        = "/guide/"
	PathMarkdownHome = "/text/index.md"
	PathFaviconSVG   = "/favicon.svg"
	PathFaviconICO   = "/favicon.ico"
	PathRobots       = "/robots.txt"
	PathStations     = "/api/stations"  // the search operation
	PathStation      = "/api/stations/" // + id: one station
	PathOpenAPI      = "/openapi.json"
	PathCapabilities = "/.well-known/radio-directory.json"
	PathData         = "/data/" // + a dump's file name
	PathCatalog      = PathData + "catalog.json"
	PathDumpJSON     = PathData + stationjson.DumpJSON
	PathDumpNDJSON   = PathData + stationjson.DumpNDJSON
	PathSitemap      = "/sitemap.xml"
	PathSitemaps     = "/sitemaps/" // + a child sitemap's name
	PathLLMs         = "/llms.txt"
)

// A station's files below its page's path ("/stations/{id}/"): playlists
// of its stream for players outside the browser.
const (
	StationM3U = "listen.m3u"
	StationPLS = "listen.pls"
)

// PathRBAPI is the prefix of the Radio Browser API.
const PathRBAPI = "/json/"

// RBAPIPrefixes are the prefixes of the Radio Browser API: /json/, and
// the other formats upstream serves its paths in.
var RBAPIPrefixes = [...]string{PathRBAPI, "/xml/", "/csv/", "/m3u/", "/pls/", "/xspf/", "/ttl/"}

// IsRBAPIPath reports whether p is under a prefix of the Radio Browser
// API.
func IsRBAPIPath(p string) bool {
	for _, prefix := range RBAPIPrefixes {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

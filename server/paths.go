package server

import "stationdex/internal/stationjson"

// The service's fixed public paths, named once: the routes, every link the
// pages print, the capabilities document, llms.txt and the sitemap use
// these. Paths of one station or directory value are built by the page
// that owns them.
const (
	pathHome         = "/"
	pathSearch       = "/search/"
	pathGuide        = "/guide/"
	pathMarkdownHome = "/text/index.md"
	pathFaviconSVG   = "/favicon.svg"
	pathFaviconICO   = "/favicon.ico"
	pathRobots       = "/robots.txt"
	pathStations     = "/api/stations"  // the search operation
	pathStation      = "/api/stations/" // + id: one station
	pathOpenAPI      = "/openapi.json"
	pathCapabilities = "/.well-known/radio-directory.json"
	pathData         = "/data/" // + a dump's file name
	pathCatalog      = pathData + "catalog.json"
	pathDumpJSON     = pathData + stationjson.DumpJSON
	pathDumpNDJSON   = pathData + stationjson.DumpNDJSON
	pathSitemap      = "/sitemap.xml"
	pathSitemaps     = "/sitemaps/" // + a child sitemap's name
	pathLLMs         = "/llms.txt"
)

// A station's files below its page's path ("/stations/{id}/"): playlists
// of its stream for players outside the browser.
const (
	stationM3U = "listen.m3u"
	stationPLS = "listen.pls"
)

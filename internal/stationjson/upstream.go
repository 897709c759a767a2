package stationjson

import (
	"strconv"

	"stationdex/internal/format"
)

// Upstream is a station in the shape the upstream directory's read API
// sends it (its /json/stations object), for the Radio Browser API under
// /json/: every field of the snapshot record, values as the source gave
// them (bounded by the indexer), plus page_url, the station's page here.
//
// Strings the source sends as null when missing (serveruuid, iso_3166_2,
// the _iso8601 times) are null when empty; the others are "" when
// missing, as the source sends them.
type Upstream struct {
	ID                    format.UUID
	ChangeUUID            string
	ServerUUID            string
	Name                  string
	URL                   string
	URLResolved           string
	Homepage              string
	Favicon               string
	Tags                  string
	Country               string
	CountryCode           string
	ISO3166_2             string
	State                 string
	Language              string
	LanguageCodes         string
	Votes                 int64
	LastChangeTime        string
	LastChangeTimeISO     string
	Codec                 string
	Bitrate               int64
	HLS                   int64
	LastCheckOK           int64
	LastCheckTime         string
	LastCheckTimeISO      string
	LastCheckOKTime       string
	LastCheckOKTimeISO    string
	LastLocalCheckTime    string
	LastLocalCheckTimeISO string
	ClickTimestamp        string
	ClickTimestampISO     string
	ClickCount            int64
	ClickTrend            int64
	SSLError              int64
	GeoLat, GeoLong       *float64 // nil: the source has none
	HasExtendedInfo       bool
}

// AppendStored appends u's JSON object in its stored form
// (format.BucketRBAPIJSON): page_url opens with format.BaseURLMark,
// which Splice replaces by a server's base URL, as for AppendStored of
// the API's Station. Field order is the upstream server's.
func (u *Upstream) AppendStored(dst []byte) []byte {
	dst = append(dst, `{"changeuuid":`...)
	dst = AppendString(dst, u.ChangeUUID)
	dst = appendField(dst, "stationuuid", u.ID.String())
	dst = appendNullableField(dst, "serveruuid", Nullable(u.ServerUUID))
	dst = u.appendDescription(dst)
	dst = u.appendChecks(dst)
	dst = appendCoordinate(appendName(dst, "geo_lat"), u.GeoLat)
	dst = appendCoordinate(appendName(dst, "geo_long"), u.GeoLong)
	// The distance is per request upstream (a search around a point);
	// a stored station has none.
	dst = append(appendName(dst, "geo_distance"), "null"...)
	dst = strconv.AppendBool(appendName(dst, "has_extended_info"), u.HasExtendedInfo)
	dst = appendURL(appendName(dst, "page_url"), "/stations/"+u.ID.String()+"/")
	return append(dst, '}')
}

// appendDescription appends the fields from name to codec: what the
// station says about itself.
func (u *Upstream) appendDescription(dst []byte) []byte {
	for _, f := range [...]struct{ name, value string }{
		{"name", u.Name}, {"url", u.URL}, {"url_resolved", u.URLResolved},
		{"homepage", u.Homepage}, {"favicon", u.Favicon}, {"tags", u.Tags},
		{"country", u.Country}, {"countrycode", u.CountryCode},
	} {
		dst = appendField(dst, f.name, f.value)
	}
	dst = appendNullableField(dst, "iso_3166_2", Nullable(u.ISO3166_2))
	dst = appendField(dst, "state", u.State)
	dst = appendField(dst, "language", u.Language)
	dst = appendField(dst, "languagecodes", u.LanguageCodes)
	dst = appendInt(dst, "votes", u.Votes)
	dst = appendField(dst, "lastchangetime", u.LastChangeTime)
	dst = appendNullableField(dst, "lastchangetime_iso8601", Nullable(u.LastChangeTimeISO))
	dst = appendField(dst, "codec", u.Codec)
	return appendInt(dst, "bitrate", u.Bitrate)
}

// appendChecks appends the fields from hls to ssl_error: what the
// directory's stream checks and clicks recorded.
func (u *Upstream) appendChecks(dst []byte) []byte {
	dst = appendInt(dst, "hls", u.HLS)
	dst = appendInt(dst, "lastcheckok", u.LastCheckOK)
	for _, t := range [...]struct{ name, plain, iso string }{
		{"lastchecktime", u.LastCheckTime, u.LastCheckTimeISO},
		{"lastcheckoktime", u.LastCheckOKTime, u.LastCheckOKTimeISO},
		{"lastlocalchecktime", u.LastLocalCheckTime, u.LastLocalCheckTimeISO},
		{"clicktimestamp", u.ClickTimestamp, u.ClickTimestampISO},
	} {
		dst = appendField(dst, t.name, t.plain)
		dst = appendNullableField(dst, t.name+"_iso8601", Nullable(t.iso))
	}
	dst = appendInt(dst, "clickcount", u.ClickCount)
	dst = appendInt(dst, "clicktrend", u.ClickTrend)
	return appendInt(dst, "ssl_error", u.SSLError)
}

func appendInt(dst []byte, name string, v int64) []byte {
	return strconv.AppendInt(appendName(dst, name), v, 10)
}

func appendCoordinate(dst []byte, deg *float64) []byte {
	if deg == nil {
		return append(dst, "null"...)
	}
	return AppendFloat(dst, *deg)
}

package realdata

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// SampleStations is the number of records in the sample.
const SampleStations = 6000

// SampleUnnamed is the number of the sample's records whose names are only
// whitespace, which the indexer skips.
const SampleUnnamed = 2

// SampleNewestCheck is the newest check time in the sample, the same as
// the full snapshot's, so that a build of either reports the same
// snapshot time.
var SampleNewestCheck = time.Date(2025, 2, 27, 12, 38, 23, 0, time.UTC)

// station is one record in the upstream's shape: its 37 fields in its
// order, with its types; a pointer is a field the upstream writes as null
// when it has no value, a string one it writes as "".
type station struct {
	ChangeUUID            string   `json:"changeuuid"`
	StationUUID           string   `json:"stationuuid"`
	ServerUUID            *string  `json:"serveruuid"`
	Name                  string   `json:"name"`
	URL                   string   `json:"url"`
	URLResolved           string   `json:"url_resolved"`
	Homepage              string   `json:"homepage"`
	Favicon               string   `json:"favicon"`
	Tags                  string   `json:"tags"`
	Country               string   `json:"country"`
	CountryCode           string   `json:"countrycode"`
	ISO31662              *string  `json:"iso_3166_2"`
	State                 string   `json:"state"`
	Language              string   `json:"language"`
	LanguageCodes         string   `json:"languagecodes"`
	Votes                 int      `json:"votes"`
	LastChangeTime        string   `json:"lastchangetime"`
	LastChangeTimeISO     string   `json:"lastchangetime_iso8601"`
	Codec                 string   `json:"codec"`
	Bitrate               int      `json:"bitrate"`
	HLS                   int      `json:"hls"`
	LastCheckOK           int      `json:"lastcheckok"`
	LastCheckTime         string   `json:"lastchecktime"`
	LastCheckTimeISO      *string  `json:"lastchecktime_iso8601"`
	LastCheckOKTime       string   `json:"lastcheckoktime"`
	LastCheckOKTimeISO    *string  `json:"lastcheckoktime_iso8601"`
	LastLocalCheckTime    string   `json:"lastlocalchecktime"`
	LastLocalCheckTimeISO *string  `json:"lastlocalchecktime_iso8601"`
	ClickTimestamp        string   `json:"clicktimestamp"`
	ClickTimestampISO     *string  `json:"clicktimestamp_iso8601"`
	ClickCount            int      `json:"clickcount"`
	ClickTrend            int      `json:"clicktrend"`
	SSLError              int      `json:"ssl_error"`
	GeoLat                *float64 `json:"geo_lat"`
	GeoLong               *float64 `json:"geo_long"`
	GeoDistance           *float64 `json:"geo_distance"`
	HasExtendedInfo       bool     `json:"has_extended_info"`
}

// WriteSample writes the sample: SampleStations made-up stations as gzip
// NDJSON in the upstream's shape, with every quirk of the full snapshot
// that the tests rely on (see testdata/README.md). The same bytes every
// time: the generator's randomness has a fixed seed and the gzip header
// carries no name and no time.
func WriteSample(w io.Writer) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false) // the upstream writes <, > and & as they are
	for _, s := range sampleStations() {
		if err := enc.Encode(s); err != nil {
			return err
		}
	}
	return zw.Close()
}

// sampler draws the sample's stations.
type sampler struct {
	rng     *rand.Rand
	weights int
	serial  int
}

func sampleStations() []*station {
	g := &sampler{rng: rand.New(rand.NewPCG(20250227, 45))}
	for _, c := range countries {
		g.weights += c.weight
	}
	out := g.quirks()
	for len(out) < SampleStations {
		s := g.station(g.country())
		out = append(out, s)
		switch g.rng.IntN(100) {
		case 0: // a duplicate: the same station entered twice
			d := g.station(nil)
			*d, d.StationUUID, d.ChangeUUID = *s, g.uuid(), g.uuid()
			out = append(out, d)
		case 1, 2, 3, 4, 5, 6, 7, 8: // a relay: another station's stream
			d := g.station(g.country())
			d.URL, d.URLResolved = s.URL, s.URLResolved
			out = append(out, d)
		}
	}
	out = out[:SampleStations]
	// The upstream lists by name; equal names by UUID, so the order is total.
	slices.SortStableFunc(out, func(a, b *station) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.StationUUID, b.StationUUID)
	})
	return out
}

func (g *sampler) country() *country {
	n := g.rng.IntN(g.weights + g.weights/30) // about 3% without a country
	for i := range countries {
		if n < countries[i].weight {
			return &countries[i]
		}
		n -= countries[i].weight
	}
	return nil
}

func (g *sampler) uuid() string {
	var b [16]byte
	for i := range b {
		b[i] = byte(g.rng.Uint32())
	}
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func (g *sampler) pick(words []string) string { return words[g.rng.IntN(len(words))] }

// skewed draws an index below n that favours the first ones, as the
// upstream's frequencies do.
func (g *sampler) skewed(n int) int { return min(g.rng.IntN(n), g.rng.IntN(n), g.rng.IntN(n)) }

// station draws one ordinary station of country c (nil: none).
func (g *sampler) station(c *country) *station {
	g.serial++
	s := &station{ChangeUUID: g.uuid(), StationUUID: g.uuid()}
	if g.rng.IntN(33) != 0 {
		id := g.uuid()
		s.ServerUUID = &id
	}
	s.Name = g.name(c)
	slug := g.slug(s.Name)
	scheme := "http"
	if g.rng.IntN(20) < 9 {
		scheme = "https"
	}
	s.URL = fmt.Sprintf("%s://stream%d.%s.example:%d/%s", scheme, g.rng.IntN(9), slug, 8000+g.rng.IntN(4)*10, g.pick([]string{"live", "stream", "live.mp3", "aac", "listen.pls", "hls/playlist.m3u8", ";"}))
	switch g.rng.IntN(20) {
	case 0:
		s.URLResolved = fmt.Sprintf("https://edge%d.%s.example/live", g.rng.IntN(5), slug)
	default:
		s.URLResolved = s.URL
	}
	if g.rng.IntN(16) != 0 {
		s.Homepage = "https://www." + slug + ".example/"
	}
	if g.rng.IntN(3) != 0 {
		s.Favicon = "https://www." + slug + ".example/favicon.png"
	}
	s.Tags = g.tags()
	if g.rng.IntN(5) == 0 && !strings.Contains(s.Tags, "music") {
		s.Tags = strings.TrimPrefix(s.Tags+",music", ",")
	}
	switch n := g.rng.IntN(100); {
	case n < 87:
	case n < 98:
		s.ISO31662 = new(string)
	default:
		if c != nil {
			code := c.code + "-" + strings.ToUpper(g.slug(g.pick(c.states)) + "xx")[:2]
			s.ISO31662 = &code
		}
	}
	if c != nil {
		s.Country, s.CountryCode = c.label, c.code
		switch n := g.rng.IntN(20); {
		case n < 7:
			s.State = g.pick(c.states)
		case n < 9: // the long tail of places
			s.State = g.pick(towns[0]) + g.pick(towns[1]) + g.pick(towns[2])
		}
		switch n := g.rng.IntN(100); {
		case n < 32:
		case n < 80:
			s.Language, s.LanguageCodes = c.language, c.langCodes
		case n < 86:
			s.Language, s.LanguageCodes = c.language+",english", c.langCodes
			if c.langCodes != "" {
				s.LanguageCodes += ",en"
			}
		case n < 88:
			s.Language = c.language // languagecodes left empty
		case n < 89:
			s.LanguageCodes = c.langCodes // language left empty
		default: // the long tail of languages
			s.Language = g.pick(moreLanguages)
		}
	} else if g.rng.IntN(4) == 0 {
		s.Language, s.LanguageCodes = "english", "en"
	}
	s.Votes = int(math.Exp(g.rng.Float64()*9)) - 1
	s.ClickCount = int(math.Exp(g.rng.Float64()*8)) - 1
	s.ClickTrend = g.rng.IntN(41) - 20
	n := g.rng.IntN(1003)
	for _, c := range codecs {
		if s.Codec = c.name; n < c.weight {
			break
		}
		n -= c.weight
	}
	s.Bitrate = bitrates[g.rng.IntN(len(bitrates))]
	if g.rng.IntN(30) == 0 {
		s.HLS = 1
	}
	if g.rng.IntN(100) == 0 {
		s.SSLError = 1
	}
	s.HasExtendedInfo = g.rng.IntN(12) == 0
	g.times(s)
	if c != nil && g.rng.IntN(6) == 0 {
		g.geo(s, c.lat+g.rng.NormFloat64()*1.2, c.lon+g.rng.NormFloat64()*1.8)
	}
	return s
}

// name draws a name from the country's words and the common ones, now and
// then with the upstream's spacing slips.
func (g *sampler) name(c *country) string {
	w := g.pick(nameWords)
	local := w
	if c != nil && g.rng.IntN(3) != 0 {
		local = g.pick(c.words)
	}
	var n string
	switch g.rng.IntN(9) {
	case 0:
		n = "Radio " + local
	case 1:
		n = local + " FM"
	case 2:
		n = local + " " + w
	case 3:
		n = w + " " + local
	case 4:
		n = "Radio " + w
	case 5:
		n = local + " " + w + " " + g.pick(nameWords)
	case 6:
		n = fmt.Sprintf("%s %d.%d", local, 87+g.rng.IntN(21), g.rng.IntN(10))
	case 7:
		n = local
	default:
		n = w + " " + g.pick(nameWords)
	}
	if g.rng.IntN(6) == 0 && !strings.Contains(n, "FM") {
		n += " FM"
	}
	switch g.rng.IntN(60) {
	case 0:
		n = " " + n
	case 1:
		n += " "
	case 2:
		n = strings.Replace(n, " ", "  ", 1)
	}
	return n
}

// slug is a host-name part made of a name's ASCII letters and digits.
func (g *sampler) slug(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return fmt.Sprintf("station%d", g.serial)
	}
	return b.String()
}

func (g *sampler) tags() string {
	if g.rng.IntN(3) == 0 {
		return ""
	}
	var tags []string
	for range 1 + g.rng.IntN(5) {
		t := genreTags[g.skewed(len(genreTags))]
		if g.rng.IntN(4) == 0 { // the long tail: a genre and a word of its own, spelt in one of the ways
			a, b := rareTags[0][g.rng.IntN(len(rareTags[0]))], rareTags[1][g.rng.IntN(len(rareTags[1]))]
			t = fmt.Sprintf([]string{"%s %s", "%s-%s", "%s%s", "#%s%s", "%s %s"}[g.rng.IntN(5)], a, b)
			if g.rng.IntN(5) == 0 {
				t = strings.ToUpper(t[:1]) + t[1:]
			}
		}
		if !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	return strings.Join(tags, ",")
}

// times sets the check, change and click times: checked in the two days
// before the newest check, changed in the ten years before.
func (g *sampler) times(s *station) {
	check := SampleNewestCheck.Add(-time.Duration(1+g.rng.Int64N(48*3600)) * time.Second)
	change := check.Add(-time.Duration(g.rng.Int64N(10*365*24*3600)) * time.Second)
	s.LastChangeTime, s.LastChangeTimeISO = stamp(change), iso(change)
	s.LastCheckTime, s.LastCheckTimeISO = stamp(check), isoPtr(check)
	local := check.Add(-time.Duration(g.rng.Int64N(12*3600)) * time.Second)
	s.LastLocalCheckTime, s.LastLocalCheckTimeISO = stamp(local), isoPtr(local)
	if g.rng.IntN(10) != 0 {
		s.LastCheckOK = 1
		s.LastCheckOKTime, s.LastCheckOKTimeISO = stamp(check), isoPtr(check)
	} else if g.rng.IntN(3) != 0 {
		ok := change.Add(time.Duration(g.rng.Int64N(int64(check.Sub(change)/time.Second)+1)) * time.Second)
		s.LastCheckOKTime, s.LastCheckOKTimeISO = stamp(ok), isoPtr(ok)
	}
	if g.rng.IntN(5) != 0 {
		click := check.Add(-time.Duration(g.rng.Int64N(30*24*3600)) * time.Second)
		s.ClickTimestamp, s.ClickTimestampISO = stamp(click), isoPtr(click)
	}
}

func (g *sampler) geo(s *station, lat, lon float64) {
	lat, lon = math.Round(lat*1e6)/1e6, math.Round(lon*1e6)/1e6
	s.GeoLat, s.GeoLong = &lat, &lon
}

func stamp(t time.Time) string { return t.Format(time.DateTime) }
func iso(t time.Time) string   { return t.Format("2006-01-02T15:04:05Z") }
func isoPtr(t time.Time) *string {
	s := iso(t)
	return &s
}

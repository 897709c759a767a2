package indexer

import (
	"encoding/json"
	"html"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"stationdex/internal/fold"
	"stationdex/internal/format"
	"stationdex/internal/iso"
)

// Limits of the cleaned fields. They bound the size of a record and of every
// index key derived from it (bbolt keys must stay well below a page), and
// they cut keyword-stuffed or garbage fields that no user reads whole.
const (
	// MaxNameRunes: real names are far shorter; the 378-character ones in
	// the data are keyword lists.
	MaxNameRunes = 200
	// MaxLabelRunes bounds country, location and language labels.
	MaxLabelRunes = 100
	// MaxGenreRunes: the longest real tag is 990 characters of pasted text;
	// no genre filter (max 60 characters) can ask for more than this.
	MaxGenreRunes = 100
	// MaxGenres: the mean is 2.5 tags a station; the one station with 311
	// tags is tag spam, and capping it keeps its posting lists from
	// polluting every genre.
	MaxGenres = 64
	// MaxLanguages: the data has at most 11 labels before splitting.
	MaxLanguages = 32
	// MaxURLBytes: stream URLs reach 14,971 characters in the data; past a
	// couple of kilobytes a URL is not one a browser or player accepts
	// reliably, so it is dropped rather than cut (a cut URL is a wrong URL).
	MaxURLBytes = 2048
	// MaxBitrateKbps: above this a bitrate is a data-entry error (the data
	// has 128000); uncompressed 24-bit/192 kHz stereo is about 9216 kbps.
	MaxBitrateKbps = 10000
)

// rawStation holds the Radio Browser fields the index uses. Fields absent or
// null in the input stay "" / 0, which the source uses for "missing" anyway.
type rawStation struct {
	StationUUID      string     `json:"stationuuid"`
	Name             string     `json:"name"`
	URL              string     `json:"url"`
	URLResolved      string     `json:"url_resolved"`
	Homepage         string     `json:"homepage"`
	Tags             string     `json:"tags"`
	Country          string     `json:"country"`
	CountryCode      string     `json:"countrycode"`
	State            string     `json:"state"`
	Language         string     `json:"language"`
	LanguageCodes    string     `json:"languagecodes"`
	Bitrate          int64      `json:"bitrate"`
	Codec            string     `json:"codec"`
	LastChangeTime   string     `json:"lastchangetime"`
	LastChangeTimeTZ string     `json:"lastchangetime_iso8601"`
	LastCheckTime    string     `json:"lastchecktime"`
	LastCheckTimeTZ  string     `json:"lastchecktime_iso8601"`
	GeoLat           coordinate `json:"geo_lat"`
	GeoLong          coordinate `json:"geo_long"`
	// Votes and ClickCount order the search by popularity
	// (format.SortPopular).
	Votes      int64 `json:"votes"`
	ClickCount int64 `json:"clickcount"`
	// Flags are the source fields the dimension table's flags are read
	// from (sourceFlags).
	Flags sourceFlags `json:"-"`
}

// rawInput is what a source record is decoded into: rawStation, and the
// fields only the Radio Browser API uses, decoded only for a build with
// format.SectionRBAPI (decodeStation), so that without it a record is read,
// and accepted or refused, exactly as before those fields were kept.
type rawInput struct {
	rawStation
	rawUpstream
}

// rawUpstream holds the fields of the source record that only the
// Radio Browser API's station object (stationjson.Upstream) uses.
type rawUpstream struct {
	ChangeUUID           string `json:"changeuuid"`
	ServerUUID           string `json:"serveruuid"`
	Favicon              string `json:"favicon"`
	ISO3166_2            string `json:"iso_3166_2"`
	HLS                  int64  `json:"hls"`
	LastCheckOKTime      string `json:"lastcheckoktime"`
	LastCheckOKTimeTZ    string `json:"lastcheckoktime_iso8601"`
	LastLocalCheckTime   string `json:"lastlocalchecktime"`
	LastLocalCheckTimeTZ string `json:"lastlocalchecktime_iso8601"`
	ClickTimestamp       string `json:"clicktimestamp"`
	ClickTimestampTZ     string `json:"clicktimestamp_iso8601"`
	ClickTrend           int64  `json:"clicktrend"`
	SSLError             int64  `json:"ssl_error"`
	HasExtendedInfo      bool   `json:"has_extended_info"`
}

// skipReason says why an input record is not indexed.
type skipReason int

const (
	kept skipReason = iota
	skipMalformed
	skipInvalidUUID
	skipEmptyName
	skipDuplicateUUID
)

func (r skipReason) String() string {
	switch r {
	case kept:
		return "kept"
	case skipMalformed:
		return "malformed"
	case skipInvalidUUID:
		return "invalid uuid"
	case skipEmptyName:
		return "empty name"
	case skipDuplicateUUID:
		return "duplicate uuid"
	}
	return "unknown"
}

// count adds one record skipped for reason r to s.
func (r skipReason) count(s *format.Skipped) {
	switch r {
	case skipMalformed:
		s.Malformed++
	case skipInvalidUUID:
		s.InvalidUUID++
	case skipEmptyName:
		s.EmptyName++
	case skipDuplicateUUID:
		s.DuplicateUUID++
	}
}

// cleanStation turns a raw record into an index record, or says why it cannot
// be indexed. Duplicates are the reader's business, not this function's.
func cleanStation(raw *rawStation) (format.Record, skipReason) {
	var rec format.Record
	id, err := format.ParseUUID(strings.TrimSpace(raw.StationUUID))
	if err != nil {
		return rec, skipInvalidUUID
	}
	rec.ID = id
	rec.Name = cleanName(raw.Name)
	if rec.Name == "" {
		return rec, skipEmptyName
	}
	rec.CountryCode = cleanCountryCode(raw.CountryCode)
	rec.Country = cleanText(raw.Country, MaxLabelRunes)
	rec.Location = cleanLocation(raw.State)
	rec.Languages = cleanLanguages(raw.Language)
	rec.LanguageCodes = languageCodes(raw.LanguageCodes, rec.Languages)
	rec.Genres = cleanGenres(raw.Tags)
	rec.BitrateKbps = cleanBitrate(raw.Bitrate)
	rec.Codec = cleanCodec(raw.Codec)
	rec.Geo = cleanGeo(raw.GeoLat, raw.GeoLong)
	rec.Flags = raw.Flags.record()
	rec.OfficialURL = cleanURL(raw.Homepage)
	rec.StreamURL = cleanURL(raw.URLResolved)
	if rec.StreamURL == "" {
		rec.StreamURL = cleanURL(raw.URL)
	}
	return rec, kept
}

// cleanName decodes HTML entities (one name in the data is made only of
// numeric entities) before the general text clean-up, so that an entity
// cannot smuggle in a control character.
func cleanName(s string) string {
	return cleanText(html.UnescapeString(s), MaxNameRunes)
}

// cleanText is the clean-up shared by every free-text field: invalid UTF-8
// replaced, control characters turned into spaces, invisible format
// characters removed, white space trimmed and collapsed, and the result cut
// to max runes at a rune boundary.
func cleanText(s string, max int) string {
	if isPlainText(s) {
		return cutRunes(s, max)
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(visibleRune, s)
	return cutRunes(strings.Join(strings.Fields(s), " "), max)
}

// isPlainText reports whether s is printable ASCII without leading, trailing
// or double spaces: the common case, which needs no copying.
func isPlainText(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f {
			return false
		}
		if c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ') {
			return false
		}
	}
	return true
}

// visibleRune maps control characters (tabs, CR/LF in names) to spaces and
// drops invisible format characters (zero-width space, BOM, word joiners,
// bidi marks). ZWJ and ZWNJ stay: emoji sequences and Persian and Indic
// spelling need them, and folding removes them for matching anyway.
func visibleRune(r rune) rune {
	switch {
	case unicode.IsControl(r):
		return ' '
	case r == '\u200c' || r == '\u200d':
		return r
	case unicode.Is(unicode.Cf, r):
		return -1
	}
	return r
}

// cutRunes shortens s to at most max runes, never splitting a rune, and trims
// the space the cut may leave at the end.
func cutRunes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return strings.TrimRight(s[:i], " ")
		}
		n++
	}
	return s
}

// cleanCountryCode keeps a code only if it is two ASCII letters; the data has
// lower-case codes ("fr") and empty ones.
func cleanCountryCode(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	if len(s) != 2 || !isASCIILetter(s[0]) || !isASCIILetter(s[1]) {
		return ""
	}
	return s
}

func isASCIILetter(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// placeholderKeys are the name keys of the "no value" spellings seen in the
// state field ("- None -", "n/a", "unknown", ...). Comparing name keys
// ignores case and punctuation, so "N/A" and "- none -" need no entry.
var placeholderKeys = map[string]bool{
	"n a": true, "na": true, "none": true, "unknown": true, "null": true,
	"nil": true, "not set": true, "not specified": true,
}

// cleanLocation turns placeholders and punctuation-only values ("-", "?")
// into "".
func cleanLocation(s string) string {
	s = cleanText(s, MaxLabelRunes)
	if isPlaceholder(s) {
		return ""
	}
	return s
}

func isPlaceholder(s string) bool {
	k := fold.Key(s)
	return k == "" || placeholderKeys[k]
}

// languageSeparators split one language field into labels. Commas are the
// documented separator; the data also lists languages with "/", ";", "|",
// "&" and "." ("english/russian", "castellano. español", "andaluz.español",
// "kinyarwanda & kiswahili"). "-" is not one: it is part of labels such as
// "español - latinoamerica", "carpatho-rusyn" and "pt-br".
func isLanguageSeparator(r rune) bool {
	switch r {
	case ',', ';', '/', '|', '&', '.':
		return true
	}
	return false
}

// languageTrim is cut from both ends of a language label: the spaces and
// dashes left by splitting ("english/ -"), and hashtag marks ("#spanish").
const languageTrim = " -#"

// cleanLanguages splits the language field into labels, keeping the first
// spelling of each facet key, in order.
func cleanLanguages(s string) []string {
	var out []string
	var buf [8]string // most fields need no more
	keys := buf[:0]
	for _, part := range strings.FieldsFunc(stripURLs(s), isLanguageSeparator) {
		label := strings.Trim(cleanText(part, MaxLabelRunes), languageTrim)
		out, keys = appendFacet(out, keys, label, MaxLanguages)
	}
	return nonNil(out)
}

// stripURLs removes pasted stream URLs from a language field: the data has
// "frenchhttps://..." and bare "http://..." values. A URL runs to the next
// comma or white space.
func stripURLs(s string) string {
	for {
		i := indexURL(s)
		if i < 0 {
			return s
		}
		end := strings.IndexAny(s[i:], ", \t")
		if end < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+end:]
	}
}

func indexURL(s string) int {
	i := strings.Index(s, "http://")
	if j := strings.Index(s, "https://"); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	return i
}

// appendFacet appends label to labels, and its facet key to keys (those of
// labels), unless it is empty, a facet-key duplicate of an earlier one, or
// there are max labels. Fields have a few labels (2.5 genres a station on
// average), so scanning keys is cheaper than a map, which cost an
// allocation per field and record; callers start keys in an array on
// their stack.
func appendFacet(labels, keys []string, label string, max int) ([]string, []string) {
	if label == "" || len(labels) >= max {
		return labels, keys
	}
	key := format.FacetKey(label)
	if key == "" || slices.Contains(keys, key) {
		return labels, keys
	}
	return append(labels, label), append(keys, key)
}

// languageCodes lists the ISO 639 codes of a station: the codes of the
// cleaned language labels that resolve to one, then the valid codes of the
// languagecodes field, canonicalised ("DE" -> "de", "eng" -> "en",
// "in" -> "id"). Both sources are used, not the field only when it is set,
// because the data has 1,319 records where they disagree ("english,
// german" with code "en"), and a `language=de` filter should still find the
// station that says "german".
//
// The label codes come first and always fit (there are at most
// MaxLanguages labels): the query engine relies on every station filed
// under a label that resolves to a code being filed under that code too.
func languageCodes(field string, labels []string) []string {
	var out []string
	add := func(code string, ok bool) { // out is short: a scan, not a map
		if ok && len(out) < MaxLanguages && !slices.Contains(out, code) {
			out = append(out, code)
		}
	}
	for _, label := range labels {
		add(languageCode(label))
	}
	for part := range strings.SplitSeq(field, ",") {
		part = strings.ToLower(strings.TrimSpace(part))
		if isCodeShaped(part) {
			add(languageCode(part))
		}
	}
	return nonNil(out)
}

// languageMemo remembers iso.LanguageCode, which folds and looks up a
// label anew on every call: a few percent of a build's CPU, for a few
// hundred distinct labels and codes in the data. The decoding goroutines
// share it; it stops growing at maxLanguageMemo entries, since the labels
// come from the input.
var languageMemo = struct {
	sync.RWMutex
	codes map[string]languageCodeOf
}{codes: map[string]languageCodeOf{}}

const maxLanguageMemo = 4096

type languageCodeOf struct {
	code string
	ok   bool
}

// languageCode is iso.LanguageCode, memoised.
func languageCode(label string) (string, bool) {
	languageMemo.RLock()
	r, known := languageMemo.codes[label]
	languageMemo.RUnlock()
	if known {
		return r.code, r.ok
	}
	r.code, r.ok = iso.LanguageCode(label)
	languageMemo.Lock()
	if len(languageMemo.codes) < maxLanguageMemo {
		languageMemo.codes[label] = r
	}
	languageMemo.Unlock()
	return r.code, r.ok
}

// isCodeShaped accepts two or three ASCII lower-case letters: anything else
// in languagecodes is not a code, and letting it through to LanguageCode
// would resolve it as a language name.
func isCodeShaped(s string) bool {
	if len(s) < 2 || len(s) > 3 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// cleanGenres splits the tags field on commas, keeping the first spelling of
// each facet key, in order, at most MaxGenres of MaxGenreRunes each.
func cleanGenres(s string) []string {
	var out []string
	var buf [8]string
	keys := buf[:0]
	for part := range strings.SplitSeq(s, ",") {
		out, keys = appendFacet(out, keys, cleanText(part, MaxGenreRunes), MaxGenres)
	}
	return nonNil(out)
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// codecs are the audio codecs a record may name, by the spellings the
// source uses. Anything else ("UNKNOWN", containers such as FLV) is unknown.
// Every value is one of format.Codecs.
var codecs = map[string]string{
	"MP3": "MP3", "AAC": "AAC", "AAC+": "AAC+", "AACP": "AAC+", "HE-AAC": "AAC+",
	"OGG": "OGG", "VORBIS": "OGG", "FLAC": "FLAC", "OPUS": "OPUS",
}

// cleanCodec is the audio codec of a source codec field. The field may
// list a video codec after the audio one ("AAC,H.264"): the first entry
// is the audio.
func cleanCodec(field string) string {
	first, _, _ := strings.Cut(field, ",")
	return codecs[strings.ToUpper(strings.TrimSpace(first))]
}

// coordinate is a geo_lat or geo_long field. The source sends a number or
// null; anything else (a string, an object) counts as missing rather than
// making the whole record malformed, since the position is optional.
type coordinate struct {
	deg float64
	set bool
}

func (c *coordinate) UnmarshalJSON(b []byte) error {
	var f float64
	if string(b) != "null" && json.Unmarshal(b, &f) == nil {
		*c = coordinate{deg: f, set: true}
	}
	return nil
}

// cleanGeo keeps a position only when both coordinates are present and in
// range. (0, 0), in the Gulf of Guinea, is the usual placeholder for "no
// position" and is dropped as well.
func cleanGeo(lat, lon coordinate) format.Geo {
	if !lat.set || !lon.set || lat.deg == 0 && lon.deg == 0 {
		return format.Geo{}
	}
	g, _ := format.GeoFromDegrees(lat.deg, lon.deg)
	return g
}

// cleanBitrate maps unknown (0, negative) and impossible values to 0.
func cleanBitrate(kbps int64) uint32 {
	if kbps <= 0 || kbps > MaxBitrateKbps {
		return 0
	}
	return uint32(kbps)
}

// cleanURL keeps s only if it is an absolute http(s) URL with a host and at
// most MaxURLBytes long. This rejects "hthttps://...", "http:host:port/..."
// (no "//", so no host), javascript: and the like.
func cleanURL(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > MaxURLBytes {
		return ""
	}
	if plainHTTPURL(s) {
		return s
	}
	if !utf8.ValidString(s) || hasSpaceOrControl(s) {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.Hostname() == "" {
		return ""
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return s
	}
	return ""
}

// plainHTTPURL reports whether s is a URL cleanURL keeps without asking
// url.Parse, most of the cost of cleaning a record: printable ASCII,
// "http://" or "https://", a host of letters, digits and ".-_~" with an
// optional numeric port, and well-formed %-escapes after it. False is not
// a verdict: cleanURL then decides the long way.
func plainHTTPURL(s string) bool {
	rest, ok := strings.CutPrefix(s, "http://")
	if !ok {
		if rest, ok = strings.CutPrefix(s, "https://"); !ok {
			return false
		}
	}
	host, port := true, false // in the host, in its port
	for i := 0; i < len(rest); i++ {
		switch c := rest[i]; {
		case c <= ' ' || c >= 0x7f || host && i == 0 && strings.IndexByte("/?#:", c) >= 0:
			return false
		case !host:
			if c == '%' && (i+2 >= len(rest) || !isHex(rest[i+1]) || !isHex(rest[i+2])) {
				return false
			}
		case c == '/' || c == '?' || c == '#':
			host = false
		case port || c == ':':
			if c == ':' && port || c != ':' && (c < '0' || c > '9') {
				return false
			}
			port = true
		case !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(".-_~", c) >= 0):
			return false
		}
	}
	return len(rest) > 0
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// hasSpaceOrControl rejects URLs with inner white space or control
// characters, which url.Parse tolerates in paths but no client sends as is.
func hasSpaceOrControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	})
}

// Time layouts of the source: "2025-02-27 12:38:23" (UTC) and the ISO 8601
// twin "2025-02-27T12:38:23Z".
const sourceTimeLayout = "2006-01-02 15:04:05"

// newestTime is the latest check or change time of a raw record, zero if it
// has none. The plain field is preferred; its _iso8601 twin stands in when
// the plain one is missing or unreadable.
func newestTime(raw *rawStation) time.Time {
	a := parseSourceTime(raw.LastCheckTime, raw.LastCheckTimeTZ)
	b := parseSourceTime(raw.LastChangeTime, raw.LastChangeTimeTZ)
	if b.After(a) {
		return b
	}
	return a
}

func parseSourceTime(plain, iso8601 string) time.Time {
	if t, err := time.Parse(sourceTimeLayout, strings.TrimSpace(plain)); err == nil {
		return t.UTC()
	}
	if t, err := time.Parse(time.RFC3339, strings.TrimSpace(iso8601)); err == nil {
		return t.UTC()
	}
	return time.Time{}
}

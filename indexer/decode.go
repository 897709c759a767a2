package indexer

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"unicode/utf8"

	"stationdex/internal/dim"
	"stationdex/internal/format"
)

// A single-pass decoder for the common shape of a station record, in front
// of json.Unmarshal. Unmarshal validates the whole record before decoding
// it, a second pass over every byte, and decoding by reflection costs
// about as much again: together a fifth of the CPU time of a large build.
//
// The fast path is only ever an optimisation, never a second definition of
// what a valid record is: it accepts a record only when it is sure that
// Unmarshal would accept it too and fill rawStation with the same values
// (FuzzFastDecode checks this against Unmarshal). Anything else, invalid
// JSON, a type Unmarshal would reject, an escaped or non-ASCII key (Unmarshal
// matches keys case-insensitively, with Unicode folding), invalid UTF-8 in
// a used string, deep nesting, makes it give up, and decodeStation then
// runs Unmarshal, whose verdict and error message stand.

// maxFastDepth is the nesting of unused values the fast path follows; real
// records have none. Deeper input goes to Unmarshal and its own limit.
const maxFastDepth = 32

// fastDecoder walks one record's bytes.
type fastDecoder struct {
	b []byte
	i int
	// upstreamFields: the fields of rawUpstream are decoded too.
	upstreamFields bool
}

// decodeStationFast fills st (which must be zero) from raw, a record
// trimmed of white space, and reports whether it could; false says nothing
// about raw's validity, only that Unmarshal must decide.
func decodeStationFast(raw []byte, st *rawInput, upstreamFields bool) bool {
	d := fastDecoder{b: raw, upstreamFields: upstreamFields}
	if !d.object(st) {
		return false
	}
	d.space()
	return d.i == len(d.b)
}

// stationField is where a key's value goes: one of the pointers, or none
// for a key rawStation does not use.
type stationField struct {
	str  *string
	num  *int64
	geo  *coordinate
	flag *bool
}

// fieldOf maps a key to its field of st. Keys here are lower-case ASCII
// (see key), for which Unmarshal's case-insensitive match is an exact one.
func fieldOf(st *rawStation, key []byte) stationField {
	switch string(key) {
	case "stationuuid":
		return stationField{str: &st.StationUUID}
	case "name":
		return stationField{str: &st.Name}
	case "url":
		return stationField{str: &st.URL}
	case "url_resolved":
		return stationField{str: &st.URLResolved}
	case "homepage":
		return stationField{str: &st.Homepage}
	case "tags":
		return stationField{str: &st.Tags}
	case "country":
		return stationField{str: &st.Country}
	case "countrycode":
		return stationField{str: &st.CountryCode}
	case "state":
		return stationField{str: &st.State}
	case "language":
		return stationField{str: &st.Language}
	case "languagecodes":
		return stationField{str: &st.LanguageCodes}
	case "bitrate":
		return stationField{num: &st.Bitrate}
	case "codec":
		return stationField{str: &st.Codec}
	case "lastchangetime":
		return stationField{str: &st.LastChangeTime}
	case "lastchangetime_iso8601":
		return stationField{str: &st.LastChangeTimeTZ}
	case "lastchecktime":
		return stationField{str: &st.LastCheckTime}
	case "lastchecktime_iso8601":
		return stationField{str: &st.LastCheckTimeTZ}
	case "geo_lat":
		return stationField{geo: &st.GeoLat}
	case "geo_long":
		return stationField{geo: &st.GeoLong}
	case "votes":
		return stationField{num: &st.Votes}
	case "clickcount":
		return stationField{num: &st.ClickCount}
	}
	if n := st.Flags.field(key); n != nil {
		return stationField{num: n}
	}
	return stationField{}
}

// upstreamFieldOf is fieldOf for the fields only the Radio Browser API uses.
func upstreamFieldOf(up *rawUpstream, key []byte) stationField {
	switch string(key) {
	case "changeuuid":
		return stationField{str: &up.ChangeUUID}
	case "serveruuid":
		return stationField{str: &up.ServerUUID}
	case "favicon":
		return stationField{str: &up.Favicon}
	case "iso_3166_2":
		return stationField{str: &up.ISO3166_2}
	case "hls":
		return stationField{num: &up.HLS}
	case "lastcheckoktime":
		return stationField{str: &up.LastCheckOKTime}
	case "lastcheckoktime_iso8601":
		return stationField{str: &up.LastCheckOKTimeTZ}
	case "lastlocalchecktime":
		return stationField{str: &up.LastLocalCheckTime}
	case "lastlocalchecktime_iso8601":
		return stationField{str: &up.LastLocalCheckTimeTZ}
	case "clicktimestamp":
		return stationField{str: &up.ClickTimestamp}
	case "clicktimestamp_iso8601":
		return stationField{str: &up.ClickTimestampTZ}
	case "clicktrend":
		return stationField{num: &up.ClickTrend}
	case "ssl_error":
		return stationField{num: &up.SSLError}
	case "has_extended_info":
		return stationField{flag: &up.HasExtendedInfo}
	}
	return stationField{}
}

// object decodes the top-level object into st.
func (d *fastDecoder) object(st *rawInput) bool {
	if !d.take('{') {
		return false
	}
	d.space()
	if d.take('}') {
		return true
	}
	for {
		d.space()
		key, ok := d.key()
		if !ok {
			return false
		}
		d.space()
		if !d.take(':') {
			return false
		}
		d.space()
		f := fieldOf(&st.rawStation, key)
		if f == (stationField{}) && d.upstreamFields {
			f = upstreamFieldOf(&st.rawUpstream, key)
		}
		if !d.value(f) {
			return false
		}
		d.space()
		if d.take('}') {
			return true
		}
		if !d.take(',') {
			return false
		}
	}
}

// key reads an object key made only of lower-case ASCII letters, digits
// and underscores, as every Radio Browser key is; any other key is left
// to Unmarshal.
func (d *fastDecoder) key() ([]byte, bool) {
	if !d.take('"') {
		return nil, false
	}
	start := d.i
	for ; d.i < len(d.b); d.i++ {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return d.b[start : d.i-1], true
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '_':
		default:
			return nil, false
		}
	}
	return nil, false
}

// value decodes one value into f, or checks and skips it when f is none.
func (d *fastDecoder) value(f stationField) bool {
	switch {
	case f.str != nil:
		return d.stringValue(f.str)
	case f.num != nil:
		return d.intValue(f.num)
	case f.geo != nil:
		return d.coordinateValue(f.geo)
	case f.flag != nil:
		return d.boolValue(f.flag)
	}
	return d.skip(0)
}

// stringValue stores a string; null leaves the field as it is, as
// Unmarshal does. Other types are Unmarshal's to reject.
func (d *fastDecoder) stringValue(dst *string) bool {
	if d.literal("null") {
		return true
	}
	start := d.i
	escaped, ok := d.skipString()
	if !ok {
		return false
	}
	body := d.b[start+1 : d.i-1]
	if !escaped && utf8.Valid(body) {
		*dst = string(body)
		return true
	}
	// Escapes and invalid UTF-8 (which Unmarshal replaces) are rare:
	// Unmarshal's own unquoting decodes the one string.
	return json.Unmarshal(d.b[start:d.i], dst) == nil
}

// intValue stores an integer; a fraction, an exponent or an overflow is
// an error for Unmarshal, so those are left to it.
func (d *fastDecoder) intValue(dst *int64) bool {
	if d.literal("null") {
		return true
	}
	start := d.i
	if !d.skipNumber() {
		return false
	}
	n, err := strconv.ParseInt(string(d.b[start:d.i]), 10, 64)
	if err != nil {
		return false
	}
	*dst = n
	return true
}

// boolValue stores true or false; null leaves the field, as Unmarshal
// does, and any other type is Unmarshal's to reject.
func (d *fastDecoder) boolValue(dst *bool) bool {
	switch {
	case d.literal("null"):
	case d.literal("true"):
		*dst = true
	case d.literal("false"):
		*dst = false
	default:
		return false
	}
	return true
}

// coordinateValue mirrors coordinate.UnmarshalJSON: a number that parses
// as a float64 sets the coordinate, any other valid value leaves it.
func (d *fastDecoder) coordinateValue(dst *coordinate) bool {
	start := d.i
	if d.i < len(d.b) && (d.b[d.i] == '-' || isDigit(d.b[d.i])) {
		if !d.skipNumber() {
			return false
		}
		if f, err := strconv.ParseFloat(string(d.b[start:d.i]), 64); err == nil {
			*dst = coordinate{deg: f, set: true}
		}
		return true
	}
	return d.skip(0)
}

// skip checks and passes over one value of any type.
func (d *fastDecoder) skip(depth int) bool {
	if d.i >= len(d.b) || depth > maxFastDepth {
		return false
	}
	switch c := d.b[d.i]; {
	case c == '"':
		_, ok := d.skipString()
		return ok
	case c == '{':
		return d.skipContainer(depth, '}', true)
	case c == '[':
		return d.skipContainer(depth, ']', false)
	case c == '-' || isDigit(c):
		return d.skipNumber()
	}
	return d.literal("true") || d.literal("false") || d.literal("null")
}

// skipContainer passes over an object (keyed) or an array ending in end.
func (d *fastDecoder) skipContainer(depth int, end byte, keyed bool) bool {
	d.i++ // the opening bracket
	d.space()
	if d.take(end) {
		return true
	}
	for {
		d.space()
		if keyed {
			if _, ok := d.skipString(); !ok {
				return false
			}
			d.space()
			if !d.take(':') {
				return false
			}
			d.space()
		}
		if !d.skip(depth + 1) {
			return false
		}
		d.space()
		if d.take(end) {
			return true
		}
		if !d.take(',') {
			return false
		}
	}
}

// skipString passes over a string, checking its escapes and that it has
// no control characters; escaped reports whether it has escapes.
func (d *fastDecoder) skipString() (escaped, ok bool) {
	if !d.take('"') {
		return false, false
	}
	for d.i < len(d.b) {
		c := d.b[d.i]
		d.i++
		switch {
		case c == '"':
			return escaped, true
		case c < 0x20:
			return false, false
		case c == '\\':
			escaped = true
			if !d.skipEscape() {
				return false, false
			}
		}
	}
	return false, false
}

// skipEscape passes over what follows a backslash.
func (d *fastDecoder) skipEscape() bool {
	if d.i >= len(d.b) {
		return false
	}
	c := d.b[d.i]
	d.i++
	switch c {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	case 'u':
		if d.i+4 > len(d.b) {
			return false
		}
		for _, h := range d.b[d.i : d.i+4] {
			if !isHexDigit(h) {
				return false
			}
		}
		d.i += 4
		return true
	}
	return false
}

// skipNumber passes over a number in JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *fastDecoder) skipNumber() bool {
	d.take('-')
	switch {
	case d.take('0'):
	case d.i < len(d.b) && isDigit(d.b[d.i]) && d.b[d.i] != '0':
		d.digits()
	default:
		return false
	}
	if d.take('.') && !d.digits() {
		return false
	}
	if d.take('e') || d.take('E') {
		if !d.take('+') {
			d.take('-')
		}
		if !d.digits() {
			return false
		}
	}
	return true
}

// digits passes over a run of digits and reports whether there was one.
func (d *fastDecoder) digits() bool {
	start := d.i
	for d.i < len(d.b) && isDigit(d.b[d.i]) {
		d.i++
	}
	return d.i > start
}

// literal passes over word if it comes next.
func (d *fastDecoder) literal(word string) bool {
	if len(d.b)-d.i >= len(word) && string(d.b[d.i:d.i+len(word)]) == word {
		d.i += len(word)
		return true
	}
	return false
}

// take passes over c if it comes next.
func (d *fastDecoder) take(c byte) bool {
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// space passes over JSON white space.
func (d *fastDecoder) space() {
	for d.i < len(d.b) && isJSONSpace(d.b[d.i]) {
		d.i++
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHexDigit(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// sourceFlags are the numbers of the source fields that the dimension
// table's flags are read from (dim.Flag), each at its flag's bit: the
// fast path finds them by fieldOf, Unmarshal by a struct made from the
// rows, so a new flag is a row, not a field here.
type sourceFlags [format.MaxFlags]int64

// flagFields are the rows' flags.
var flagFields = func() []dim.Flag {
	var fs []dim.Flag
	for _, d := range dim.Flags() {
		fs = append(fs, dim.Rows[d].Flag)
	}
	return fs
}()

// flagStruct has a field per flag, tagged with its source field, in the
// order of flagFields: what Unmarshal decodes them into.
var flagStruct = func() reflect.Type {
	fields := make([]reflect.StructField, len(flagFields))
	for i, f := range flagFields {
		fields[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: reflect.TypeFor[int64](), Tag: reflect.StructTag(`json:"` + f.Field + `"`)}
	}
	return reflect.StructOf(fields)
}()

// field is where the number of the source field key goes, nil when no
// flag is read from it.
func (s *sourceFlags) field(key []byte) *int64 {
	for _, f := range flagFields {
		if string(key) == f.Field {
			return &s[f.Bit]
		}
	}
	return nil
}

// value is the number read from the source field name, 0 when no flag
// is read from it.
func (s *sourceFlags) value(name string) int64 {
	if n := s.field([]byte(name)); n != nil {
		return *n
	}
	return 0
}

// record is the record's Flags: each flag whose field is 1.
func (s *sourceFlags) record() format.Flags {
	var fs format.Flags
	for _, f := range flagFields {
		if s[f.Bit] == 1 {
			fs = fs.With(f.Bit)
		}
	}
	return fs
}

// unmarshal decodes the flags' source fields of raw as Unmarshal decodes
// a struct field, naming rawStation in a type error as it did when each
// was a field of it.
func (s *sourceFlags) unmarshal(raw []byte) error {
	v := reflect.New(flagStruct)
	if err := json.Unmarshal(raw, v.Interface()); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Struct == "" {
			te.Struct = "rawStation"
		}
		return err
	}
	for i, f := range flagFields {
		s[f.Bit] = v.Elem().Field(i).Int()
	}
	return nil
}

// unmarshalStation is the slow path: Unmarshal of raw into st (the fields
// of rawUpstream too when upstreamFields), then the flags' source fields.
func unmarshalStation(raw []byte, st *rawInput, upstreamFields bool) error {
	var err error
	if upstreamFields {
		err = json.Unmarshal(raw, st)
	} else {
		err = json.Unmarshal(raw, &st.rawStation)
	}
	if err != nil {
		return err
	}
	return st.Flags.unmarshal(raw)
}

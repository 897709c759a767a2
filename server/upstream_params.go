package server

import (
	"encoding/json"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The parameters of the compatible API under /json/: one row each, read
// from the query string, a form body (urlencoded or multipart) or a JSON
// body, as the upstream server reads them, with the body winning over the
// query string. Where the upstream server is lenient to a fault, this
// one refuses (a 400 with a JSON body):
//
//   - a name is matched ignoring case and underscores, because the npm
//     client lowercases every name (bitratemin, hasextendedinfo) and
//     others send the documented spelling (bitrateMin,
//     has_extended_info); a name no row has, or one the path does not
//     take, is unknown (upstream ignored it, so a misspelt filter
//     silently did not filter);
//   - a boolean is exactly true or false (upstream: anything else was
//     false, or a 500 for three of them);
//   - a count is a plain decimal (upstream: anything else was its
//     default, so limit=abc answered 999999 stations).

// upParam is one parameter of the compatible API.
type upParam uint8

const (
	upName upParam = iota
	upNameExact
	upCountry
	upCountryExact
	upCountryCode
	upState
	upStateExact
	upLanguage
	upLanguageExact
	upTag
	upTagExact
	upTagList
	upCodec
	upCodecExact
	upBitrateMin
	upBitrateMax
	upHasGeoInfo
	upHasExtendedInfo
	upIsHTTPS
	upGeoLat
	upGeoLong
	upGeoDistance
	upOrder
	upReverse
	upOffset
	upLimit
	upHideBroken
	upUUIDs
	upURL
	numUpParams
)

// upKind is how a parameter's value is checked.
type upKind uint8

const (
	upText    upKind = iota // any text up to maxUpTextBytes
	upFlag                  // true or false
	upCount                 // a decimal whole number up to maxUpCount
	upDecimal               // a finite decimal number
)

// upParamRow is a parameter as the upstream documentation spells it.
type upParamRow struct {
	name string
	kind upKind
}

var upParamRows = [numUpParams]upParamRow{
	upName: {"name", upText}, upNameExact: {"nameExact", upFlag},
	upCountry: {"country", upText}, upCountryExact: {"countryExact", upFlag},
	upCountryCode: {"countrycode", upText},
	upState:       {"state", upText}, upStateExact: {"stateExact", upFlag},
	upLanguage: {"language", upText}, upLanguageExact: {"languageExact", upFlag},
	upTag: {"tag", upText}, upTagExact: {"tagExact", upFlag}, upTagList: {"tagList", upText},
	upCodec: {"codec", upText}, upCodecExact: {"codecExact", upFlag}, upBitrateMin: {"bitrateMin", upCount}, upBitrateMax: {"bitrateMax", upCount},
	upHasGeoInfo: {"has_geo_info", upFlag}, upHasExtendedInfo: {"has_extended_info", upFlag},
	upIsHTTPS: {"is_https", upFlag}, upGeoLat: {"geo_lat", upDecimal}, upGeoLong: {"geo_long", upDecimal},
	upGeoDistance: {"geo_distance", upDecimal},
	upOrder:       {"order", upText}, upReverse: {"reverse", upFlag}, upOffset: {"offset", upCount},
	upLimit: {"limit", upCount}, upHideBroken: {"hidebroken", upFlag},
	upUUIDs: {"uuids", upText}, upURL: {"url", upText},
}

// Bounds of values. A url may be as long as the longest the index keeps
// (indexer.MaxURLBytes); a count above maxUpCount asks for more than any
// snapshot holds.
const (
	maxUpTextBytes = 4096
	maxUpCount     = 999_999_999
	maxUpBodyBytes = 64 << 10
)

// upParamSet is a set of parameters, one bit each.
type upParamSet uint32

func upSet(ps ...upParam) upParamSet {
	var s upParamSet
	for _, p := range ps {
		s |= 1 << p
	}
	return s
}

func (s upParamSet) has(p upParam) bool { return s&(1<<p) != 0 }

// The parameter sets of the paths.
var (
	upPaging       = upSet(upOrder, upReverse, upOffset, upLimit, upHideBroken)
	upSearchParams = upPaging | upSet(upName, upNameExact, upCountry, upCountryExact, upCountryCode,
		upState, upStateExact, upLanguage, upLanguageExact, upTag, upTagExact, upTagList, upCodec, upCodecExact,
		upBitrateMin, upBitrateMax, upHasGeoInfo, upHasExtendedInfo, upIsHTTPS, upGeoLat, upGeoLong, upGeoDistance)
)

// upParamByName finds a row by its name folded as upFoldName folds it.
var upParamByName = func() map[string]upParam {
	m := make(map[string]upParam, numUpParams)
	for p, row := range upParamRows {
		m[upFoldName(row.name)] = upParam(p)
	}
	return m
}()

// upFoldName is a parameter name with case and underscores left out.
func upFoldName(name string) string {
	return strings.ReplaceAll(strings.ToLower(name), "_", "")
}

// upParams are the parameters of one request: a value for each given.
type upParams struct {
	given  upParamSet
	values [numUpParams]string
}

func (p *upParams) has(q upParam) bool    { return p.given.has(q) }
func (p *upParams) text(q upParam) string { return p.values[q] }
func (p *upParams) flag(q upParam) bool   { return p.values[q] == "true" }
func (p *upParams) count(q upParam, def int) int {
	if !p.has(q) {
		return def
	}
	n, _ := strconv.Atoi(p.values[q]) // checked by checkUpValue
	return n
}

func (p *upParams) decimal(q upParam) float64 {
	f, _ := strconv.ParseFloat(p.values[q], 64) // checked by checkUpValue
	return f
}

// canonical is the parameters as one string, in row order: what names
// an answer in the response cache, wherever the values came from.
func (p *upParams) canonical() string {
	v := url.Values{}
	for q := range numUpParams {
		if p.has(q) {
			v.Set(upParamRows[q].name, p.values[q])
		}
	}
	return v.Encode()
}

// parseUpParams reads the parameters of r that the path takes.
func parseUpParams(r *http.Request, takes upParamSet) (upParams, error) {
	var p upParams
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return p, errorf(CodeInvalidRequest, "the query string cannot be read: %v", err)
	}
	if err := p.add(query, takes, false); err != nil {
		return p, err
	}
	body, err := readUpBody(r)
	if err != nil {
		return p, err
	}
	return p, p.add(body, takes, true)
}

// add takes the values of vals; override lets them replace values given
// before (the body's replace the query string's, as upstream), but not
// one another: two names of one parameter in vals (countryCode and
// countrycode) are a repeat wherever they come from.
func (p *upParams) add(vals url.Values, takes upParamSet, override bool) error {
	var here upParamSet
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range vals {
			if !yield(k) {
				return
			}
		}
	}) {
		q, ok := upParamByName[upFoldName(name)]
		if !ok || !takes.has(q) {
			return errorf(CodeUnknownParameter, "this path takes no parameter %s; it takes %s", quoteClip(name), takes.names())
		}
		if len(vals[name]) > 1 || here.has(q) || p.has(q) && !override {
			return errorf(CodeRepeatedParameter, "parameter %s is given more than once", upParamRows[q].name)
		}
		if err := checkUpValue(q, vals[name][0]); err != nil {
			return err
		}
		here |= 1 << q
		p.given |= 1 << q
		p.values[q] = vals[name][0]
	}
	return nil
}

// names lists the parameters of s, for messages.
func (s upParamSet) names() string {
	var names []string
	for q := range numUpParams {
		if s.has(q) {
			names = append(names, upParamRows[q].name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// checkUpValue checks a value against its row's kind.
func checkUpValue(q upParam, v string) error {
	row := upParamRows[q]
	switch {
	case len(v) > maxUpTextBytes || !utf8.ValidString(v):
		return errorf(CodeInvalidParameter, "%s must be UTF-8 text of at most %d bytes", row.name, maxUpTextBytes)
	case row.kind == upFlag && v != "true" && v != "false":
		return errorf(CodeInvalidParameter, "%s must be true or false, not %s", row.name, quoteClip(v))
	case row.kind == upCount && !isUpCount(v):
		return errorf(CodeInvalidParameter, "%s must be a whole number from 0 to %d, not %s", row.name, maxUpCount, quoteClip(v))
	case row.kind == upDecimal && !isUpDecimal(v):
		return errorf(CodeInvalidParameter, "%s must be a decimal number, not %s", row.name, quoteClip(v))
	}
	return nil
}

func isUpCount(v string) bool {
	if v == "" || len(v) > len(strconv.Itoa(maxUpCount)) {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	n, _ := strconv.Atoi(v)
	return n <= maxUpCount
}

func isUpDecimal(v string) bool {
	f, err := strconv.ParseFloat(v, 64)
	return err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) && !strings.ContainsAny(v, "xXpP_")
}

// readUpBody reads the parameters of a POST body: a form (urlencoded or
// multipart) or a JSON object. Other requests have none.
func readUpBody(r *http.Request) (url.Values, error) {
	if r.Method != http.MethodPost || !hasBody(r) {
		return nil, nil
	}
	media, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		media = ""
	}
	r.Body = http.MaxBytesReader(nil, r.Body, maxUpBodyBytes)
	switch media {
	case "application/x-www-form-urlencoded":
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, upBodyError(err)
		}
		v, err := url.ParseQuery(string(b))
		if err != nil {
			return nil, errorf(CodeInvalidRequest, "the form body cannot be read: %v", err)
		}
		return v, nil
	case "multipart/form-data":
		if err := r.ParseMultipartForm(maxUpBodyBytes); err != nil {
			return nil, upBodyError(err)
		}
		return url.Values(r.MultipartForm.Value), nil
	case "application/json":
		return readUpJSON(r.Body)
	}
	return nil, errorf(CodeInvalidRequest, "a POST body must be a form (application/x-www-form-urlencoded or multipart/form-data) or application/json")
}

func upBodyError(err error) error {
	return errorf(CodeInvalidRequest, "the body cannot be read (at most %d bytes): %v", maxUpBodyBytes, err)
}

// readUpJSON reads a JSON object of parameters: strings as they are,
// numbers and booleans as written, arrays (tagList, uuids) joined with
// commas, as upstream reads them. Nested objects are refused.
func readUpJSON(body io.Reader) (url.Values, error) {
	dec := json.NewDecoder(body)
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, errorf(CodeInvalidRequest, "the JSON body must be one object of parameters: %v", err)
	}
	vals := url.Values{}
	for name, v := range obj {
		s, ok := upJSONValue(v)
		if !ok {
			return nil, errorf(CodeInvalidParameter, "parameter %s must be a string, number, boolean or list of them", quoteClip(name))
		}
		if v != nil {
			vals.Set(name, s)
		}
	}
	return vals, nil
}

func upJSONValue(v any) (string, bool) {
	switch v := v.(type) {
	case nil:
		return "", true
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case bool:
		return strconv.FormatBool(v), true
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			s, ok := upJSONValue(e)
			if _, nested := e.([]any); !ok || nested || e == nil {
				return "", false
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), true
	}
	return "", false
}
